"""Record: the ResourceBinding record of a template, from its match, interpretation, schedule and render.

The record carries what Karmada's binding carries (claim metadata, resource reference, replicas and
requirements or components, the defaulted placement, policy fields, the scheduling result, conditions)
plus which clusters' folders really received the manifest (the ``gitops-karmada.io/rendered-clusters``
annotation, with a ``Rendered`` condition saying why a target got none): a later run only ever deletes or
rewrites files its bindings say it wrote, which is how hand-written files in a cluster folder survive.

It says only what is known. Writing a file into a cluster folder is not applying it to the cluster:
``status.aggregatedStatus`` and the ``FullyApplied`` condition come only from status the member clusters
reported (``core.observed``, the status branch), and stay absent without it (records written before
the rendered-clusters annotation kept ownership in ``aggregatedStatus[].applied``; they are still read
that way only when the annotation is missing).

Times are never read from a clock: ``now`` is the source commit's time, and a condition keeps its
previous ``lastTransitionTime`` while its status does not change, so identical inputs give identical
records.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.binding import (
    FINGERPRINT_ANNOTATION,
    RENDER_NOTES_ANNOTATION,
    RENDERED_CLUSTERS_ANNOTATION,
    SOURCE_ANNOTATION,
    TEMPLATE_HASH_ANNOTATION,
    UNHEALTHY_SINCE_ANNOTATION,
    binding_permanent_id,
    carry_condition,
    rendered_condition,
)
from gitops_karmada.core.layout import binding_name
from gitops_karmada.core.observed.fold import aggregated_status, fully_applied_condition, template_status
from gitops_karmada.core.rollout.state import ROLLOUT_ANNOTATION
from gitops_karmada.model import wellknown
from gitops_karmada.model.base import ObjectMeta
from gitops_karmada.model.bindings import (
    AggregatedStatusItem,
    BindingSchedulePriority,
    BindingSnapshot,
    Component,
    ObjectReference,
    ReplicaRequirements,
    ResourceBinding,
    ResourceBindingSpec,
    ResourceBindingStatus,
    TargetCluster,
    WorkloadAffinityGroups,
)
from gitops_karmada.model.policies import ConflictResolution
from gitops_karmada.reconcile.claims import attached_conflict_resolution, attached_preserve

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.core.detector import PolicyMatch
    from gitops_karmada.core.rollout.state import RolloutState
    from gitops_karmada.model.clusters import Condition
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.reconcile.claims import Claim
    from gitops_karmada.reconcile.context import RunContext
    from gitops_karmada.reconcile.placed import Placed


@dataclass(frozen=True, slots=True, kw_only=True)
class BindingInputs:
    """What the pipeline decided for one template, to be recorded."""

    template: Manifest
    match: PolicyMatch
    replicas: int
    replica_requirements: ReplicaRequirements | None
    components: tuple[Component, ...]
    clusters: tuple[TargetCluster, ...]
    scheduled: Condition | None
    """The Scheduled condition; None for an attached (dependency) binding, which is never scheduled."""
    observed_affinity_name: str = ""
    rendered: dict[str, tuple[bool, str]] | None = None
    """Cluster → (its folder holds our manifest, a message: why not, or why it was left as it was)."""
    template_hash: str = ""
    hold_previous_spec: bool = False
    """Keep the previous binding's policy fields (a Lazy policy changed but the template did not)."""
    required_by: tuple[BindingSnapshot, ...] = ()
    """Bindings whose workloads depend on this template (propagateDeps), with their clusters."""
    attached_conflict_resolution: ConflictResolution | None = None
    attached_preserve: bool | None = None
    """An attached binding's effective policy fields, derived from the bindings that require it."""
    reschedule_triggered_at: str | None = None
    rollout: RolloutState | None = None
    """Where the template's rollout stands (a RolloutPolicy governs it)."""
    scheduled_changed: bool = True
    """Whether the scheduling result differs from the previous run (for ``lastScheduledTime``)."""
    fingerprint: str = ""
    """The fingerprint of the inputs this binding was computed from (``core.incremental.fingerprint``)."""
    aggregated_status: tuple[AggregatedStatusItem, ...] = ()
    """What the member clusters reported of the object (``core.observed``); empty when nothing observed."""
    template_status: dict[str, Any] | None = None
    """Those reports folded into the template's status (AggregateStatus); None when nothing observed."""
    fully_applied: Condition | None = None
    schedule_priority: int | None = None
    """``spec.schedulePriority.priority`` (gate PriorityBasedScheduling; ``core.scheduler.priority``)."""
    workload_affinity_groups: WorkloadAffinityGroups | None = None


