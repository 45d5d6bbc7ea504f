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
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.reconcile.admit import admit
from gitops_karmada.reconcile.claims import claim
from gitops_karmada.reconcile.outcome import TemplateOutcome
from gitops_karmada.reconcile.placing import interpreted_by, place
from gitops_karmada.reconcile.record import record
from gitops_karmada.reconcile.render import render_targets
from gitops_karmada.reconcile.stage import stage

if TYPE_CHECKING:
    from gitops_karmada.core.detector import PolicyMatch
    from gitops_karmada.core.incremental.state_index import IndexEntry
    from gitops_karmada.core.quota import QuotaLedger
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.reconcile.claims import Requirement
    from gitops_karmada.reconcile.context import RunContext
    from gitops_karmada.reconcile.request import Ports


def process(
    ctx: RunContext,
    ledger: QuotaLedger,
    template: Manifest,
    match: PolicyMatch,
    previous: ResourceBinding | None,
    required: tuple[Requirement, ...],
    fingerprint: str,
) -> tuple[QuotaLedger, TemplateOutcome]:
    """claim → place → admit → render targets → stage → record, for one template."""
    claimed = claim(ctx, template, match, previous, required, fingerprint)
    if isinstance(claimed, TemplateOutcome):
        return ledger, replace(claimed, fingerprint=fingerprint)
    placed = place(ctx, claimed)
    if isinstance(placed, TemplateOutcome):
        return ledger, replace(placed, fingerprint=fingerprint)
    ledger, admitted = admit(ctx, ledger, placed)
    if isinstance(admitted, TemplateOutcome):
        return ledger, replace(admitted, fingerprint=fingerprint)
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
    return ledger, TemplateOutcome(
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
        rollout=staged.decision,
    )


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
        paths={cluster: layout.manifest_path(cluster, key) for cluster in entry.rendered},
        diagnostics=entry.warnings,
        fingerprint=fingerprint,
        reused=True,
    )
