"""Node fit for the accurate estimator: node selector, required affinity, taints, unschedulable."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.scheduler.accurate import NodeClaimFilter
from gitops_karmada.core.scheduler.snapshot import SnapshotNode
from gitops_karmada.model.base import Taint
from gitops_karmada.model.bindings import NodeClaim

LABELS = {"zone": "eu-1a", "disk": "ssd", "cores": "16", "gen": "v2"}


def node(
    labels: dict[str, str] | None = None,
    taints: list[dict[str, Any]] | None = None,
    unschedulable: bool = False,
) -> SnapshotNode:
    return SnapshotNode(
        name="worker-1",
        labels=LABELS if labels is None else labels,
        taints=tuple(Taint.model_validate(t) for t in taints or ()),
        unschedulable=unschedulable,
    )


def claim(**fields: Any) -> NodeClaimFilter:
    return NodeClaimFilter.of(NodeClaim.model_validate(fields))


def expression(key: str, operator: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": operator, "values": list(values)}


def affinity(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"nodeSelectorTerms": list(terms)}


AFFINITY: list[tuple[str, dict[str, Any] | None, bool]] = [
    ("no-claim", None, True),
    ("selector-match", {"nodeSelector": {"zone": "eu-1a", "disk": "ssd"}}, True),
    ("selector-value-differs", {"nodeSelector": {"zone": "eu-1b"}}, False),
    ("selector-key-missing", {"nodeSelector": {"gpu": "yes"}}, False),
    ("in", {"hardNodeAffinity": affinity({"matchExpressions": [expression("zone", "In", "eu-1a", "eu-1b")]})}, True),
    ("in-missing-key", {"hardNodeAffinity": affinity({"matchExpressions": [expression("gpu", "In", "a")]})}, False),
    ("not-in", {"hardNodeAffinity": affinity({"matchExpressions": [expression("zone", "NotIn", "eu-1a")]})}, False),
    ("not-in-missing-key", {"hardNodeAffinity": affinity({"matchExpressions": [expression("gpu", "NotIn", "a")]})}, True),
    ("exists", {"hardNodeAffinity": affinity({"matchExpressions": [expression("disk", "Exists")]})}, True),
    ("does-not-exist", {"hardNodeAffinity": affinity({"matchExpressions": [expression("disk", "DoesNotExist")]})}, False),
    ("gt", {"hardNodeAffinity": affinity({"matchExpressions": [expression("cores", "Gt", "8")]})}, True),
    ("gt-equal", {"hardNodeAffinity": affinity({"matchExpressions": [expression("cores", "Gt", "16")]})}, False),
    ("lt", {"hardNodeAffinity": affinity({"matchExpressions": [expression("cores", "Lt", "32")]})}, True),
    ("gt-label-not-a-number", {"hardNodeAffinity": affinity({"matchExpressions": [expression("gen", "Gt", "1")]})}, False),
    ("expressions-anded", {"hardNodeAffinity": affinity({"matchExpressions": [expression("zone", "In", "eu-1a"), expression("disk", "In", "hdd")]})}, False),
    ("terms-ored", {"hardNodeAffinity": affinity({"matchExpressions": [expression("disk", "In", "hdd")]}, {"matchExpressions": [expression("zone", "Exists")]})}, True),
    ("field-name-in", {"hardNodeAffinity": affinity({"matchFields": [expression("metadata.name", "In", "worker-1")]})}, True),
    ("field-name-not-in", {"hardNodeAffinity": affinity({"matchFields": [expression("metadata.name", "NotIn", "worker-1")]})}, False),
    ("field-and-label", {"hardNodeAffinity": affinity({"matchExpressions": [expression("zone", "Exists")], "matchFields": [expression("metadata.name", "In", "worker-2")]})}, False),
    ("selector-and-affinity-both-needed", {"nodeSelector": {"zone": "eu-1b"}, "hardNodeAffinity": affinity({"matchExpressions": [expression("zone", "Exists")]})}, False),
    ("empty-term-selects-nothing", {"hardNodeAffinity": affinity({})}, False),
    ("no-terms-select-nothing", {"hardNodeAffinity": affinity()}, False),
    ("empty-affinity-selects-nothing", {"hardNodeAffinity": {}}, False),
    ("bad-operator-term-ignored", {"hardNodeAffinity": affinity({"matchExpressions": [expression("zone", "Like", "eu")]})}, False),
    ("bad-term-other-term-counts", {"hardNodeAffinity": affinity({"matchExpressions": [expression("cores", "Gt", "many")]}, {"matchExpressions": [expression("disk", "In", "ssd")]})}, True),
    ("in-without-values-is-bad", {"hardNodeAffinity": affinity({"matchExpressions": [expression("zone", "In")]})}, False),
    ("exists-with-values-is-bad", {"hardNodeAffinity": affinity({"matchExpressions": [expression("zone", "Exists", "eu-1a")]})}, False),
    ("field-with-two-values-is-bad", {"hardNodeAffinity": affinity({"matchFields": [expression("metadata.name", "In", "worker-1", "worker-2")]})}, False),
    ("field-exists-is-bad", {"hardNodeAffinity": affinity({"matchFields": [{"key": "metadata.name", "operator": "Exists", "values": ["x"]}]})}, False),
]  # fmt: skip


@pytest.mark.parametrize(("fields", "fits"), [a[1:] for a in AFFINITY], ids=[a[0] for a in AFFINITY])
def test_node_selector_and_affinity(fields: dict[str, Any] | None, fits: bool) -> None:
    check = NodeClaimFilter.of(None) if fields is None else claim(**fields)
    assert check.matches_affinity(node()) is fits
    assert (check.rejection(node()) == "") is fits


def test_unparsable_terms_are_recorded() -> None:
    check = claim(hardNodeAffinity=affinity({"matchExpressions": [expression("zone", "Like", "eu")]}))
    assert check.affinity == () and check.affinity_errors == (
        "nodeSelectorTerms[0]: 'Like' is not a valid node selector operator",
    )


GPU_NO_SCHEDULE = {"key": "gpu", "value": "a100", "effect": "NoSchedule"}
TAINTS = [
    ("untainted", [], [], ""),
    ("no-schedule-untolerated", [GPU_NO_SCHEDULE], [], "node(s) had untolerated taint {gpu=a100:NoSchedule}"),
    ("no-execute-untolerated", [{"key": "maintenance", "effect": "NoExecute"}], [], "node(s) had untolerated taint {maintenance:NoExecute}"),
    ("prefer-no-schedule-ignored", [{"key": "spot", "effect": "PreferNoSchedule"}], [], ""),
    ("equal-toleration", [GPU_NO_SCHEDULE], [{"key": "gpu", "operator": "Equal", "value": "a100", "effect": "NoSchedule"}], ""),
    ("equal-other-value", [GPU_NO_SCHEDULE], [{"key": "gpu", "operator": "Equal", "value": "t4"}], "node(s) had untolerated taint {gpu=a100:NoSchedule}"),
    ("exists-any-effect", [GPU_NO_SCHEDULE], [{"key": "gpu", "operator": "Exists"}], ""),
    ("effect-mismatch", [GPU_NO_SCHEDULE], [{"key": "gpu", "operator": "Exists", "effect": "NoExecute"}], "node(s) had untolerated taint {gpu=a100:NoSchedule}"),
    ("tolerate-everything", [GPU_NO_SCHEDULE, {"key": "x", "effect": "NoExecute"}], [{"operator": "Exists"}], ""),
    ("second-taint-untolerated", [GPU_NO_SCHEDULE, {"key": "x", "effect": "NoExecute"}], [{"key": "gpu", "operator": "Exists"}], "node(s) had untolerated taint {x:NoExecute}"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("taints", "tolerations", "reason"), [t[1:] for t in TAINTS], ids=[t[0] for t in TAINTS]
)
def test_taints_and_tolerations(
    taints: list[dict[str, Any]], tolerations: list[dict[str, Any]], reason: str
) -> None:
    assert claim(tolerations=tolerations).rejection(node(taints=taints)) == reason


UNSCHEDULABLE = [
    ("cordoned", [], "node(s) were unschedulable"),
    ("tolerates-unschedulable-taint", [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}], ""),
    ("tolerates-everything", [{"operator": "Exists"}], ""),
    ("other-toleration", [{"key": "gpu", "operator": "Exists"}], "node(s) were unschedulable"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("tolerations", "reason"), [u[1:] for u in UNSCHEDULABLE], ids=[u[0] for u in UNSCHEDULABLE]
)
def test_unschedulable_nodes(tolerations: list[dict[str, Any]], reason: str) -> None:
    assert claim(tolerations=tolerations).rejection(node(unschedulable=True)) == reason


def test_affinity_is_checked_before_taints() -> None:
    check = claim(nodeSelector={"zone": "us"})
    assert (
        check.rejection(node(taints=[GPU_NO_SCHEDULE])) == "node(s) didn't match Pod's node affinity/selector"
    )
