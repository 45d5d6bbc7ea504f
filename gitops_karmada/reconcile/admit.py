"""Admit: what Karmada's binding webhook does to a placement when FederatedResourceQuotas are enforced.

Admission is an ordered fold: each binding change is judged against the quota usage left by the changes
admitted before it, in processing order, so ``admit`` takes the running ``QuotaLedger`` and returns the next
one with the verdict. A refused change is not applied: the binding keeps its previous placement and files,
with a Scheduled condition saying why. Pure.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gitops_karmada.core.binding import carry_condition, scheduled_condition
from gitops_karmada.model.diagnostics import error
from gitops_karmada.reconcile.claims import keep_previous
from gitops_karmada.reconcile.record import BindingInputs, build_binding

if TYPE_CHECKING:
    from gitops_karmada.core.quota import QuotaLedger
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.clusters import Condition
    from gitops_karmada.reconcile.context import RunContext
    from gitops_karmada.reconcile.outcome import TemplateOutcome
    from gitops_karmada.reconcile.placed import Placed


def admit(
    ctx: RunContext, ledger: QuotaLedger, placed: Placed
) -> tuple[QuotaLedger, Placed | TemplateOutcome]:
    """The next ledger, and the placement (possibly emptied, for a new binding) or the held outcome."""
    claim = placed.claim
    if claim.attached or placed.condition is None:
        return ledger, placed
    template, prev = claim.template, claim.previous
    if not ledger.enforcement or not ledger.in_namespace(template.key.namespace):
        # no quota can refuse it: the webhook would skip it (gate off, or no FederatedResourceQuota in its
        # namespace), so no provisional binding is built (a first run places thousands)
        return ledger, placed
    provisional = build_binding(
        BindingInputs(
            template=template,
            match=claim.match,
            replicas=placed.replicas,
            replica_requirements=placed.requirements,
            components=placed.components,
            clusters=placed.targets,
            scheduled=placed.condition,
            hold_previous_spec=placed.lazy_hold,
        ),
        prev,
        ctx.now,
    )
    ledger, verdict = ledger.admit_binding(prev, provisional)
    if verdict.allowed:
        return ledger, placed
    problem = error(f"{verdict.reason}: {verdict.message}", template.source, subject=str(template.key))
    exceeded = scheduled_condition(False, verdict.reason, verdict.message)
    diagnostics = (*placed.diagnostics, problem)
    # The change is not applied, whichever of Karmada's two writes was refused: the binding and its
    # manifests stay as they were. (Karmada keeps a refused placement's new demand, so a Duplicated workload
    # would still ship its new replica count; this tool ships none of it.)
    if prev is not None:
        kept = keep_previous(ctx, template, claim.match, prev, diagnostics)
        return ledger, replace(kept, binding=held_binding(prev, exceeded, ctx.now))
    return ledger, replace(placed, targets=(), condition=exceeded, changed=False, diagnostics=diagnostics)


def held_binding(binding: ResourceBinding, condition: Condition, now: str) -> ResourceBinding:
    """``binding`` with its Scheduled condition replaced (a quota denial that keeps everything else)."""
    kept = [c for c in binding.status.conditions if c.type != condition.type]
    carried = carry_condition(condition, binding, now)
    status = binding.status.model_copy(update={"conditions": (carried, *kept)})
    return binding.model_copy(update={"status": status})
