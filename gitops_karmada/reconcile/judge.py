"""Judge: reuse or redo, per template.

A template whose inputs' fingerprint (``core.incremental.fingerprint``) equals the one the state index
recorded, whose record and rendered files are as the tool wrote them, and whose result was settled, is
reused: its previous binding and files stand. Templates no other template requires are judged here, before
any is redone, so the records of those to redo are read in one batch (one git process, not one per record:
a status or inventory change redoes the whole fleet); a template others require is judged in ``redo``, once
its requirers' bindings are known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.failover.controllers import failover_digest

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.core.incremental.state_index import IndexEntry
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.reconcile.claims import Requirement
    from gitops_karmada.reconcile.prepare import Prepared
    from gitops_karmada.reconcile.request import ReconcileRequest
    from gitops_karmada.reconcile.scope import Scope

Identity = tuple[str, str, str, str]

UNMADE = "(fingerprint not made yet)"
"""Stands in for the fingerprint of a template that has no index entry (nothing to reuse): it is made where
the template is redone, across processes when there are many (a first run)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    fingerprint: str
    """The template's fingerprint, or ``UNMADE``."""
    entry: IndexEntry | None
    """The index entry its output stands on; None: it is redone."""


@dataclass(frozen=True, slots=True)
class Judgement:
    verdicts: Mapping[Identity, Verdict]
    """The templates judged ahead of ``redo``: every one no other template requires."""

    def to_redo(self, identity: Identity) -> bool:
        verdict = self.verdicts.get(identity)
        return verdict is not None and verdict.entry is None


def judge(prepared: Prepared, scoped: Scope, request: ReconcileRequest) -> Judgement:
    previous = prepared.previous
    index_entries = previous.index.entries if previous.index is not None else {}
    verdicts: dict[Identity, Verdict] = {}
    for count, template in enumerate(scoped.templates):
        if count % 256 == 0:
            request.ports.checkpoint()
        ident = template.key.identity
        if scoped.judged is not None and ident not in scoped.judged and ident in scoped.standing:
            entry = scoped.standing[ident]
            verdicts[ident] = Verdict(entry.fingerprint, entry)
        elif ident not in scoped.requirers:
            if ident not in index_entries:
                # nothing recorded to reuse, whatever the fingerprint: it is made where the template is
                # redone (across processes, for a first run)
                verdicts[ident] = Verdict(UNMADE, None)
                continue
            fingerprint = fingerprint_of(prepared, scoped, template, ())
            verdicts[ident] = Verdict(fingerprint, reusable(prepared, request, template, fingerprint))
    previous.bindings(ident for ident, verdict in verdicts.items() if verdict.entry is None)
    return Judgement(verdicts)


def fingerprint_of(
    prepared: Prepared, scoped: Scope, template: Manifest, required: tuple[Requirement, ...]
) -> str:
    """Everything ``template``'s output depends on, hashed (its requirers' bindings included)."""
    ident = template.key.identity
    failover = prepared.failover
    return prepared.fingerprints.template(
        template,
        scoped.matches[ident],
        [r.fingerprint_part() for r in required],
        failover_digest(prepared.previous.binding(ident))
        if failover is not None and ident in failover.seen
        else (),
    )


def reusable(
    prepared: Prepared, request: ReconcileRequest, template: Manifest, fingerprint: str
) -> IndexEntry | None:
    """The index entry ``template``'s output stands on, unless it is rescheduled or explained."""
    mode = request.mode
    if template.key.identity in mode.reschedule or (mode.focus is not None and mode.focus(template.key)):
        return None
    return prepared.previous.reusable(template.key.identity, fingerprint, request.snapshot.output_blobs)
