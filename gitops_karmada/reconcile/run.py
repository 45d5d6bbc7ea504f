"""One run: a repository state in, the desired cluster folders and binding records out, incrementally.

``reconcile(request)`` is pure: the adapters read the commit and write the result. It reads as its steps,
each a function returning a frozen value:

    prepare (inputs, previous state, failover; read-only) → scope (what must be judged) → judge (reuse or
    redo, per template) → order (the scheduling order and priorities) → redo (claim → place → admit →
    render → record, in that order or fanned out) → assemble (outputs, index, records) → guard (the write
    paths: the changes, checked against the guardrails)

A template that fails keeps its previous files and binding and is reported; it never empties a cluster
folder.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gitops_karmada.reconcile.assemble import assemble, refused
from gitops_karmada.reconcile.guard import guard
from gitops_karmada.reconcile.judge import judge
from gitops_karmada.reconcile.order import order
from gitops_karmada.reconcile.prepare import Refused, prepare
from gitops_karmada.reconcile.redo import redo
from gitops_karmada.reconcile.scope import scope

if TYPE_CHECKING:
    from gitops_karmada.reconcile.request import ReconcileRequest
    from gitops_karmada.reconcile.result import RenderResult


def reconcile(request: ReconcileRequest) -> RenderResult:
    """Compute the desired cluster folders and binding records for one repository state."""
    ports = request.ports
    prepared = prepare(request)
    if isinstance(prepared, Refused):
        return refused(request, prepared.previous, prepared.diagnostics)
    ports.checkpoint()
    scoped = scope(prepared, request)
    judged = judge(prepared, scoped, request)
    ordered = order(prepared, scoped, judged)
    redone = redo(prepared, scoped, judged, ordered, request)
    result = assemble(prepared, scoped, redone, request)
    del redone  # its outcomes' files are the result's now: not held twice through the guard and the commit
    allow = request.mode.guard
    if allow is None or not result.input_ok:
        return result
    return replace(result, guarded=guard(result, request, allow))