def build_binding(inputs: BindingInputs, previous: ResourceBinding | None, now: str) -> ResourceBinding:
    """The binding record for one template (see the module docstring)."""
    key = inputs.template.key
    return ResourceBinding(
        api_version=wellknown.WORK_API_VERSION,
        kind="ResourceBinding" if key.namespace else "ClusterResourceBinding",
        metadata=_metadata(inputs, previous),
        spec=ResourceBindingSpec(**_spec_fields(inputs, previous)),
        status=_status(inputs, previous, now),
    )


def _metadata(inputs: BindingInputs, previous: ResourceBinding | None) -> ObjectMeta:
    """The record's name, its claim labels and annotations, and where its manifests were written."""
    template, match = inputs.template, inputs.match
    key = template.key
    policy = match.policy
    labels: dict[str, str] = {}
    annotations = {SOURCE_ANNOTATION: str(template.source)}
    if inputs.template_hash:
        annotations[TEMPLATE_HASH_ANNOTATION] = inputs.template_hash
    if inputs.fingerprint:
        annotations[FINGERPRINT_ANNOTATION] = inputs.fingerprint
    carried = previous.metadata.annotations.get(UNHEALTHY_SINCE_ANNOTATION) if previous is not None else None
    if carried:
        annotations[UNHEALTHY_SINCE_ANNOTATION] = carried
    if inputs.rollout is not None:
        annotations[ROLLOUT_ANNOTATION] = inputs.rollout.to_annotation()
    if policy is not None:
        if policy.is_cluster_scoped:
            labels[wellknown.CPP_PERMANENT_ID_LABEL] = match.permanent_id
            annotations[wellknown.CPP_NAME_ANNOTATION] = policy.name
        else:
            labels[wellknown.PP_PERMANENT_ID_LABEL] = match.permanent_id
            annotations[wellknown.PP_NAME_ANNOTATION] = policy.name
            annotations[wellknown.PP_NAMESPACE_ANNOTATION] = policy.namespace
    id_label = (
        wellknown.RESOURCE_BINDING_PERMANENT_ID_LABEL
        if key.namespace
        else wellknown.CLUSTER_RESOURCE_BINDING_PERMANENT_ID_LABEL
    )
    labels[id_label] = binding_permanent_id(template)
    if inputs.rendered is not None:
        annotations[RENDERED_CLUSTERS_ANNOTATION] = ",".join(
            name for name, (ok, _) in sorted(inputs.rendered.items()) if ok
        )
        notes = {name: message for name, (_, message) in sorted(inputs.rendered.items()) if message}
        if notes:
            annotations[RENDER_NOTES_ANNOTATION] = json.dumps(
                notes, separators=(",", ":"), ensure_ascii=False
            )
    return ObjectMeta(
        name=binding_name(key),
        **({"namespace": key.namespace} if key.namespace else {}),
        labels=dict(sorted(labels.items())),
        annotations=dict(sorted(annotations.items())),
    )


_POLICY_FIELDS = (
    "placement",
    "scheduler_name",
    "propagate_deps",
    "failover",
    "conflict_resolution",
    "suspension",
    "preserve_resources_on_deletion",
    "schedule_priority",
    "workload_affinity_groups",
)
"""The binding's fields that come from its policy."""


def _spec_fields(inputs: BindingInputs, previous: ResourceBinding | None) -> dict[str, object]:
    """The resource, its replicas or components, the clusters, and the policy's fields."""
    template, policy = inputs.template, inputs.match.policy
    key = template.key
    spec_fields: dict[str, object] = {
        "resource": ObjectReference(
            api_version=key.api_version,
            kind=key.kind,
            **({"namespace": key.namespace} if key.namespace else {}),
            name=key.name,
            **({"uid": template.uid} if template.uid else {}),
        )
    }
    if inputs.components:
        spec_fields["components"] = inputs.components
    else:
        if inputs.replicas:
            spec_fields["replicas"] = inputs.replicas
        if inputs.replica_requirements is not None:
            spec_fields["replica_requirements"] = inputs.replica_requirements
    # a canonical order (by name): the scheduler's order of one run depends on the previous result
    # (ClusterLocality scores), so it would change on the next run with identical inputs
    spec_fields["clusters"] = tuple(sorted(inputs.clusters, key=lambda c: c.name))
    if policy is not None and not inputs.hold_previous_spec:
        pspec = policy.spec
        spec_fields["placement"] = pspec.placement
        spec_fields["scheduler_name"] = pspec.scheduler_name
        if pspec.propagate_deps:
            spec_fields["propagate_deps"] = True
        if pspec.failover is not None:
            spec_fields["failover"] = pspec.failover
        spec_fields["conflict_resolution"] = pspec.conflict_resolution or ConflictResolution.ABORT
        if pspec.suspension is not None:
            spec_fields["suspension"] = pspec.suspension
        if pspec.preserve_resources_on_deletion is not None:
            spec_fields["preserve_resources_on_deletion"] = pspec.preserve_resources_on_deletion
        if inputs.schedule_priority is not None:
            spec_fields["schedule_priority"] = BindingSchedulePriority(priority=inputs.schedule_priority)
        if inputs.workload_affinity_groups is not None:
            spec_fields["workload_affinity_groups"] = inputs.workload_affinity_groups
    elif previous is not None:
        # an orphaned binding keeps the policy fields it was built with (Karmada leaves them as they are);
        # so does one whose Lazy policy changed while its template did not
        spec_fields.update(
            {
                name: getattr(previous.spec, name)
                for name in _POLICY_FIELDS
                if name in previous.spec.model_fields_set
            }
        )
    if inputs.required_by:
        spec_fields["required_by"] = inputs.required_by
        if policy is None:
            spec_fields["conflict_resolution"] = (
                inputs.attached_conflict_resolution or ConflictResolution.ABORT
            )
            if inputs.attached_preserve is not None:
                spec_fields["preserve_resources_on_deletion"] = inputs.attached_preserve
    if inputs.reschedule_triggered_at:
        spec_fields["reschedule_triggered_at"] = inputs.reschedule_triggered_at
    if previous is not None and previous.spec.graceful_eviction_tasks:
        # the failover controllers own the tasks (core.failover); the scheduler never undoes them
        spec_fields["graceful_eviction_tasks"] = previous.spec.graceful_eviction_tasks
    return spec_fields


