"""Place: interpret a claimed template and schedule it when Karmada would (the scheduler's half of the run).

Returns a ``Placed``: replicas, requirements or components, the target clusters, the Scheduled condition
and why scheduling ran (or why the previous result was kept: an orphaned binding, a Lazy policy holding
its change, a Divided workload whose placement and replicas did not change). Pure.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gitops_karmada.core.binding import (
    SCHEDULE_SUCCESS_MESSAGE,
    TEMPLATE_HASH_ANNOTATION,
    same_clusters,
    scheduled_condition,
)
from gitops_karmada.core.codecs.digest import template_hash
from gitops_karmada.core.defaults import DEFAULT_SCHEDULER_NAME
from gitops_karmada.core.detector import ClaimState
from gitops_karmada.core.interpreter import Operation
from gitops_karmada.core.interpreter.errors import interpret_problem
from gitops_karmada.core.scheduler import ScheduleRequest, ScheduleResult, schedule
from gitops_karmada.core.scheduler.triggers import scheduling_reason
from gitops_karmada.core.scheduler.workload_affinity import affinity_groups
from gitops_karmada.model.bindings import TargetCluster
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.model.diagnostics import Diagnostic, error, warning
from gitops_karmada.model.errors import InterpretError
from gitops_karmada.model.policies import ActivationPreference
from gitops_karmada.reconcile.claims import Claim, keep_previous
from gitops_karmada.reconcile.context import tie_break_uid
from gitops_karmada.reconcile.placed import Placed

if TYPE_CHECKING:
    from gitops_karmada.model.bindings import (
        Component,
        ReplicaRequirements,
        ResourceBinding,
    )
    from gitops_karmada.model.clusters import Condition
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.model.policies import Placement as PolicyPlacement
    from gitops_karmada.reconcile.context import RunContext
    from gitops_karmada.reconcile.earlier import Earlier
    from gitops_karmada.reconcile.outcome import TemplateOutcome


def place(ctx: RunContext, claim: Claim, earlier: Earlier) -> Placed | TemplateOutcome:
    """Interpret and schedule ``claim`` after what ``earlier`` templates of the run's order were given; a
    template that cannot be interpreted keeps its previous result."""
    template, match, prev = claim.template, claim.match, claim.previous
    try:
        replicas, requirements, components = interpret(ctx, template)
    except InterpretError as err:
        problem = interpret_problem(err, template, ctx.inputs.sources, "cannot interpret")
        return keep_previous(ctx, template, match, prev, (problem,))

    # a Lazy policy's changes wait for the template to change
    current_hash = template_hash(template.body)
    lazy_hold = (
        match.policy is not None
        and match.policy.spec.activation_preference is ActivationPreference.LAZY
        and prev is not None
        and prev.metadata.annotations.get(TEMPLATE_HASH_ANNOTATION) == current_hash
    )
    observed = prev.status.scheduler_observed_affinity_name if prev is not None else ""
    base = Placed(
        claim=claim,
        replicas=replicas,
        requirements=requirements,
        components=components,
        targets=(),
        condition=None,
        changed=False,
        observed_affinity=observed,
        template_hash=current_hash,
        lazy_hold=lazy_hold,
        groups=affinity_groups(
            template.body,
            match.policy.spec.placement,
            enabled=ctx.gate(FeatureGate.WORKLOAD_AFFINITY),
            namespaced=bool(template.key.namespace),
        )
        if match.policy is not None
        else None,
    )
    if claim.attached:
        return base
    if match.state is ClaimState.NAMESPACE_SYNC:
        targets = tuple(TargetCluster(name=name) for name in sorted(ctx.clusters))
        return replace(
            base,
            targets=targets,
            condition=scheduled_condition(True, "Success", SCHEDULE_SUCCESS_MESSAGE),
            changed=prev is None or not same_clusters(prev.spec.clusters, targets),
        )
    if match.state is ClaimState.ORPHANED or lazy_hold:
        assert prev is not None
        return replace(base, targets=prev.spec.clusters, condition=_kept_condition(prev))
    return _by_policy(ctx, base, earlier)


def _by_policy(ctx: RunContext, base: Placed, earlier: Earlier) -> Placed:
    """Schedule as the claiming policy says, when Karmada would (``core.scheduler.triggers``)."""
    claim = base.claim
    template, match, prev = claim.template, claim.match, claim.previous
    key = template.key
    replicas, components = base.replicas, base.components
    observed = base.observed_affinity
    assert match.policy is not None
    scheduler = match.policy.spec.scheduler_name or DEFAULT_SCHEDULER_NAME
    if scheduler != DEFAULT_SCHEDULER_NAME:
        return _other_scheduler(base, scheduler, prev, template)
    placement = match.policy.spec.placement
    rescheduling = key.identity in ctx.reschedule
    reason = scheduling_reason(
        prev,
        placement,
        replicas,
        components,
        ctx.clusters.keys(),
        reschedule=rescheduling,
        enqueued=claim.inputs_changed,
    )
    if reason is None:
        assert prev is not None
        # re-evaluated only to be explained: the kept result stays the binding's
        explained = (
            _schedule(ctx, base, placement, prev, observed, rescheduling, earlier) if ctx.explain else None
        )
        return replace(base, targets=prev.spec.clusters, condition=_kept_condition(prev), schedule=explained)
    result = _schedule(ctx, base, placement, prev, observed, rescheduling, earlier)
    diagnostics: tuple[Diagnostic, ...] = ()
    if not result.success:
        message = f"cannot be scheduled: {result.condition_message}"
        diagnostics = (error(message, template.source, subject=str(key)),)
    return replace(
        base,
        targets=result.clusters,
        condition=scheduled_condition(result.success, result.condition_reason, result.condition_message),
        changed=prev is None or not same_clusters(prev.spec.clusters, result.clusters),
        observed_affinity=result.observed_affinity_name,
        schedule=result,
        reason=reason,
        diagnostics=diagnostics,
    )


def _other_scheduler(
    base: Placed, scheduler: str, prev: ResourceBinding | None, template: Manifest
) -> Placed:
    """Karmada's scheduler leaves a binding for another scheduler alone: no result, or the one it had."""
    kept = prev.spec.clusters if prev is not None else ()
    outcome = "its previous clusters are kept" if kept else "it stays unscheduled and nothing is rendered"
    message = (
        f"schedulerName is {scheduler!r}: only Karmada's {DEFAULT_SCHEDULER_NAME} runs here and it leaves "
        f"this binding to that scheduler; {outcome}"
    )
    return replace(
        base,
        targets=kept,
        condition=prev.condition("Scheduled") if prev is not None else None,
        diagnostics=(warning(message, template.source, subject=str(template.key)),),
    )


