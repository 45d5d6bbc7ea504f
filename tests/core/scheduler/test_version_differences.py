"""Scheduler rules that differ between the Karmada versions followed (spec karmada-1.17-1.19.md), each side."""

from __future__ import annotations

from gitops_karmada.core.scheduler.division import assign_by_dynamic_strategy
from gitops_karmada.core.scheduler.strategy import ReplicaStrategy
from gitops_karmada.model.bindings import TargetCluster
from tests.core.scheduler.builders import detail, pairs

PREVIOUS = (
    TargetCluster(name="a", replicas=4),
    TargetCluster(name="b", replicas=4),
    TargetCluster(name="c", replicas=2),
)


def test_a_scale_down_weighs_only_clusters_still_candidates_from_1_17() -> None:
    # c left the candidates (filtered out); 10 replicas scale down to 5 (spec §12, karmada-semantics §2.11)
    candidates = [detail("a", allocatable=10), detail("b", allocatable=10)]
    current = assign_by_dynamic_strategy(candidates, ReplicaStrategy.DYNAMIC_WEIGHT, 5, PREVIOUS)
    assert pairs(current.result) == [("a", 3), ("b", 2)]  # Webster 5 over 4:4, name parity
    assert {w.cluster for w in current.weights} == {"a", "b"}
    # v1.16: every previous cluster weighs, c included, so c keeps a share though it is no candidate
    legacy = assign_by_dynamic_strategy(
        candidates, ReplicaStrategy.DYNAMIC_WEIGHT, 5, PREVIOUS, stale_weights=True
    )
    assert {w.cluster for w in legacy.weights} == {"a", "b", "c"}
    assert pairs(legacy.result) == [("a", 2), ("b", 2), ("c", 1)]
