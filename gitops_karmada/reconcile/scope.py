"""Scope: which templates this run must judge, and which it keeps.

Every template is matched to its policy (Karmada's detector; a claim recorded before comes first). Who
requires whom (``propagateDeps``) needs every template's match, and so do the workload-affinity groups
(gate WorkloadAffinity); without either, a run that keeps only part of the templates (``focus``,
``partial``) matches only those. A run told which input files changed (``RepoSnapshot.changed``) judges
only the templates they touch (``core.incremental.change_scope``) and those that cannot stand unjudged;
the other templates stand as the state index records them, their claims too (matching would make the
same claim again: nothing it reads of them changed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.core.defaults import permanent_id
from gitops_karmada.core.detector import ClaimState, PolicyMatch, PolicyRef, PriorClaim, match_policy, ref_of
from gitops_karmada.core.incremental.change_scope import touched_templates
from gitops_karmada.core.inputs.external_sources import source_plan
from gitops_karmada.core.lint import cross_object_warnings
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.model.wellknown import CLAIMED_BY_LABEL
from gitops_karmada.reconcile.claims import dependency_requirements

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence

    from gitops_karmada.core.incremental.state_index import IndexEntry
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.keys import ObjectKey
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.reconcile.prepare import Prepared
    from gitops_karmada.reconcile.request import ReconcileRequest

Identity = tuple[str, str, str, str]


@dataclass(frozen=True, slots=True)
class Scope:
    templates: tuple[Manifest, ...]
    """The templates the run keeps in its result: all of them, or those a focused or partial run judges."""
    matches: Mapping[Identity, PolicyMatch]
    requirers: Mapping[Identity, Sequence[Identity]]
    """Template → the templates requiring it (``propagateDeps``)."""
    judged: frozenset[Identity] | None = None
    """The templates to judge; None: every template."""
    standing: Mapping[Identity, IndexEntry] = field(default_factory=dict)
    """The index entries the templates outside ``judged`` stand on (a run told what changed)."""
    by_change: bool = False
    """The run judges only what a change touched (``RepoSnapshot.changed`` was usable)."""
    keeps_part: bool = False
    """The run keeps only the judged templates (``focus``, or ``partial`` with ``by_change``)."""
    quota_namespaces: frozenset[str] = frozenset()
    diagnostics: tuple[Diagnostic, ...] = ()


_SELECTING = frozenset({ClaimState.FRESH, ClaimState.STICKY, ClaimState.PREEMPTED, ClaimState.WAITING})
"""Claims whose policy selects the template (a sticky one is released when its policy stops selecting)."""


def scope(prepared: Prepared, request: ReconcileRequest) -> Scope:
    ctx, mode = prepared.ctx, request.mode
    templates = prepared.templates
    propagating = ctx.gate(FeatureGate.PROPAGATE_DEPS) and any(
        p.spec.propagate_deps for p in prepared.policies.by_ref.values()
    )
    matches: dict[Identity, PolicyMatch] = {}
    requirers: Mapping[Identity, Sequence[Identity]] = {}
    diagnostics: list[Diagnostic] = []
    # the workload-affinity filters read every group member's placement, judged or not (``reconcile.order``)
    grouping = ctx.gate(FeatureGate.WORKLOAD_AFFINITY)
    if grouping or propagating:
        matches = {t.key.identity: matched(prepared, t) for t in templates}
        request.ports.checkpoint()
    if propagating:
        requirers, dependency_diagnostics = dependency_requirements(ctx, templates, matches)
        diagnostics.extend(dependency_diagnostics)
    touched = _touched(prepared, request) if mode.focus is None else None
    quota_namespaces = frozenset(q.namespace for q in ctx.inputs.quotas)
    judged: set[Identity] | None = None
    if mode.focus is not None:
        judged = _focus_scope(templates, requirers, mode.focus)
    elif touched is not None:
        seeds = touched | set(requirers) | _not_standing(prepared, request, quota_namespaces)
        judged = _requirers_closure(requirers, seeds)
    index = prepared.previous.index
    keeps_part = mode.focus is not None or (touched is not None and mode.partial)
    if judged is not None and keeps_part:
        templates = tuple(t for t in templates if t.key.identity in judged)
    if not matches:
        # a template the change does not touch keeps the claim its index entry records, unmatched
        standing = index.entries if touched is not None and index is not None else {}
        by_claim: dict[tuple[str, str, str, str], PolicyMatch | None] = {}
        for template in templates:
            ident = template.key.identity
            entry = standing.get(ident) if judged is not None and ident not in judged else None
            kept = _standing_match(prepared, template, entry, by_claim)
            matches[ident] = kept if kept is not None else matched(prepared, template)
        request.ports.checkpoint()
    if mode.lint and not keeps_part:
        # each policy once: 20,000 standing matches share a few thousand policies
        selecting = {
            id(m.policy): m.policy for m in matches.values() if m.policy is not None and m.state in _SELECTING
        }
        claiming = {ref_of(policy) for policy in selecting.values()}
        diagnostics.extend(
            cross_object_warnings(ctx.inputs, prepared.policies, request.caches.memo, claiming)
        )
    return Scope(
        templates=templates,
        matches=matches,
        requirers=requirers,
        judged=frozenset(judged) if judged is not None else None,
        standing=index.entries if touched is not None and index is not None else {},
        by_change=touched is not None,
        keeps_part=keeps_part,
        quota_namespaces=quota_namespaces,
        diagnostics=tuple(diagnostics),
    )


def matched(prepared: Prepared, template: Manifest) -> PolicyMatch:
    """The policy that claims ``template`` (recalled while the policies matching reads for it are the same
    objects: another policy's change keeps it)."""
    prior = prepared.previous.prior(template.key.identity)
    preemption = prepared.ctx.gate(FeatureGate.POLICY_PREEMPTION)

    def compute() -> PolicyMatch:
        return match_policy(
            template,
            prepared.policies,
            prior,
            preemption_enabled=preemption,
            existing_override_policies=prepared.override_names,
        )

    if prior is not None and not isinstance(prior, PriorClaim):
        return compute()  # a record read in full: its claim is all matching reads of it
    claim = prior.claim if prior is not None else None
    read = prepared.policies.read_for(template, claim[0] if claim is not None else None)
    return prepared.memo.recall("match", read, (prior, preemption, prepared.override_names), compute)


def _standing_match(
    prepared: Prepared,
    template: Manifest,
    entry: IndexEntry | None,
    by_claim: dict[tuple[str, str, str, str], PolicyMatch | None],
) -> PolicyMatch | None:
    """The match of a template outside a change's scope: the claim its index entry records, which matching
    would make again (the template and every policy matching reads for it are unchanged, or the change
    would touch it). None where the entry says less than matching would: no claim, its policy gone or
    renewed, dependentOverrides to wait on, another controller's claim. ``by_claim``: each claim's match,
    made once for all the templates that record it."""
    if entry is None or entry.claim is None or template.labels.get(CLAIMED_BY_LABEL):
        return None
    if entry.claim not in by_claim:
        kind, namespace, name, claimed_id = entry.claim
        policy = prepared.policies.by_ref.get(PolicyRef(kind, namespace, name))
        by_claim[entry.claim] = (
            None
            if policy is None or permanent_id(policy) != claimed_id or policy.spec.dependent_overrides
            else PolicyMatch(ClaimState.STICKY, policy, "claimed by this policy in an earlier run")
        )
    return by_claim[entry.claim]


def _touched(prepared: Prepared, request: ReconcileRequest) -> frozenset[Identity] | None:
    """The templates ``RepoSnapshot.changed`` touches (``core.incremental.change_scope``), when the run may
    judge only them: the index is trusted and was written under the same run-wide fingerprint part, and no
    template is rescheduled or taken away. The templates the failover controllers read (they act as time
    passes) are judged too."""
    snapshot, index = request.snapshot, prepared.previous.index
    if (
        snapshot.changed is None
        or index is None
        or index.run != prepared.fingerprints.run_digest
        or request.mode.reschedule
        or prepared.had - prepared.current
    ):
        return None
    sources = source_plan(snapshot.decoded if snapshot.decoded is not None else snapshot.input_files)
    touched = touched_templates(snapshot.changed, prepared.ctx.inputs, index, sources)
    if touched is None or prepared.failover is None:
        return touched
    return touched | prepared.failover.seen


def _not_standing(
    prepared: Prepared, request: ReconcileRequest, quota_namespaces: Collection[str]
) -> set[Identity]:
    """The templates a change's scope must hold whatever changed: those the index has no entry for (it knows
    nothing of an unmatched one), those of a namespace with a quota (the quota fold admits a namespace's
    changes in order, and its status counts every binding there), those other templates required when the
    index was written (a dependency follows its requirers), and those whose recorded output no longer
    stands (a record or file edited since, a held-back result)."""
    previous = prepared.previous
    index = previous.index
    assert index is not None
    found: set[Identity] = set()
    for template in prepared.templates:
        ident = template.key.identity
        entry = index.entries.get(ident)
        if (
            entry is None
            or entry.required
            or ident[2] in quota_namespaces
            or previous.reusable(ident, entry.fingerprint, request.snapshot.output_blobs) is None
        ):
            found.add(ident)
    return found


def _requirers_closure(
    requirers: Mapping[Identity, Sequence[Identity]], seeds: Collection[Identity]
) -> set[Identity]:
    """``seeds`` and every template requiring one of them (``propagateDeps``: a dependency's outcome is made
    from its requirers' bindings), until nothing is added."""
    found: set[Identity] = set()
    pending = list(seeds)
    while pending:
        identity = pending.pop()
        if identity not in found:
            found.add(identity)
            pending.extend(requirers.get(identity, ()))
    return found


def _focus_scope(
    templates: Sequence[Manifest],
    requirers: Mapping[Identity, Sequence[Identity]],
    focus: Callable[[ObjectKey], bool],
) -> set[Identity]:
    """The templates whose outcomes the focused ones depend on: every template of a namespace in scope (the
    quota fold admits a namespace's changes in order) and every template requiring one in scope
    (``propagateDeps``), until nothing is added."""
    by_namespace: dict[str, list[Identity]] = {}
    for template in templates:
        by_namespace.setdefault(template.key.namespace, []).append(template.key.identity)
    found: set[Identity] = set()
    pending = [t.key.identity for t in templates if focus(t.key)]
    while pending:
        identity = pending.pop()
        if identity in found:
            continue
        found.add(identity)
        pending.extend(by_namespace.pop(identity[2], ()))
        pending.extend(requirers.get(identity, ()))
    return found
