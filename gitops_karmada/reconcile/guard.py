"""Guard: what committing a run's result does to the fleet, checked against the repository's guardrails.

The write paths (``reconcile``, ``reschedule``, ``rollback``) ask for it (``RunMode.guard``): the changes a
commit would make are computed from the result and the files the snapshot holds, turned into a plan
(``core.diff.writeguard``: removed manifests, per-cluster counts and replicas, new template problems) and
checked. A violation refuses the commit; ``--allow`` lifts a guardrail by name. An eviction by the failover
controllers is Karmada acting on what the clusters reported, not a mistake in the inputs: it is excused.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gitops_karmada.core.diff.writeguard import guard as check_plan
from gitops_karmada.core.diff.writeguard import write_plan
from gitops_karmada.core.failover.controllers import excuse_failover
from gitops_karmada.model.guardrails import parse_guardrails
from gitops_karmada.reconcile.request import ManagedBlobs
from gitops_karmada.reconcile.result import Guarded

if TYPE_CHECKING:
    from gitops_karmada.model.config import ToolConfig
    from gitops_karmada.model.guardrails import Guardrail
    from gitops_karmada.reconcile.request import ReconcileRequest
    from gitops_karmada.reconcile.result import RenderResult

ALLOW_ALL = "all"


def guardrails_for(config: ToolConfig, allow: frozenset[str]) -> tuple[Guardrail, ...]:
    """The repository's guardrails minus those ``--allow`` lifts (``all`` lifts every one)."""
    if ALLOW_ALL in allow:
        return ()
    return tuple(g for g in parse_guardrails(config.guardrails) if g.kind.value not in allow)


def guard(result: RenderResult, request: ReconcileRequest, allow: frozenset[str]) -> Guarded:
    """``result``'s changes against the snapshot's files, checked against the guardrails ``allow`` leaves."""
    snapshot, ports = request.snapshot, request.ports
    current = ManagedBlobs(snapshot.blobs_of_state(ports.hash_blob), snapshot.output_blobs)
    changes = result.commit_changes(current, ports.hash_blob)
    plan = write_plan(
        previous=result.previous_bindings,
        current=result.bindings,
        existing=current,
        changes=changes,
        clusters_dir=snapshot.config.output.clusters_dir,
        # counted from the names alone: the ids of a large tree are never listed for a small change
        objects_before=ports.count_outputs() if ports.count_outputs is not None else None,
        released={path: str(o.key) for o in result.outcomes for path in o.released},
        diagnostics=result.diagnostics,
    )
    checked = check_plan(plan, guardrails_for(snapshot.config, allow))
    if result.failover is not None:
        checked = replace(checked, violations=excuse_failover(checked.violations, result.failover))
    return Guarded(changes, checked)
