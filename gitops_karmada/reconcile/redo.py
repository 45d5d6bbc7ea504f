"""Redo: every template judged to be redone runs its chain (``reconcile.process``); the others are reused.

The templates whose outcomes nothing else in the run reads (no other template requires them, no quota
counts their namespace, no earlier decision of the run changes them: ``SchedulingOrder.interacting``) are
independent: they go to ``Ports.fan_out`` first, which may spread them over processes. The rest run in the
run's scheduling order (``reconcile.order``): FederatedResourceQuota admission folds over the ledger in
that order, and what each template is given is passed to the next (``reconcile.earlier``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gitops_karmada.core.detector import ClaimState, PolicyMatch
from gitops_karmada.core.ownership import binding_key
from gitops_karmada.core.quota import QuotaLedger
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.reconcile.claims import requirements
from gitops_karmada.reconcile.earlier import Earlier
from gitops_karmada.reconcile.index_entries import MadeAhead, index_entry, record_file
from gitops_karmada.reconcile.judge import UNMADE, fingerprint_of, reusable
from gitops_karmada.reconcile.process import process, reused, stored

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.reconcile.judge import Judgement
    from gitops_karmada.reconcile.order import SchedulingOrder
    from gitops_karmada.reconcile.outcome import TemplateOutcome
    from gitops_karmada.reconcile.prepare import Prepared
    from gitops_karmada.reconcile.request import ReconcileRequest
    from gitops_karmada.reconcile.scope import Scope

Identity = tuple[str, str, str, str]

_STRIPPED = PolicyMatch(ClaimState.UNMATCHED)
"""Stands in for a match while an outcome travels between processes: the policies it holds cost more to
send than the rest of the outcome, and the receiver has the very object."""


@dataclass(frozen=True, slots=True)
class Redone:
    outcomes: tuple[TemplateOutcome, ...]
    """Every kept template's outcome, in the scope's template order."""
    made: Mapping[Identity, MadeAhead]
    """Binding records and index entries made where their templates were redone (ahead of the loop)."""


def redo(
    prepared: Prepared, scoped: Scope, judged: Judgement, ordered: SchedulingOrder, request: ReconcileRequest
) -> Redone:
    ctx, previous, ports = prepared.ctx, prepared.previous, request.ports
    templates = scoped.templates
    # bindings of deleted templates free their quota first; the changes are admitted in processing order
    standing = previous.bindings(
        i
        for i in sorted(prepared.current)
        if i[2] in scoped.quota_namespaces and (scoped.judged is None or i in scoped.judged)
    )
    ledger = QuotaLedger.open(
        ctx.inputs.quotas, standing.values(), enforcement=ctx.gate(FeatureGate.FEDERATED_QUOTA_ENFORCEMENT)
    )
    ahead, made = _redo_independent(prepared, scoped, judged, ordered, ledger, request)
    done: dict[Identity, TemplateOutcome] = {}
    finished = len(ahead)
    earlier = Earlier(members=ordered.members, deduct=ordered.deduct)
    for template in ordered.templates:
        ports.checkpoint()
        ident = template.key.identity
        if ident in ahead:
            done[ident] = ahead[ident]
            continue
        ports.tell_progress(finished, len(templates))
        finished += 1
        requirers = scoped.requirers.get(ident)
        required = (
            requirements([_binding_of(done[p], prepared) for p in sorted(set(requirers)) if p in done])
            if requirers
            else ()
        )
        verdict = judged.verdicts.get(ident)
        if verdict is not None:
            fingerprint, entry = verdict.fingerprint, verdict.entry
            if fingerprint is UNMADE:
                fingerprint = fingerprint_of(prepared, scoped, template, required)
        else:
            fingerprint = fingerprint_of(prepared, scoped, template, required)
            entry = reusable(prepared, request, template, fingerprint)
        match = scoped.matches[ident]
        if entry is not None:
            # made, not recalled: an outcome of a few fields whose paths are made when asked costs less than
            # a memo's lookup, and a standing template's match is a new object every run (no lookup would hit)
            done[ident] = reused(ctx, template, match, entry, fingerprint)
            continue
        ledger, earlier, outcome = process(
            ctx,
            ledger,
            template,
            match,
            previous.binding(ident),
            required,
            fingerprint,
            earlier,
            ordered.priority(ident),
        )
        done[ident] = stored(ports, outcome)
    ports.tell_progress(len(templates), len(templates))
    return Redone(tuple(done[t.key.identity] for t in templates), made)


def _redo_independent(
    prepared: Prepared,
    scoped: Scope,
    judged: Judgement,
    ordered: SchedulingOrder,
    ledger: QuotaLedger,
    request: ReconcileRequest,
) -> tuple[dict[Identity, TemplateOutcome], dict[Identity, MadeAhead]]:
    """The outcomes of the templates to redo whose outcomes nothing else in the run reads, with their binding
    records and index entries: no other template requires them and no quota counts their namespace, so the
    order they are redone in cannot matter. They go through ``Ports.fan_out``; each is exactly what the
    run's loop makes of it (the ledger is left as it was, as the loop would leave it for a namespace without
    quota)."""
    ports = request.ports
    if ports.fan_out is None:
        return {}, {}
    independent = [
        t
        for t in scoped.templates
        if judged.to_redo(t.key.identity)
        and t.key.namespace not in scoped.quota_namespaces
        and not ordered.interacting(t.key.identity)
    ]
    if not independent:
        return {}, {}
    redo_chunk = functools.partial(_redo_chunk, prepared, scoped, judged, ordered, ledger, request)
    total = len(scoped.templates)
    done: Callable[[int], None] | None = (
        (lambda count: ports.tell_progress(count, total)) if ports.progress is not None else None
    )
    outcomes: dict[Identity, TemplateOutcome] = {}
    made: dict[Identity, MadeAhead] = {}
    for template, (outcome, ahead, same) in zip(
        independent, ports.fan_out(redo_chunk, independent, done), strict=True
    ):
        ident = template.key.identity
        outcomes[ident] = replace(outcome, match=scoped.matches[ident]) if same else outcome
        if ahead is not None:
            made[ident] = ahead
    return outcomes, made


def _redo_chunk(
    prepared: Prepared,
    scoped: Scope,
    judged: Judgement,
    ordered: SchedulingOrder,
    ledger: QuotaLedger,
    request: ReconcileRequest,
    chunk: Sequence[Manifest],
) -> list[tuple[TemplateOutcome, MadeAhead | None, bool]]:
    """Independent templates' outcomes, with their records and index entries made where they are redone
    (in whichever process runs the chunk)."""
    ports, previous, layout = request.ports, prepared.previous, prepared.previous.layout
    unrequired = requirements([])
    found = []
    for template in chunk:
        ports.checkpoint()  # a daemon's status run gives way to a user commit here too (it never forks)
        ident = template.key.identity
        match = scoped.matches[ident]
        fingerprint = judged.verdicts[ident].fingerprint
        if fingerprint is UNMADE:
            fingerprint = fingerprint_of(prepared, scoped, template, unrequired)
        _, _, outcome = process(
            prepared.ctx,
            ledger,
            template,
            match,
            previous.binding(ident),
            unrequired,
            fingerprint,
            Earlier(),
            ordered.priority(ident),
        )
        outcome = stored(ports, outcome)
        ahead = None
        if outcome.binding is not None:
            record = record_file(outcome.binding)
            own = {**outcome.files, layout.binding_path(binding_key(outcome.binding)): record}
            entry = index_entry(
                outcome, layout, own, outcome.stored, request.snapshot.output_blobs, ports.hash_blob
            )
            ahead = MadeAhead(record, entry)
        same = outcome.match is match
        found.append((replace(outcome, match=_STRIPPED) if same else outcome, ahead, same))
    return found


def _binding_of(outcome: TemplateOutcome, prepared: Prepared) -> ResourceBinding | None:
    if outcome.reused and outcome.binding is None:
        return prepared.previous.binding(outcome.key.identity)
    return outcome.binding