def _status(inputs: BindingInputs, previous: ResourceBinding | None, now: str) -> ResourceBindingStatus:
    """The conditions (each keeping its transition time while its status stays), lastScheduledTime, and
    what the member clusters reported."""
    conditions = [carry_condition(inputs.scheduled, previous, now)] if inputs.scheduled is not None else []
    status_fields: dict[str, object] = {}
    if inputs.observed_affinity_name:
        status_fields["scheduler_observed_affinity_name"] = inputs.observed_affinity_name
    # lastScheduledTime moves only when a successful schedule changed the result
    previous_time = previous.status.last_scheduled_time if previous is not None else None
    succeeded = inputs.scheduled is not None and inputs.scheduled.status == "True"
    if succeeded and (inputs.scheduled_changed or previous_time is None):
        status_fields["last_scheduled_time"] = now
    elif previous_time is not None:
        status_fields["last_scheduled_time"] = previous_time
    if inputs.rendered:
        conditions.append(carry_condition(rendered_condition(inputs.rendered), previous, now))
    if inputs.fully_applied is not None:
        conditions.append(carry_condition(inputs.fully_applied, previous, now))
    if inputs.aggregated_status:
        status_fields["aggregated_status"] = inputs.aggregated_status
    if inputs.template_status:
        status_fields["template_status"] = inputs.template_status
    status_fields["conditions"] = tuple(conditions)
    return ResourceBindingStatus(**status_fields)


def record(
    ctx: RunContext,
    placed: Placed,
    rendered: Mapping[str, tuple[bool, str]],
    fingerprint: str,
    rollout: RolloutState | None = None,
) -> tuple[ResourceBinding, tuple[Diagnostic, ...]]:
    """The binding record of a placed and rendered template (``rollout``: where its rollout stands), and
    warnings about its observed status."""
    claimed: Claim = placed.claim
    template = claimed.template
    required = claimed.required
    items: tuple[AggregatedStatusItem, ...] = ()
    fully = None
    folded: dict[str, Any] | None = None
    problem: Diagnostic | None = None
    if ctx.observed is not None:
        holding = [name for name, (ok, _) in rendered.items() if ok]
        items = aggregated_status(template.key.identity, holding, ctx.observed, ctx.interpreter)
        fully = fully_applied_condition(items, [target.name for target in placed.targets])
        before = claimed.previous.status.template_status if claimed.previous is not None else None
        folded, problem = template_status(template, items, ctx.observed, ctx.interpreter, before)
    binding = build_binding(
        BindingInputs(
            template=template,
            match=claimed.match,
            replicas=placed.replicas,
            replica_requirements=placed.requirements,
            components=placed.components,
            clusters=placed.targets,
            scheduled=placed.condition,
            observed_affinity_name=placed.observed_affinity,
            rendered=dict(rendered),
            scheduled_changed=placed.changed,
            reschedule_triggered_at=ctx.now if template.key.identity in ctx.reschedule else None,
            template_hash=placed.template_hash,
            hold_previous_spec=placed.lazy_hold,
            required_by=tuple(r.snapshot for r in required),
            attached_conflict_resolution=attached_conflict_resolution(required) if claimed.attached else None,
            attached_preserve=attached_preserve(required) if claimed.attached else None,
            fingerprint=fingerprint,
            aggregated_status=items,
            template_status=folded,
            fully_applied=fully,
            rollout=rollout,
            schedule_priority=claimed.priority,
            workload_affinity_groups=placed.groups,
        ),
        claimed.previous,
        ctx.now,
    )
    return binding, (problem,) if problem is not None else ()
