"""One template's chain, in phases that meet where Karmada's controllers meet, each returning a frozen value:

    claim (``reconcile.claims``) → place (``reconcile.placing``) → admit (``reconcile.admit``, a fold over
    the FederatedResourceQuota ledger) → render targets (``reconcile.render``, ensureWork) → stage
    (``reconcile.stage``, a RolloutPolicy's waves) → record (``reconcile.record``)

and the template's ``TemplateOutcome`` owns its files. A reused template's outcome is made from its index
entry alone.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gitops_karmada.core.lint import untolerated_no_execute
from gitops_karmada.core.scheduler.filters import binding_tiers
from gitops_karmada.core.selectors import ZoneMatching
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.model.diagnostics import error
from gitops_karmada.reconcile.admit import admit
from gitops_karmada.reconcile.claims import claim, keep_previous
from gitops_karmada.reconcile.outcome import TemplateOutcome
from gitops_karmada.reconcile.placing import interpreted_by, place
from gitops_karmada.reconcile.record import record
from gitops_karmada.reconcile.render import render_targets
from gitops_karmada.reconcile.stage import stage

if TYPE_CHECKING:
    from gitops_karmada.core.detector import PolicyMatch
    from gitops_karmada.core.incremental.state_index import IndexEntry
    from gitops_karmada.core.quota import QuotaLedger
    from gitops_karmada.core.scheduler.priority import ResolvedPriority
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.reconcile.claims import Requirement
    from gitops_karmada.reconcile.context import RunContext
    from gitops_karmada.reconcile.earlier import Earlier
    from gitops_karmada.reconcile.placed import Placed
    from gitops_karmada.reconcile.request import Ports


def process(
    ctx: RunContext,
    ledger: QuotaLedger,
    template: Manifest,
    match: PolicyMatch,
    previous: ResourceBinding | None,
    required: tuple[Requirement, ...],
    fingerprint: str,
    earlier: Earlier,
    priority: ResolvedPriority,
) -> tuple[QuotaLedger, Earlier, TemplateOutcome]:
    """claim → place → admit → render targets → stage → record, for one template; ``earlier``: what the
    templates before it in the run's order (``reconcile.order``) left, returned with this one's decision
    added."""
    claimed = claim(ctx, template, match, previous, required, fingerprint)
    if isinstance(claimed, TemplateOutcome):
        return ledger, earlier, replace(claimed, fingerprint=fingerprint)
    if priority.problem and not claimed.attached:
        # Karmada's detector cannot build the binding: the template is not propagated (retried)
        message = f"cannot build its binding: {priority.problem}"
        problem = error(message, template.source, subject=str(template.key))
        kept = keep_previous(ctx, template, match, previous, (problem,))
        return ledger, earlier, replace(kept, fingerprint=fingerprint)
    claimed = replace(claimed, priority=priority.priority)
    placed = place(ctx, claimed, earlier)
    if isinstance(placed, TemplateOutcome):
        return ledger, earlier, replace(placed, fingerprint=fingerprint)
    ledger, admitted = admit(ctx, ledger, placed)
    if isinstance(admitted, TemplateOutcome):
        return ledger, earlier, replace(admitted, fingerprint=fingerprint)
    earlier = earlier.after(admitted, previous.spec.clusters if previous is not None else ())
    staged = stage(ctx, admitted, render_targets(ctx, admitted))
    targets = staged.targets
    binding, observed_diagnostics = record(ctx, admitted, targets.rendered, fingerprint, staged.state)
    lint = untolerated_no_execute(
        [binding],
        ctx.clusters,
        {template.key.identity: template.source},
        failover=ctx.gate(FeatureGate.FAILOVER)
        and ctx.config.failover.enable_taint_manager
        and ctx.config.failover.enable_no_execute_taint_eviction,
    )
    return (
        ledger,
        earlier,
        TemplateOutcome(
            key=template.key,
            match=admitted.claim.match,
            binding=binding,
            schedule=admitted.schedule,
            scheduling_reason=admitted.reason,
            overrides=targets.overrides,
            paths=targets.paths,
            diagnostics=(*admitted.diagnostics, *targets.diagnostics, *observed_diagnostics, *lint),
            lazy_hold=admitted.lazy_hold,
            interpreted_by=interpreted_by(ctx, template, admitted.components),
            files=targets.files,
            keep=targets.keep,
            fingerprint=fingerprint,
            tiers=_tiers(ctx, admitted),
            rollout=staged.decision,
        ),
    )


def _tiers(ctx: RunContext, placed: Placed) -> dict[str, str]:
    """The overflow tier of each target cluster (empty without overflow affinities)."""
    policy = placed.claim.match.policy
    if policy is None or not any(t.overflow_affinities for t in policy.spec.placement.cluster_affinities):
        return {}
    workload = placed.replicas > 0 or placed.requirements is not None or bool(placed.components)
    targets = [ctx.clusters[t.name] for t in placed.targets if t.name in ctx.clusters]
    zones = ZoneMatching.of(ctx.config.karmada_version)
    return binding_tiers(policy.spec.placement, placed.observed_affinity, workload, targets, zones)


def stored(ports: Ports, outcome: TemplateOutcome) -> TemplateOutcome:
    """``outcome`` with its rendered files handed to ``Ports.store`` when it takes them: their blob ids
    kept, their contents dropped."""
    if ports.store is None or not outcome.files:
        return outcome
    ids = ports.store(outcome.files)
    if ids is None:
        return outcome
    return replace(outcome, files={}, stored={**outcome.stored, **ids})


def reused(
    ctx: RunContext, template: Manifest, match: PolicyMatch, entry: IndexEntry, fingerprint: str
) -> TemplateOutcome:
    key, layout = template.key, ctx.layout
    return TemplateOutcome(
        key=key,
        match=match,
        paths=layout.manifest_paths(entry.rendered, key),
        diagnostics=entry.warnings,
        fingerprint=fingerprint,
        reused=True,
    )
