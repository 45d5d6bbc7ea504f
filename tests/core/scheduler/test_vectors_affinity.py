"""tests/vectors/affinity.yaml: affinity matching, filters, selectGroups, SelectBestClusters, group scores."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from gitops_karmada.core.defaults import default_placement
from gitops_karmada.core.scheduler.cluster_index import ClusterFacts
from gitops_karmada.core.scheduler.errors import SpreadConstraintError
from gitops_karmada.core.scheduler.filters import (
    AffinityInForce,
    affinity_in_force,
    cluster_affinity_reason,
    spread_constraint_reason,
    taint_toleration_reason,
)
from gitops_karmada.core.scheduler.spread import (
    ClusterDetail,
    GroupInfo,
    RegionGroup,
    calc_group_score,
    select_best_clusters,
    select_best_clusters_by_region,
    select_groups,
    sort_clusters,
)
from gitops_karmada.model.base import Toleration
from gitops_karmada.model.policies import ClusterAffinity, Placement, SpreadConstraint
from tests.core.scheduler.builders import cluster, detail, load_vector_section, params

CASES = load_vector_section("affinity.yaml")


def _cluster(given: dict[str, Any]) -> Any:
    return cluster(
        given.get("name") or "unnamed",
        labels=given.get("labels"),
        provider=given.get("provider", ""),
        region=given.get("region", ""),
        zones=given.get("zones"),
        taints=given.get("taints"),
    )


def _details(entries: list[dict[str, Any]]) -> list[ClusterDetail]:
    return [
        detail(
            e["name"],
            score=e.get("score", 0),
            allocatable=e.get("available", 0),
            overflow_order=e.get("overflow_order", 0),
            region=e.get("region", ""),
            provider=e.get("provider", ""),
            zones=e.get("zones"),
        )
        for e in entries
    ]


def _cluster_matches(given: dict[str, Any]) -> bool:
    try:
        affinity = ClusterAffinity.model_validate(given["affinity"])
    except ValidationError:
        # Karmada: an invalid selector never matches. Here it cannot even be written: the model rejects it.
        return False
    return cluster_affinity_reason(_cluster(given["cluster"]), AffinityInForce(primary=affinity)) == ""


def _match_zones(given: dict[str, Any]) -> bool:
    affinity = ClusterAffinity.model_validate({"fieldSelector": {"matchExpressions": [given["expression"]]}})
    return (
        cluster_affinity_reason(cluster("c", zones=given["zones"]), AffinityInForce(primary=affinity)) == ""
    )


def _group_score(given: dict[str, Any], clusters: list[dict[str, Any]]) -> int:
    return calc_group_score(
        _details(clusters),
        replicas=given["replicas"],
        duplicated=given["strategy"] == "Duplicated",
        min_groups=given["group_min_groups"],
        cluster_min_groups=given["cluster_min_groups"],
    )


def _check(case: dict[str, Any]) -> None:
    given, expected = case["input"], case["expected"]
    match case["function"]:
        case "cluster_matches":
            assert _cluster_matches(given) is expected["matches"]
        case "match_zones":
            assert _match_zones(given) is expected["matches"]
        case "taint_toleration_filter":
            facts = ClusterFacts.of(_cluster(given["cluster"]))
            tolerations = [Toleration.model_validate(t) for t in given["tolerations"]]
            reason = taint_toleration_reason(
                facts.scheduling_taints, tolerations, facts.name in given["binding_clusters"]
            )
            assert (reason == "") is expected["fits"]
            assert reason == expected.get("reason", "")
        case "spread_constraint_filter":
            constraints = [SpreadConstraint.model_validate(c) for c in given["spread_constraints"]]
            reason = spread_constraint_reason(ClusterFacts.of(_cluster(given["cluster"])), constraints)
            assert (reason == "") is expected["fits"]
        case "cluster_affinity_filter":
            placement = Placement.model_validate(given["placement"])
            observed = given["status"].get("schedulerObservedAffinityName", "")
            affinity = affinity_in_force(placement, observed, given["is_workload"])
            assert (cluster_affinity_reason(_cluster(given["cluster"]), affinity) == "") is expected["fits"]
        case "select_groups":
            groups = [GroupInfo(g["name"], g["value"], g["weight"]) for g in given["groups"]]
            chosen = select_groups(groups, given["min_groups"], given["max_groups"], given["target"])
            assert (None if chosen is None else [g.name for g in chosen]) == expected["selected"]
        case "select_best_clusters":
            placement = default_placement(Placement.model_validate(given["placement"]))
            candidates = _details(given["candidates"])
            if "error" in expected:
                with pytest.raises(SpreadConstraintError, match=expected["error"]):
                    select_best_clusters(placement, candidates, need_replicas=given["need_replicas"])
            else:
                selection = select_best_clusters(placement, candidates, need_replicas=given["need_replicas"])
                assert [c.name for c in selection.clusters] == expected["selected"]
        case "select_best_clusters_by_region":
            regions = [
                RegionGroup(name, region["score"], tuple(_details(region["clusters"])))
                for name, region in given["regions"].items()
            ]
            selection = select_best_clusters_by_region(
                SpreadConstraint.model_validate({"spreadByField": "region", **given["region_constraint"]}),
                SpreadConstraint.model_validate({"spreadByField": "cluster", **given["cluster_constraint"]}),
                regions,
            )
            assert [c.name for c in selection.clusters] == expected["selected"]
        case "calc_group_score":
            score1 = _group_score(given, given["clusters1"])
            if "score1" in expected:
                assert score1 == expected["score1"]
            if "group1_wins" in expected:
                score2 = _group_score(given, given["clusters2"])
                assert (score1 >= score2) is expected["group1_wins"]
                derived = expected.get("derived_scores")
                if derived:
                    assert (score1, score2) == (derived["score1"], derived["score2"])
        case "sort_candidates":
            assert [c.name for c in sort_clusters(_details(given["clusters"]))] == expected["order"]
        case other:
            pytest.fail(f"unknown function {other}")


@pytest.mark.parametrize("case", params(CASES))
def test_affinity_vector(case: dict[str, Any]) -> None:
    _check(case)
