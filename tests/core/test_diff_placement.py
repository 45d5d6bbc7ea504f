"""Placement comparison: per-cluster replicas, clusters gained and lost, replicas moved, problems."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitops_karmada.core.diff import ChangeKind, ProblemKind, compare
from gitops_karmada.core.diff.bound import BoundPlacement, replicas_after, replicas_by_cluster
from gitops_karmada.core.diff.placement import compare_placement
from gitops_karmada.core.diff.wording import cell_text, percent, placement_cell_text
from gitops_karmada.model.diagnostics import error
from gitops_karmada.model.keys import ObjectKey
from tests.action.diffdata import binding, side

if TYPE_CHECKING:
    from gitops_karmada.core.diff.placement import Identity

D = "Deployment"


@pytest.mark.parametrize(
    ("before", "after", "gained", "lost", "moved", "fraction"),
    [
        ({"m1": 4, "m2": 2, "m3": 2}, {"m1": 3, "m2": 3, "m3": 2}, (), (), 1, Fraction(1, 8)),
        ({"m1": 4, "m2": 2, "m3": 2}, {"m1": 2, "m2": 3, "m3": 3}, (), (), 2, Fraction(2, 8)),
        ({"m1": 4, "m2": 4}, {"m1": 6, "m2": 6}, (), (), 0, Fraction(0)),
        ({"m1": 6, "m2": 6}, {"m1": 4, "m2": 4}, (), (), 0, Fraction(0)),
        ({"m1": 4, "m2": 2, "m3": 2}, {"m1": 5, "m2": 3}, (), ("m3",), 2, Fraction(2, 8)),
        ({"m1": 4, "m2": 4}, {"m1": 4, "m2": 2, "m3": 2}, ("m3",), (), 2, Fraction(2, 8)),
        ({"m1": 3}, {"m2": 3}, ("m2",), ("m1",), 3, Fraction(1)),
        ({"m1": 4, "m2": 4}, {"m1": 2, "m2": 2, "m3": 8}, ("m3",), (), 4, Fraction(4, 8)),
    ],
    ids=[
        "one-replica-moves",
        "weights-2-1-1-to-1-1-1",
        "scale-up-moves-nothing",
        "scale-down-moves-nothing",
        "cluster-lost-replicas-rescheduled",
        "cluster-gained-takes-replicas",
        "whole-workload-moves",
        "scale-up-and-move",
    ],
)
def test_replica_moves(
    before: dict[str, int],
    after: dict[str, int],
    gained: tuple[str, ...],
    lost: tuple[str, ...],
    moved: int,
    fraction: Fraction,
) -> None:
    diff = compare(
        side("base", binding(D, "shop", "web", before, policy="pp/web")),
        side("head", binding(D, "shop", "web", after, policy="pp/web")),
    )
    (workload,) = diff.workloads
    assert workload.change is ChangeKind.MODIFIED
    assert (workload.gained, workload.lost, workload.moved) == (gained, lost, moved)
    assert workload.moved_fraction == fraction
    assert workload.replicas_before == sum(before.values())
    assert workload.replicas_after == sum(after.values())
    assert [c.cluster for c in workload.cells] == sorted(before.keys() | after.keys())


@pytest.mark.parametrize(
    ("before", "after", "change"),
    [
        (None, {"m1": 2}, ChangeKind.ADDED),
        ({"m1": 2}, None, ChangeKind.REMOVED),
        ({"m1": 2}, {"m1": 2}, None),
    ],
    ids=["template-added", "template-removed", "unchanged-is-not-listed"],
)
def test_templates_added_removed_unchanged(
    before: dict[str, int] | None, after: dict[str, int] | None, change: ChangeKind | None
) -> None:
    base = side("base", *([binding(D, "shop", "web", before)] if before else []))
    head = side("head", *([binding(D, "shop", "web", after)] if after else []))
    diff = compare(base, head)
    assert [w.change for w in diff.workloads] == ([change] if change else [])
    if change is not None:
        assert diff.workloads[0].moved == 0  # appearing or disappearing is not moving


def test_a_new_claiming_policy_alone_is_a_placement_change() -> None:
    diff = compare(
        side("base", binding(D, "shop", "web", {"m1": 2}, policy="pp/old")),
        side("head", binding(D, "shop", "web", {"m1": 2}, policy="pp/new")),
    )
    (workload,) = diff.workloads
    assert (workload.policy_before, workload.policy_after) == ("pp/old", "pp/new")
    assert workload.moved == 0


def test_objects_without_replicas_are_placed_or_not() -> None:
    diff = compare(
        side("base", binding("ConfigMap", "shop", "cfg", {"m1": 0, "m2": 0}, api_version="v1", replicas=0)),
        side("head", binding("ConfigMap", "shop", "cfg", {"m1": 0, "m3": 0}, api_version="v1", replicas=0)),
    )
    (workload,) = diff.workloads
    assert not workload.has_replicas
    assert (workload.gained, workload.lost, workload.moved_fraction) == (("m3",), ("m2",), None)
    cells = {c.cluster: cell_text(c.before, c.after, workload.has_replicas) for c in workload.cells}
    assert cells == {"m1": "✓", "m2": "✓ → –", "m3": "– → ✓"}


@pytest.mark.parametrize(
    ("fraction", "text"),
    [
        (Fraction(1, 8), "12.5 %"),
        (Fraction(1, 3), "33.3 %"),
        (Fraction(2, 3), "66.7 %"),
        (Fraction(1, 2000), "0.1 %"),  # 0.05 % rounds half up
        (Fraction(1, 2001), "0 %"),
        (Fraction(1), "100 %"),
    ],
    ids=["eighth", "third", "two-thirds", "half-up", "below-half", "all"],
)
def test_percent_is_exact(fraction: Fraction, text: str) -> None:
    assert percent(fraction) == text


@pytest.mark.parametrize(
    ("base_condition", "head_condition", "kind", "new", "resolved"),
    [
        (None, ("False", "Unschedulable", "0/3 clusters are available"), ProblemKind.UNSCHEDULABLE, True, 0),
        (
            None,
            ("False", "NoClusterFit", "0/3 clusters are available: 3 cluster(s) had untolerated taint"),
            ProblemKind.UNSCHEDULABLE,
            True,
            0,
        ),
        (
            None,
            ("False", "QuotaExceeded", "FederatedResourceQuota(shop/q) exceeded for resource cpu"),
            ProblemKind.QUOTA_BLOCKED,
            True,
            0,
        ),
        (
            ("False", "Unschedulable", "x"),
            ("False", "Unschedulable", "x"),
            ProblemKind.UNSCHEDULABLE,
            False,
            0,
        ),
        (("False", "Unschedulable", "x"), None, None, False, 1),
    ],
    ids=["became-unschedulable", "no-cluster-fit", "quota-blocked", "already-unschedulable", "resolved"],
)
def test_scheduling_problems(
    base_condition: tuple[str, str, str] | None,
    head_condition: tuple[str, str, str] | None,
    kind: ProblemKind | None,
    new: bool,
    resolved: int,
) -> None:
    diff = compare(
        side("base", binding(D, "shop", "web", {"m1": 2}, scheduled=base_condition)),
        side("head", binding(D, "shop", "web", {"m1": 2}, scheduled=head_condition)),
    )
    assert [(p.kind, p.new) for p in diff.problems] == ([(kind, new)] if kind else [])
    if kind is not None and head_condition is not None:
        assert (diff.problems[0].reason, diff.problems[0].message) == head_condition[1:]
    assert len(diff.resolved) == resolved


def test_render_failures_are_problems_once_per_template() -> None:
    failure = error("cannot render for cluster 'm1': bad override", subject="Deployment.apps/shop/web")
    scheduling = error("cannot be scheduled: no cluster", subject="Deployment.apps/shop/api")
    head = side(
        "head",
        binding(D, "shop", "web", {"m1": 2}),
        binding(D, "shop", "api", {"m1": 2}, scheduled=("False", "Unschedulable", "no cluster")),
    )
    head = type(head)(revision="head", tree={}, bindings=head.bindings, diagnostics=(failure, scheduling))
    diff = compare(side("base"), head)
    assert [(p.template, p.kind) for p in diff.problems] == [
        ("Deployment.apps/shop/api", ProblemKind.UNSCHEDULABLE),
        ("Deployment.apps/shop/web", ProblemKind.FAILED),
    ]


_CLUSTERS = st.sampled_from(["m1", "m2", "m3", "m4"])
_PLACEMENT = st.builds(
    lambda has, replicas: (has, replicas),
    st.booleans(),
    st.dictionaries(_CLUSTERS, st.integers(min_value=0, max_value=5), max_size=4),
)


@given(
    base=st.dictionaries(st.sampled_from("abcdef"), _PLACEMENT, max_size=6),
    head=st.dictionaries(st.sampled_from("abcdef"), _PLACEMENT, max_size=6),
    shared=st.sets(st.sampled_from("abcdef")),
)
def test_replicas_after_counts_what_a_second_full_count_would(
    base: dict[str, tuple[bool, dict[str, int]]],
    head: dict[str, tuple[bool, dict[str, int]]],
    shared: set[str],
) -> None:
    def placements(side: dict[str, tuple[bool, dict[str, int]]]) -> dict[Identity, BoundPlacement]:
        return {
            ("apps", D, "ns", name): BoundPlacement(
                key=ObjectKey("apps/v1", D, "ns", name), policy="pp/p", has_replicas=has, replicas=replicas
            )
            for name, (has, replicas) in side.items()
        }

    old, new = placements(base), placements(head)
    new.update({i: p for i, p in old.items() if i[3] in shared})  # the very object on both sides
    before = replicas_by_cluster(old.values())
    reference: Counter[str] = Counter()
    for placement in old.values():
        if placement.has_replicas:
            reference.update(placement.replicas)
    assert before == reference
    after = replicas_after(before, old, new)
    expected = replicas_by_cluster(new.values())
    assert {c: after[c] for c in _all(after, expected)} == {c: expected[c] for c in _all(after, expected)}


def _all(*counters: Counter[str]) -> set[str]:
    return {cluster for counter in counters for cluster in counter}


def test_a_cell_names_the_overflow_tier_of_its_replicas() -> None:
    key = ObjectKey("apps/v1", D, "default", "web")

    def bound(replicas: dict[str, int], tiers: dict[str, str] | None = None) -> BoundPlacement:
        return BoundPlacement(
            key=key, policy="pp/web", has_replicas=True, replicas=replicas, tiers=tiers or {}
        )

    before = bound({"idc-1": 4, "cloud-1": 3}, {"idc-1": "on-prem", "cloud-1": "cloud"})
    after = bound({"idc-1": 4, "cloud-1": 2}, {"idc-1": "on-prem", "cloud-1": "on-prem"})
    identity = key.identity
    (workload,) = compare_placement({identity: before}, {identity: after})
    cells = {c.cluster: placement_cell_text(c, True) for c in workload.cells}
    assert cells == {"cloud-1": "3 → 2 (cloud → on-prem)", "idc-1": "4 (on-prem)"}
    # only the tiers changed: still a change of placement
    (moved,) = compare_placement({identity: before}, {identity: replace(before, tiers={"idc-1": "on-prem"})})
    assert {c.cluster: placement_cell_text(c, True) for c in moved.cells}["cloud-1"] == "3 (cloud)"
    # a side without tiers (no overflow affinities, or an index written before they were recorded)
    (plain,) = compare_placement({identity: bound({"idc-1": 4})}, {identity: after})
    assert {c.cluster: placement_cell_text(c, True) for c in plain.cells} == {
        "cloud-1": "– → 2 (on-prem)",
        "idc-1": "4 (on-prem)",
    }
