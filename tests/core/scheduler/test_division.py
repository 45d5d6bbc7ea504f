"""Replica division: Steady vs Fresh, static weights, zero-replica removal, overflow tiers, properties."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitops_karmada.core.scheduler.division import (
    AssignmentInput,
    DivisionMode,
    ScaleDirection,
    assign_by_duplicated,
    assign_by_dynamic_strategy,
    assign_by_static_weight,
    assign_replicas,
    attach_zero_replica_clusters,
    divide_job_completions,
    dynamic_divide_replicas,
    merge_target_clusters,
)
from gitops_karmada.core.scheduler.errors import AssignmentError, UnschedulableError
from gitops_karmada.core.scheduler.strategy import ReplicaStrategy
from gitops_karmada.model.bindings import ComponentAssignment, TargetCluster
from gitops_karmada.model.policies import Placement
from tests.core.scheduler.builders import detail, pairs

if TYPE_CHECKING:
    from gitops_karmada.core.scheduler.spread import ClusterDetail

DYNAMIC = Placement.model_validate(
    {
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        }
    }
)
DUPLICATED = Placement.model_validate({"replicaScheduling": {"replicaSchedulingType": "Duplicated"}})
WEIGHTED = Placement.model_validate(
    {"replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}}
)


def _static(rules: list[tuple[list[str], int]]) -> Placement:
    return Placement.model_validate(
        {
            "replicaScheduling": {
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
                "weightPreference": {
                    "staticWeightList": [
                        {"targetCluster": {"clusterNames": n}, "weight": w} for n, w in rules
                    ]
                },
            }
        }
    )


def _tc(**replicas: int) -> tuple[TargetCluster, ...]:
    return tuple(TargetCluster(name=name, replicas=count) for name, count in replicas.items())


FLEET = [detail("a", allocatable=6), detail("b", allocatable=3), detail("c", allocatable=1)]

# previous result, replicas, fresh → mode, direction, result
STEADY_FRESH_TABLE: list[
    tuple[tuple[TargetCluster, ...], int, bool, DivisionMode, ScaleDirection, dict[str, int]]
] = [
    ((), 5, False, DivisionMode.STEADY, ScaleDirection.SCALE_UP, {"a": 3, "b": 1, "c": 1}),
    (_tc(c=2), 5, False, DivisionMode.STEADY, ScaleDirection.SCALE_UP, {"a": 2, "b": 1, "c": 2}),
    (_tc(a=2, b=6, c=2), 5, False, DivisionMode.STEADY, ScaleDirection.SCALE_DOWN, {"b": 3, "a": 1, "c": 1}),
    (_tc(a=1, c=4), 5, False, DivisionMode.STEADY, ScaleDirection.UNCHANGED, {"a": 1, "c": 4}),
    (_tc(c=4), 5, True, DivisionMode.FRESH, ScaleDirection.SCALE_UP, {"a": 2, "b": 1, "c": 2}),
    (_tc(gone=5), 5, False, DivisionMode.STEADY, ScaleDirection.SCALE_UP, {"a": 3, "b": 1, "c": 1}),
]


@pytest.mark.parametrize(
    ("previous", "replicas", "fresh", "mode", "direction", "result"),
    STEADY_FRESH_TABLE,
    ids=[
        "first-schedule-by-free-capacity",
        "scale-up-divides-only-the-delta",
        "scale-down-by-previous-counts",
        "unchanged-keeps-previous",
        "fresh-redivides-free-plus-own",
        "lost-cluster-replicas-re-placed",
    ],
)
def test_steady_and_fresh_dynamic_division(
    previous: tuple[TargetCluster, ...],
    replicas: int,
    fresh: bool,
    mode: DivisionMode,
    direction: ScaleDirection,
    result: dict[str, int],
) -> None:
    record = assign_by_dynamic_strategy(
        FLEET, ReplicaStrategy.DYNAMIC_WEIGHT, replicas, previous, fresh=fresh
    )
    assert (record.mode, record.direction) == (mode, direction)
    assert dict(pairs(record.result)) == result


def test_scale_up_records_weights_kept_replicas_and_seats() -> None:
    record = assign_by_dynamic_strategy(FLEET, ReplicaStrategy.DYNAMIC_WEIGHT, 5, _tc(c=2))
    assert [(w.cluster, w.weight, w.source) for w in record.weights] == [
        ("a", 6, "allocatable replicas (scale up)"),
        ("b", 3, "allocatable replicas (scale up)"),
        ("c", 1, "allocatable replicas (scale up)"),
    ]
    assert (record.assigned_before, record.target, pairs(record.kept)) == (2, 3, [("c", 2)])
    assert [(s.party, s.priority) for s in record.seats] == [("a", "6/1"), ("b", "3/1"), ("a", "6/3")]


def test_capacity_shortage_is_unschedulable_with_the_division_record() -> None:
    with pytest.raises(
        UnschedulableError, match=r"^Clusters available replicas 10 are not enough to schedule\.$"
    ) as info:
        assign_by_dynamic_strategy(FLEET, ReplicaStrategy.DYNAMIC_WEIGHT, 11)
    assert info.value.detail is not None


def test_aggregated_prefers_clusters_already_running_replicas() -> None:
    record = assign_by_dynamic_strategy(FLEET, ReplicaStrategy.AGGREGATED, 4, _tc(c=1))
    assert record.aggregated_prefix == ("c", "a")
    assert dict(pairs(record.result)) == {"a": 3, "c": 1}


def test_static_weights_ignore_the_previous_result_and_take_the_max_matching_rule() -> None:
    placement = _static([(["a"], 1), (["a", "b"], 3), (["c"], 2)])
    record = assign_by_static_weight(FLEET, placement, 8)
    assert [(w.cluster, w.weight, w.source) for w in record.weights] == [
        ("a", 3, "max over rules #0=1, #1=3"),
        ("b", 3, "max over rules #1=3"),
        ("c", 2, "max over rules #2=2"),
    ]
    assert dict(pairs(record.result)) == {"a": 3, "b": 3, "c": 2}


@pytest.mark.parametrize(
    ("placement", "weights"),
    [
        (WEIGHTED, {"a": 1, "b": 1, "c": 1}),
        (_static([(["zz"], 5)]), {"a": 1, "b": 1, "c": 1}),
        (_static([(["b"], 5)]), {"b": 5}),
    ],
    ids=["no-preference-equal", "no-rule-matches-equal", "unmatched-dropped"],
)
def test_static_weight_defaults(placement: Placement, weights: dict[str, int]) -> None:
    assert {w.cluster: w.weight for w in assign_by_static_weight(FLEET, placement, 3).weights} == weights


def _input(placement: Placement, replicas: int, **extra: Any) -> AssignmentInput:
    return AssignmentInput(placement=placement, replicas=replicas, **extra)


def test_webster_zero_seats_are_removed_at_the_end() -> None:
    static = assign_by_static_weight(FLEET, _static([(["a"], 10), (["b", "c"], 1)]), 2)
    assert ("c", 0) in pairs(static.result)
    record = assign_replicas(FLEET, _input(_static([(["a"], 10), (["b", "c"], 1)]), 2))
    assert pairs(record.result) == [("a", 2)]
    assert record.removed_zero == ("b", "c")


def test_duplicated_scaled_to_zero_with_requirements_gets_an_empty_result() -> None:
    record = assign_replicas(FLEET, _input(DUPLICATED, 0, has_requirements=True))
    assert record.result == ()
    assert attach_zero_replica_clusters(FLEET, record.result) == _tc(a=0, b=0, c=0)


def test_non_workloads_go_to_every_candidate_without_replicas() -> None:
    record = assign_replicas(FLEET, _input(DYNAMIC, 0))
    assert record.strategy is None
    assert record.result == _tc(a=0, b=0, c=0)


def test_component_bindings_copy_their_components_into_each_target() -> None:
    components = (ComponentAssignment(name="jm", replicas=1), ComponentAssignment(name="tm", replicas=2))
    record = assign_replicas(FLEET[:1], _input(DUPLICATED, 0, components=components, component_count=2))
    assert record.result == (TargetCluster(name="a", components=components),)


def test_no_candidates_is_an_error() -> None:
    with pytest.raises(AssignmentError, match="no clusters available to schedule"):
        assign_replicas([], _input(DUPLICATED, 1))


TIERED = [
    detail("primary-1", allocatable=2, overflow_order=0),
    detail("primary-2", allocatable=1, overflow_order=0),
    detail("burst", allocatable=10, overflow_order=1),
]


def test_overflow_fills_tier_by_tier() -> None:
    record = assign_replicas(TIERED, _input(DYNAMIC, 7, overflow=True))
    assert dict(pairs(record.result)) == {"primary-1": 2, "primary-2": 1, "burst": 4}
    assert [(t.order, t.capacity) for t in record.tiers] == [(0, 3), (1, 10)]


def test_overflow_shortage_is_unschedulable() -> None:
    with pytest.raises(
        UnschedulableError, match=r"^Clusters available replicas are not enough to schedule\.$"
    ):
        assign_replicas(TIERED, _input(DYNAMIC, 14, overflow=True))


def test_merge_adds_base_and_appends_base_only_entries_in_base_order() -> None:
    merged = merge_target_clusters(_tc(z=1, a=2, m=3), _tc(a=1, b=1))
    assert pairs(merged) == [("a", 3), ("b", 1), ("z", 1), ("m", 3)]


def test_job_completions_follow_the_assigned_replicas() -> None:
    assert pairs(divide_job_completions(10, _tc(a=3, b=1))) == [("a", 7), ("b", 3)]


# -- properties -------------------------------------------------------------------------------------------

NAME = st.text(alphabet="abcdefghij", min_size=1, max_size=3)
WEIGHTS = st.dictionaries(NAME, st.integers(min_value=0, max_value=1000), min_size=1, max_size=8)
REPLICAS = st.integers(min_value=0, max_value=500)


def _fleet(weights: dict[str, int]) -> list[ClusterDetail]:
    return [detail(name, allocatable=weight) for name, weight in weights.items()]


def _static_weights(weights: dict[str, int]) -> Placement:
    return _static([([name], weight) for name, weight in weights.items() if weight > 0])


@given(weights=WEIGHTS, replicas=REPLICAS)
def test_static_division_sums_to_the_request(weights: dict[str, int], replicas: int) -> None:
    result = assign_by_static_weight(_fleet(weights), _static_weights(weights), replicas).result
    assert sum(c.replicas for c in result) == replicas
    assert all(c.replicas >= 0 for c in result)
    assert len({c.name for c in result}) == len(result)


@given(weights=WEIGHTS, replicas=REPLICAS)
def test_static_zero_weights_get_nothing_unless_all_are_zero(weights: dict[str, int], replicas: int) -> None:
    result = dict(pairs(assign_by_static_weight(_fleet(weights), _static_weights(weights), replicas).result))
    if any(weights.values()):
        assert all(result.get(name, 0) == 0 for name, weight in weights.items() if weight == 0)
    else:
        assert sum(result.values()) == replicas and set(result) == set(weights)


@given(weights=WEIGHTS, replicas=REPLICAS)
def test_one_more_replica_goes_to_exactly_one_cluster(weights: dict[str, int], replicas: int) -> None:
    placement = _static_weights(weights)
    before = dict(pairs(assign_by_static_weight(_fleet(weights), placement, replicas).result))
    after = dict(pairs(assign_by_static_weight(_fleet(weights), placement, replicas + 1).result))
    assert sorted(after[name] - before.get(name, 0) for name in after) == [0] * (len(after) - 1) + [1]


@given(weights=WEIGHTS, replicas=REPLICAS, data=st.data())
def test_candidate_order_is_irrelevant(weights: dict[str, int], replicas: int, data: st.DataObject) -> None:
    fleet = _fleet(weights)
    shuffled = data.draw(st.permutations(fleet))
    placement = _static_weights(weights)
    first = sorted(pairs(assign_by_static_weight(fleet, placement, replicas).result))
    assert sorted(pairs(assign_by_static_weight(shuffled, placement, replicas).result)) == first


@given(weights=WEIGHTS, replicas=REPLICAS, factor=st.integers(min_value=2, max_value=50))
def test_scaling_weights_is_irrelevant(weights: dict[str, int], replicas: int, factor: int) -> None:
    fleet = _fleet(weights)
    scaled = {name: weight * factor for name, weight in weights.items()}
    plain = assign_by_static_weight(fleet, _static_weights(weights), replicas).result
    assert assign_by_static_weight(fleet, _static_weights(scaled), replicas).result == plain


@given(weights=WEIGHTS, replicas=REPLICAS)
def test_duplicated_gives_every_cluster_the_full_count(weights: dict[str, int], replicas: int) -> None:
    result = assign_by_duplicated(_fleet(weights), replicas).result
    assert [c.replicas for c in result] == [replicas] * len(weights)


@given(capacities=WEIGHTS, replicas=st.integers(min_value=1, max_value=500))
def test_aggregated_uses_the_shortest_covering_prefix(capacities: dict[str, int], replicas: int) -> None:
    available = tuple(sorted(_tc(**capacities), key=lambda c: -c.replicas))
    if sum(capacities.values()) < replicas:
        with pytest.raises(UnschedulableError):
            dynamic_divide_replicas(available, replicas, (), ReplicaStrategy.AGGREGATED)
        return
    result = dynamic_divide_replicas(available, replicas, (), ReplicaStrategy.AGGREGATED).result
    covered, prefix = 0, []
    for cluster in available:
        prefix.append(cluster.name)
        covered += cluster.replicas
        if covered >= replicas:
            break
    assert sorted(c.name for c in result) == sorted(prefix)
    assert sum(c.replicas for c in result) == replicas


@given(
    capacities=WEIGHTS,
    previous=st.dictionaries(NAME, st.integers(min_value=0, max_value=100), max_size=8),
    extra=st.integers(min_value=1, max_value=500),
    strategy=st.sampled_from([ReplicaStrategy.DYNAMIC_WEIGHT, ReplicaStrategy.AGGREGATED]),
)
def test_steady_scale_up_never_takes_replicas_from_a_remaining_candidate(
    capacities: dict[str, int], previous: dict[str, int], extra: int, strategy: ReplicaStrategy
) -> None:
    fleet = _fleet(capacities)
    kept = {name: count for name, count in previous.items() if name in capacities}
    replicas = sum(kept.values()) + extra
    try:
        record = assign_by_dynamic_strategy(fleet, strategy, replicas, _tc(**previous))
    except UnschedulableError:
        assert sum(capacities.values()) < extra
        return
    result = dict(pairs(record.result))
    assert all(result.get(name, 0) >= count for name, count in kept.items())
    assert sum(result.values()) == replicas


def test_static_weights_ignore_the_previous_assignment() -> None:
    placement = _static([(["a", "b", "c"], 1)])
    fresh = assign_replicas(FLEET, _input(placement, 6))
    with_history = assign_replicas(FLEET, _input(placement, 6, previous=_tc(a=6)))
    assert with_history.result == fresh.result == _tc(a=2, b=2, c=2)
