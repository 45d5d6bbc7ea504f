"""Candidate ranking, selectGroups, group scores and SelectBestClusters (cluster and region algorithms)."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.defaults import default_placement
from gitops_karmada.core.scheduler.errors import SpreadConstraintError
from gitops_karmada.core.scheduler.spread import (
    GroupInfo,
    calc_group_score,
    feasible_group_paths,
    select_best_clusters,
    select_groups,
    sort_clusters,
)
from gitops_karmada.model.policies import Placement
from tests.core.scheduler.builders import detail

DIVIDED = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}


def _placement(constraints: list[dict[str, Any]], scheduling: dict[str, Any] | None = DIVIDED) -> Placement:
    document: dict[str, Any] = {"spreadConstraints": constraints}
    if scheduling is not None:
        document["replicaScheduling"] = scheduling
    return default_placement(Placement.model_validate(document))


# The Go test's ranked fleet (select_clusters_test.go)
FLEET = [
    detail("member4", score=60, allocatable=50, region="R2"),
    detail("member2", score=40, allocatable=60, region="R1"),
    detail("member3", score=30, allocatable=80, region="R1"),
    detail("member1", score=20, allocatable=40, region="R1"),
]


@pytest.mark.parametrize(
    ("entries", "order"),
    [
        ([("a", 0, 5, 0), ("b", 100, 1, 0)], ["b", "a"]),
        ([("a", 0, 5, 0), ("b", 0, 9, 0)], ["b", "a"]),
        ([("b", 0, 5, 0), ("a", 0, 5, 0)], ["a", "b"]),
        ([("a", 100, 99, 1), ("b", 0, 0, 0)], ["b", "a"]),
    ],
    ids=["score-desc", "available-desc", "name-asc", "overflow-order-first"],
)
def test_candidate_ranking(entries: list[tuple[str, int, int, int]], order: list[str]) -> None:
    details = [detail(n, score=s, allocatable=a, overflow_order=o) for n, s, a, o in entries]
    assert [c.name for c in sort_clusters(details)] == order


def test_cluster_algorithm_swaps_in_the_roomiest_rest_cluster() -> None:
    # Go test "select clusters by cluster score and available resource": 50+60 < 120, member3 (80) replaces
    # member2 (60), the lowest-ranked of the chosen two
    selection = select_best_clusters(
        _placement([{"spreadByField": "cluster", "maxGroups": 2}]), FLEET, need_replicas=120
    )
    assert [c.name for c in selection.clusters] == ["member4", "member3"]
    assert selection.record.swaps == ("member3 (available 80) replaced member2 (available 60)",)


@pytest.mark.parametrize(
    ("constraint", "scheduling", "need", "message"),
    [
        (
            {"spreadByField": "cluster", "maxGroups": 2},
            DIVIDED,
            200,
            "no enough resource when selecting 2 clusters",
        ),
        ({"spreadByField": "cluster"}, DIVIDED, 1, "no enough resource when selecting 0 clusters"),
        (
            {"spreadByField": "cluster", "minGroups": 5, "maxGroups": 5},
            DIVIDED,
            1,
            "less than spreadConstraint.MinGroups",
        ),
        ({"spreadByLabel": "topology"}, DIVIDED, 1, "just support cluster and region spread constraint"),
    ],
    ids=[
        "capacity-short-after-swaps",
        "max-groups-zero-selects-nothing",
        "min-groups-too-many",
        "label-unsupported",
    ],
)
def test_spread_errors(
    constraint: dict[str, Any], scheduling: dict[str, Any], need: int, message: str
) -> None:
    with pytest.raises(SpreadConstraintError, match=message):
        select_best_clusters(_placement([constraint], scheduling), FLEET, need_replicas=need)


def test_duplicated_max_groups_zero_selects_nothing_without_error() -> None:
    selection = select_best_clusters(_placement([{"spreadByField": "cluster"}], None), FLEET, need_replicas=5)
    assert selection.clusters == ()


def test_no_constraints_keeps_every_candidate_in_rank_order() -> None:
    selection = select_best_clusters(Placement(), FLEET, need_replicas=10_000)
    assert [c.name for c in selection.clusters] == ["member4", "member2", "member3", "member1"]
    assert selection.record.algorithm == "all"


@pytest.mark.parametrize(
    ("groups", "min_groups", "max_groups", "target", "selected"),
    [
        ([("R1", 2, 50), ("R2", 2, 90)], 1, 1, 2, ["R2"]),
        ([("R1", 1, 50), ("R2", 1, 90), ("R3", 3, 10)], 2, 2, 2, ["R2", "R1"]),
        ([("R1", 1, 50), ("R2", 1, 50)], 1, 1, 1, ["R1"]),
        ([("R1", 1, 50), ("R2", 1, 50)], 1, 2, 3, None),
        ([], 1, 1, 1, None),
    ],
    ids=["max-weight", "min-groups", "tie-smallest-id", "infeasible", "empty"],
)
def test_select_groups(
    groups: list[tuple[str, int, int]],
    min_groups: int,
    max_groups: int,
    target: int,
    selected: list[str] | None,
) -> None:
    chosen = select_groups([GroupInfo(*g) for g in groups], min_groups, max_groups, target)
    assert (None if chosen is None else [g.name for g in chosen]) == selected


def test_group_paths_stop_growing_once_feasible_and_respect_max() -> None:
    groups = [GroupInfo("A", 1, 10), GroupInfo("B", 1, 20), GroupInfo("C", 1, 30)]
    paths = feasible_group_paths(groups, 1, 2, 1)
    assert [p.names for p in paths] == [("C",), ("B",), ("A",)]
    paths = feasible_group_paths(groups, 2, 2, 1)
    assert [p.names for p in paths] == [("C", "B"), ("C", "A"), ("B", "A")]


@pytest.mark.parametrize(
    ("duplicated", "replicas", "min_groups", "cluster_min", "clusters", "score"),
    [
        (True, 10, 1, 1, [("a", 100, 10), ("b", 50, 20), ("c", 0, 5)], 2 * 1000 + 150 // 2),
        (True, 10, 1, 1, [], 0),
        (False, 10, 2, 1, [("a", 100, 3), ("b", 0, 4)], 5 * 1000 + 100 // 2),
        (False, 10, 2, 1, [("a", 100, 3), ("b", 0, 1)], 4 * 1000 + 100 // 2),
        (False, 10, 1, 3, [("a", 100, 20), ("b", 0, 1), ("c", 50, 1), ("d", 0, 1)], 10 * 1000 + 150 // 3),
    ],
    ids=[
        "duplicated-fitting",
        "duplicated-empty",
        "divided-target-reached",
        "divided-short",
        "divided-cluster-min",
    ],
)
def test_group_scores(
    duplicated: bool,
    replicas: int,
    min_groups: int,
    cluster_min: int,
    clusters: list[tuple[str, int, int]],
    score: int,
) -> None:
    details = [detail(n, score=s, allocatable=a) for n, s, a in clusters]
    assert (
        calc_group_score(
            details,
            replicas=replicas,
            duplicated=duplicated,
            min_groups=min_groups,
            cluster_min_groups=cluster_min,
        )
        == score
    )


REGION_FLEET = [
    detail("eu-1", score=100, allocatable=10, region="eu"),
    detail("us-1", score=0, allocatable=30, region="us"),
    detail("eu-2", score=0, allocatable=20, region="eu"),
    detail("us-2", score=0, allocatable=5, region="us"),
    detail("ap-1", score=0, allocatable=5, region="ap"),
    detail("none", score=0, allocatable=99),
]


def test_region_algorithm_takes_region_heads_then_best_rest() -> None:
    placement = _placement(
        [
            {"spreadByField": "region", "minGroups": 2, "maxGroups": 2},
            {"spreadByField": "cluster", "minGroups": 3, "maxGroups": 3},
        ]
    )
    selection = select_best_clusters(placement, sort_clusters(REGION_FLEET), need_replicas=20)
    regions = {r.name: r.score for r in selection.record.regions}
    assert set(regions) == {"ap", "eu", "us"}
    assert selection.record.chosen_regions == ("eu", "us")
    assert [c.name for c in selection.clusters] == ["eu-1", "us-1", "eu-2"]


def test_region_algorithm_keeps_every_region_head_even_above_cluster_max() -> None:
    placement = _placement(
        [
            {"spreadByField": "region", "minGroups": 3, "maxGroups": 3},
            {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1},
        ]
    )
    selection = select_best_clusters(placement, sort_clusters(REGION_FLEET), need_replicas=1)
    assert sorted(c.name for c in selection.clusters) == ["ap-1", "eu-1", "us-1"]


def test_region_algorithm_errors() -> None:
    too_many = _placement(
        [{"spreadByField": "region", "minGroups": 4, "maxGroups": 4}, {"spreadByField": "cluster"}]
    )
    with pytest.raises(SpreadConstraintError, match="feasible region is less than"):
        select_best_clusters(too_many, sort_clusters(REGION_FLEET), need_replicas=1)
    not_enough_clusters = _placement(
        [
            {"spreadByField": "region", "minGroups": 1, "maxGroups": 1},
            {"spreadByField": "cluster", "minGroups": 3, "maxGroups": 3},
        ]
    )
    with pytest.raises(SpreadConstraintError, match=r"less than the cluster spreadConstraint\.MinGroups"):
        select_best_clusters(not_enough_clusters, sort_clusters(REGION_FLEET), need_replicas=1)


def test_zone_and_provider_constraints_only_filter_selection_uses_the_cluster_algorithm() -> None:
    placement = _placement(
        [
            {"spreadByField": "zone", "minGroups": 3, "maxGroups": 3},
            {"spreadByField": "provider", "minGroups": 2, "maxGroups": 2},
            {"spreadByField": "cluster", "maxGroups": 1},
        ]
    )
    selection = select_best_clusters(placement, FLEET, need_replicas=10)
    assert selection.record.algorithm == "cluster"
    assert [c.name for c in selection.clusters] == ["member4"]