def _kept_condition(prev: ResourceBinding) -> Condition:
    return prev.condition("Scheduled") or scheduled_condition(True, "Success", SCHEDULE_SUCCESS_MESSAGE)


def interpret(
    ctx: RunContext, template: Manifest
) -> tuple[int, ReplicaRequirements | None, tuple[Component, ...]]:
    """Replicas and requirements, or components (multi-template workloads behind their feature gate)."""
    key = template.key
    interpreter = ctx.interpreter
    if ctx.gate(FeatureGate.MULTIPLE_POD_TEMPLATES_SCHEDULING) and interpreter.hook_enabled(
        key.api_version, key.kind, Operation.INTERPRET_COMPONENT
    ):
        return 0, None, interpreter.get_components(template.body)
    if interpreter.hook_enabled(key.api_version, key.kind, Operation.INTERPRET_REPLICA):
        replicas, requirements = interpreter.get_replicas(template.body)
        if replicas < 0:
            # the API server would refuse the object; never render a negative count into a manifest
            raise InterpretError(f"replicas must be greater than or equal to 0, got {replicas}")
        if (
            requirements is not None
            and not requirements.namespace
            and ctx.gate(FeatureGate.RESOURCE_QUOTA_ESTIMATE)
        ):
            # the detector, not the interpreter, records the namespace (applyReplicaInterpretation)
            requirements = requirements.model_copy(update={"namespace": key.namespace})
        return replicas, requirements, ()
    return 0, None, ()


def interpreted_by(ctx: RunContext, template: Manifest, components: tuple[Component, ...]) -> str:
    operation = Operation.INTERPRET_COMPONENT if components else Operation.INTERPRET_REPLICA
    return ctx.interpreter.answered_by(template.key.api_version, template.key.kind, operation) or ""


def _schedule(
    ctx: RunContext,
    base: Placed,
    placement: PolicyPlacement,
    prev: ResourceBinding | None,
    observed: str,
    reschedule: bool,
    earlier: Earlier,
) -> ScheduleResult:
    template = base.claim.template
    assumed = earlier.assumed(ctx.clusters.keys())
    accurate = ctx.accurate
    return schedule(
        ScheduleRequest(
            key=template.key,
            tie_break_uid=tie_break_uid(template),
            placement=placement,
            replicas=base.replicas,
            replica_requirements=base.requirements,
            components=base.components,
            previous_clusters=prev.spec.clusters if prev is not None else (),
            observed_affinity_name=observed,
            reschedule=reschedule,
            evicted_clusters=frozenset(
                task.from_cluster for task in (prev.spec.graceful_eviction_tasks if prev else ())
            ),
            assumed=assumed,
            peers=earlier.peers(template.key, base.groups),
        ),
        ctx.cluster_index,
        gates={gate: ctx.gate(gate) for gate in FeatureGate},
        estimators=(accurate.for_namespace(template.key.namespace).with_assumed(assumed),)
        if accurate is not None
        else (),
        enable_empty_workload_propagation=ctx.config.enable_empty_workload_propagation,
        version=ctx.config.karmada_version,
    )
