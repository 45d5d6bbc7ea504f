"""The scheduler's entry point: one binding's placement, decided and explained (``generic_scheduler.go``).

filter → score → estimate → rank → select (spread constraints) → assign replicas, once per clusterAffinities
term from the observed one on until a term succeeds (``scheduler.go``). Pure: plain data in, plain data out.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from gitops_karmada.core.defaults import default_placement
from gitops_karmada.core.scheduler.cluster_index import ClusterFacts, ClusterIndex
from gitops_karmada.core.scheduler.division import (
    AssignmentInput,
    DivisionRecord,
    assign_replicas,
    attach_zero_replica_clusters,
)
from gitops_karmada.core.scheduler.errors import ConditionReason, FitError, ScheduleStepError
from gitops_karmada.core.scheduler.estimate import (
    MAX_INT32,
    Estimator,
    GeneralEstimate,
    estimate_component_sets,
    estimate_replicas,
    merge_estimates,
)
from gitops_karmada.core.scheduler.explanation import CapacityEstimate, ScheduleAttempt, ScheduleExplanation
from gitops_karmada.core.scheduler.filters import (
    AffinityInForce,
    FilterInput,
    affinity_in_force,
    fit_error_message,
    overflow_order,
    run_filters,
    tier_names,
)
from gitops_karmada.core.scheduler.spread import (
    ClusterDetail,
    SelectionRecord,
    select_best_clusters,
    sort_clusters,
)
from gitops_karmada.core.scheduler.webster import is_uid_hash_odd
from gitops_karmada.core.selectors import ZoneMatching
from gitops_karmada.model.bindings import Component, ComponentAssignment, ReplicaRequirements, TargetCluster
from gitops_karmada.model.config import KARMADA_DEFAULT_GATES, FeatureGate
from gitops_karmada.model.policies import Placement, SpreadFieldValue
from gitops_karmada.model.versions import NEWEST_VERSION, KarmadaVersion

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Mapping, Sequence

    from gitops_karmada.core.scheduler.estimate import AssumedWorkload
    from gitops_karmada.core.scheduler.workload_affinity import AffinityPeers
    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.keys import ObjectKey
    from gitops_karmada.model.quantity import Quantity

SUCCESS_MESSAGE = "Binding has been scheduled successfully."
LOCALITY_SCORE = 100
"""ClusterLocality's score for a cluster already in the previous result (MaxClusterScore)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleRequest:
    """One binding to schedule: the template's identity, its placement, its demand and the last result."""

    key: ObjectKey
    tie_break_uid: str
    """The template's metadata.uid (or a stable hash the caller computes): Webster's tie-breaker."""
    placement: Placement
    replicas: int
    replica_requirements: ReplicaRequirements | None
    components: tuple[Component, ...] = ()
    previous_clusters: tuple[TargetCluster, ...] = ()
    observed_affinity_name: str = ""
    reschedule: bool = False
    """A Fresh division was requested (WorkloadRebalancer); also restarts clusterAffinities at term 0."""
    evicted_clusters: frozenset[str] = frozenset()
    assumed: Mapping[str, tuple[AssumedWorkload, ...]] = field(default_factory=dict)
    """Per cluster, what bindings scheduled before this one were given and the fleet does not show yet
    (gate SchedulingOvercommitProtection: the general estimator counts it as allocating)."""
    peers: AffinityPeers | None = None
    """The placed members of the binding's workload-affinity groups (gate WorkloadAffinity)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleResult:
    """The decision. On failure ``clusters`` is exactly the previous result.

    Deliberate choice of this project: a binding is never emptied because nothing fits, unlike Karmada's
    clusterAffinities path which clears ``spec.clusters`` after a FitError on every term.
    """

    success: bool
    clusters: tuple[TargetCluster, ...]
    observed_affinity_name: str
    condition_reason: str
    condition_message: str
    explanation: ScheduleExplanation


@dataclass(frozen=True, slots=True, kw_only=True)
class _Run:
    """What stays the same across the clusterAffinities terms of one schedule() call."""

    request: ScheduleRequest
    placement: Placement
    index: ClusterIndex
    gates: Mapping[FeatureGate, bool]
    estimators: Sequence[Estimator]
    enable_empty_workload_propagation: bool
    previous_names: frozenset[str]
    previous_replicas: Mapping[str, int]
    version: KarmadaVersion

    def gate(self, gate: FeatureGate) -> bool:
        return self.gates.get(gate, KARMADA_DEFAULT_GATES[gate])


def schedule(
    request: ScheduleRequest,
    clusters: Sequence[Cluster] | ClusterIndex,
    *,
    gates: Mapping[FeatureGate, bool],
    estimators: Sequence[Estimator] = (),
    enable_empty_workload_propagation: bool = False,
    version: KarmadaVersion = NEWEST_VERSION,
) -> ScheduleResult:
    """Schedule one binding over the fleet, as the Karmada ``version`` followed does; never raises for a
    placement that does not fit.

    ``clusters`` may be a ``ClusterIndex`` built once for many calls (recommended for a whole repository).
    ``gates`` missing a key take Karmada's default. ``estimators`` are consulted besides the general one; per
    cluster the smallest answer wins. Raises only for broken input (e.g. duplicate cluster names).
    """
    index = clusters if isinstance(clusters, ClusterIndex) else ClusterIndex(clusters)
    run = _Run(
        request=request,
        placement=default_placement(request.placement),
        index=index,
        gates=gates,
        estimators=estimators,
        enable_empty_workload_propagation=enable_empty_workload_propagation,
        previous_names=frozenset(c.name for c in request.previous_clusters),
        previous_replicas={c.name: c.replicas for c in request.previous_clusters},
        version=version,
    )
    terms = run.placement.cluster_affinities
    if not terms:
        attempt = _shared_attempt(run, request.observed_affinity_name, term_name=None)
        return _result(run, (attempt,), attempt, request.observed_affinity_name, affinity_start="")
    attempts: list[ScheduleAttempt] = []

    def attempt_term(name: str) -> ScheduleAttempt | None:
        attempt = _shared_attempt(run, name, term_name=name)
        attempts.append(attempt)
        return attempt if attempt.succeeded else None

    walk = walk_cluster_affinities(
        [t.affinity_name for t in terms],
        request.observed_affinity_name,
        reschedule_required=request.reschedule,
        version=version,
        attempt=attempt_term,
    )
    if walk.result is not None and walk.chosen is not None:
        return _result(run, tuple(attempts), walk.result, walk.chosen, affinity_start=walk.why)
    # every term failed: Karmada reports the first error and keeps the observed name
    return _result(run, tuple(attempts), attempts[0], request.observed_affinity_name, affinity_start=walk.why)


_R = TypeVar("_R")


@dataclass(frozen=True, slots=True)
class AffinityWalk(Generic[_R]):
    """How the clusterAffinities terms were tried: from ``start`` on, until one gave a ``result``."""

    start: int
    why: str
    result: _R | None
    chosen: str | None
    """The term that succeeded (None: every term tried failed)."""
    observed_name_patch: str | None
    """``status.schedulerObservingAffinityName`` to write: the chosen term if it changed (None: no patch)."""


def walk_cluster_affinities(
    names: Sequence[str],
    observed: str,
    *,
    reschedule_required: bool,
    version: KarmadaVersion,
    attempt: Callable[[str], _R | None],
) -> AffinityWalk[_R]:
    """``scheduleResourceBindingWithClusterAffinities``: try each term from the observed one (0 when it is
    empty or unknown) until one succeeds. From v1.19 an explicit reschedule (``rescheduleTriggeredAt``
    after the last schedule: a WorkloadRebalancer, ``gitops-karmada reschedule``) starts again at the first
    term; before, it resumed at the observed term and never went back to a better, earlier one."""
    restart = reschedule_required and version.at_least(KarmadaVersion.V1_19)
    if restart:
        start, why = 0, "reschedule requested: starting again from the first term"
    elif observed in names:
        start = list(names).index(observed)
        why = f"starting from the observed term {observed!r}"
        if reschedule_required:
            why += (
                f" (Karmada {version.value} resumes there on a reschedule; v1.19 starts again at the first)"
            )
    else:
        start, why = 0, "no observed term: starting from the first term"
    if start > 0:
        why += f" (earlier terms {', '.join(repr(n) for n in names[:start])} are not retried)"
    for name in names[start:]:
        result = attempt(name)
        if result is not None:
            return AffinityWalk(start, why, result, name, name if name != observed else None)
    return AffinityWalk(start, why, None, None, None)


def _result(
    run: _Run,
    attempts: tuple[ScheduleAttempt, ...],
    decisive: ScheduleAttempt,
    observed_name: str,
    *,
    affinity_start: str,
) -> ScheduleResult:
    request = run.request
    success = decisive.succeeded
    clusters = decisive.clusters if success else request.previous_clusters
    affinity = affinity_in_force(
        run.placement, observed_name, _is_workload(request), ZoneMatching.of(run.version)
    )
    placed = [run.index.facts(c.name).cluster for c in clusters if c.name in run.index]
    explanation = ScheduleExplanation(
        template=str(request.key),
        replicas=request.replicas,
        components=tuple(c.name for c in request.components),
        affinity_start=affinity_start,
        attempts=attempts,
        reason=decisive.reason,
        message=decisive.message,
        clusters=clusters,
        kept_previous=not success,
        tiers=tier_names(affinity, placed),
    )
    return ScheduleResult(
        success=success,
        clusters=clusters,
        observed_affinity_name=observed_name,
        condition_reason=str(decisive.reason),
        condition_message=decisive.message,
        explanation=explanation,
    )


def _is_workload(request: ScheduleRequest) -> bool:
    """Whether overflow affinities apply (replicas, requirements or components)."""
    return request.replicas > 0 or request.replica_requirements is not None or bool(request.components)


def is_component_set_scheduling(
    placement: Placement,
    components: Sequence[Component],
    gate_on: bool,
    version: KarmadaVersion = NEWEST_VERSION,
) -> bool:
    """isMultiTemplateSchedulingApplicable: components (at least one from v1.18, two before) and a
    single-cluster spread constraint ``{spreadByField: cluster, minGroups: 1, maxGroups: 1}``."""
    fewest = 1 if version.at_least(KarmadaVersion.V1_18) else 2
    if not gate_on or len(components) < fewest:
        return False
    return any(
        c.spread_by_field is SpreadFieldValue.CLUSTER and c.min_groups == 1 and c.max_groups == 1
        for c in placement.spread_constraints
    )


def target_components(
    placement: Placement,
    components: Sequence[Component],
    gates: Mapping[FeatureGate, bool],
    version: KarmadaVersion,
) -> tuple[ComponentAssignment, ...]:
    """``buildTargetComponents`` (v1.19, post-rc.0): what each target cluster of a multi-component binding
    records in ``spec.clusters[].components`` — every component's full replicas, in spec order — when the
    gate is on, there is more than one component and the binding is applicable; otherwise nothing (the
    legacy result: a cluster name alone)."""
    gate = gates.get(
        FeatureGate.MULTIPLE_POD_TEMPLATES_SCHEDULING,
        KARMADA_DEFAULT_GATES[FeatureGate.MULTIPLE_POD_TEMPLATES_SCHEDULING],
    )
    if (
        not version.at_least(KarmadaVersion.V1_19)
        or len(components) <= 1
        or not is_component_set_scheduling(placement, components, gate, version)
    ):
        return ()
    return tuple(ComponentAssignment(name=c.name, replicas=c.replicas) for c in components)


def _shared_attempt(run: _Run, observed_name: str, *, term_name: str | None) -> ScheduleAttempt:
    """``_attempt``, computed once per distinct input while the index lives.

    An attempt reads no more than the key below: the placement's content, the template's kind, demand,
    previous result and evictions, the parity of its UID's hash (Webster's tie-breaker is all the UID
    decides), the gates, the estimators and the fleet (the index). So templates that ask the same of the
    same fleet (the templates of one policy, or of policies with equal placements) share one attempt.
    """
    request = run.request
    placement = request.placement
    key = (
        run.index.shared(placement, ("content",), placement.model_dump_json),
        request.key.api_version,
        request.key.kind,
        observed_name,
        term_name,
        request.replicas,
        None if request.replica_requirements is None else request.replica_requirements.model_dump_json(),
        tuple(c.model_dump_json() for c in request.components),
        request.previous_clusters,
        request.reschedule,
        request.evicted_clusters,
        is_uid_hash_odd(request.tie_break_uid),
        _assumed_key(request.assumed),
        _peers(run),
        tuple(sorted(run.gates.items())),
        run.enable_empty_workload_propagation,
        run.version,
    )
    return run.index.remembered(
        key, lambda: _attempt(run, observed_name, term_name=term_name), held=tuple(run.estimators)
    )


def _attempt(run: _Run, observed_name: str, *, term_name: str | None) -> ScheduleAttempt:
    request = run.request
    affinity = affinity_in_force(
        run.placement, observed_name, _is_workload(request), ZoneMatching.of(run.version)
    )
    given = FilterInput(
        api_version=request.key.api_version,
        kind=request.key.kind,
        placement=run.placement,
        affinity=affinity,
        previous_clusters=run.previous_names,
        evicted_clusters=request.evicted_clusters,
        peers=_peers(run),
    )
    # The filters read only ``given``: a function of the policy's placement (shared by every template the
    # policy claims), the kind, the observed term and the previous and evicted clusters. So the templates of
    # one policy share the verdicts of its 50 clusters instead of each filtering them again.
    verdicts = run.index.shared(
        request.placement,
        ("filters", given.api_version, given.kind, observed_name, _is_workload(request),
         given.previous_clusters, given.evicted_clusters, given.peers),
        lambda: tuple(run_filters(facts, given) for facts in run.index),
    )  # fmt: skip
    feasible = [facts for facts, verdict in zip(run.index, verdicts, strict=True) if verdict.fits]
    if not feasible:
        error = FitError(fit_error_message(len(run.index), verdicts))
        return ScheduleAttempt(
            affinity_term=term_name, verdicts=verdicts, reason=error.reason, message=error.message
        )
    component_sets = is_component_set_scheduling(
        run.placement,
        request.components,
        run.gate(FeatureGate.MULTIPLE_POD_TEMPLATES_SCHEDULING),
        run.version,
    )
    demand = (
        ("sets", _components_key(request.components))
        if component_sets
        else ("replicas", _requirements_key(request.replica_requirements))
    )
    modeling = run.gate(FeatureGate.CUSTOMIZED_CLUSTER_RESOURCE_MODELING)
    memo = run.index.memo_table((modeling, demand))
    estimates = tuple(_estimate(run, facts, component_sets, modeling, memo) for facts in feasible)
    candidates = sort_clusters(
        [
            _detail(run, facts, estimate.value, affinity)
            for facts, estimate in zip(feasible, estimates, strict=True)
        ]
    )
    progress = ScheduleAttempt(
        affinity_term=term_name,
        verdicts=verdicts,
        candidates=candidates,
        estimates=estimates,
        reason=ConditionReason.SUCCESS,
        message=SUCCESS_MESSAGE,
    )
    try:
        selection = select_best_clusters(
            run.placement,
            candidates,
            need_replicas=1 if component_sets else request.replicas,
            replicas=request.replicas,
        )
    except ScheduleStepError as err:
        record = err.detail if isinstance(err.detail, SelectionRecord) else None
        return replace(
            progress, selection=record, reason=err.reason, message=f"failed to select clusters: {err.message}"
        )
    progress = replace(progress, selection=selection.record)
    assignment = AssignmentInput(
        placement=run.placement,
        replicas=request.replicas,
        has_requirements=request.replica_requirements is not None,
        components=target_components(run.placement, request.components, run.gates, run.version),
        component_count=len(request.components),
        previous=request.previous_clusters,
        fresh=request.reschedule,
        uid=request.tie_break_uid,
        overflow=bool(affinity.overflow),
        zones=affinity.zones,
        version=run.version,
    )
    try:
        division = assign_replicas(selection.clusters, assignment)
    except ScheduleStepError as err:
        record_ = err.detail if isinstance(err.detail, DivisionRecord) else None
        return replace(
            progress, division=record_, reason=err.reason, message=f"failed to assign replicas: {err.message}"
        )
    result = division.result
    if run.enable_empty_workload_propagation:
        result = attach_zero_replica_clusters(selection.clusters, result)
    return replace(progress, division=division, clusters=result)


def _peers(run: _Run) -> AffinityPeers | None:
    return run.request.peers if run.gate(FeatureGate.WORKLOAD_AFFINITY) else None


def _assumed_key(assumed: Mapping[str, tuple[AssumedWorkload, ...]]) -> Hashable:
    return tuple((name, tuple(_workload_key(w) for w in found)) for name, found in sorted(assumed.items()))


def _workload_key(workload: AssumedWorkload) -> Hashable:
    return (
        workload.namespace,
        tuple((c.name, c.replicas, _request_key(c.resource_request)) for c in workload.components),
    )


def _detail(run: _Run, facts: ClusterFacts, allocatable: int, affinity: AffinityInForce) -> ClusterDetail:
    name = facts.name
    return ClusterDetail(
        cluster=facts.cluster,
        score=LOCALITY_SCORE if name in run.previous_names else 0,
        allocatable=allocatable,
        available=allocatable + run.previous_replicas.get(name, 0),
        overflow_order=overflow_order(facts.cluster, affinity),
    )


def _request_key(request: Mapping[str, Quantity]) -> Hashable:
    """What the general estimator reads of a request: values and formats (the component path uses formats)."""
    return tuple(sorted((name, q.value, q.format) for name, q in request.items()))


def _requirements_key(requirements: ReplicaRequirements | None) -> Hashable:
    return None if requirements is None else _request_key(requirements.resource_request)


def _components_key(components: Sequence[Component]) -> Hashable:
    return tuple(
        (
            c.replicas,
            None if c.replica_requirements is None else _request_key(c.replica_requirements.resource_request),
        )
        for c in components
    )


def _estimate(
    run: _Run, facts: ClusterFacts, component_sets: bool, modeling: bool, memo: dict[str, Any]
) -> CapacityEstimate:
    """calAvailableReplicas (or the component-set variant) for one candidate."""
    request = run.request
    if request.replicas == 0 and not request.components:
        return CapacityEstimate(
            cluster=facts.name,
            value=MAX_INT32,
            unit="replicas",
            note="not a workload: capacity not estimated",
        )
    cluster, components, requirements = facts.cluster, request.components, request.replica_requirements
    assumed = request.assumed.get(facts.name, ())
    deduct = run.gate(FeatureGate.SCHEDULING_OVERCOMMIT_PROTECTION)
    if assumed and deduct:
        memo = {}  # what a cluster holds for this binding alone
    general: GeneralEstimate | None = memo.get(facts.name)
    others: list[tuple[str, int | None]] = []
    if component_sets:
        if general is None:
            general = memo[facts.name] = estimate_component_sets(
                cluster, components, customized_modeling=modeling, assumed=assumed, deduct=deduct
            )
        for estimator in run.estimators:
            others.append(
                (_estimator_name(estimator), estimator.max_available_component_sets(cluster, components))
            )
    else:
        if general is None:
            general = memo[facts.name] = estimate_replicas(
                cluster, requirements, customized_modeling=modeling, assumed=assumed, deduct=deduct
            )
        for estimator in run.estimators:
            others.append(
                (_estimator_name(estimator), estimator.max_available_replicas(cluster, requirements))
            )
    answers = [general.value, *(answer for _, answer in others)]
    value = merge_estimates(answers, request.replicas)
    no_answer = all(answer is None or answer >= MAX_INT32 for answer in answers)
    return CapacityEstimate(
        cluster=facts.name,
        value=value,
        unit=general.unit,
        general=general,
        others=tuple(others),
        note="no estimator bounded it: spec.replicas used" if no_answer else "",
    )


def _estimator_name(estimator: Estimator) -> str:
    return str(getattr(estimator, "name", type(estimator).__name__))
