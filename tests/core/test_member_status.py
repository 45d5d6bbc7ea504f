"""The pure half of ``collect``: plurals and list paths, Karmada's summaries, trimming, the snapshot codec."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.inputs.kinds import BUILTIN_KINDS
from gitops_karmada.core.observed.member_status import (
    SummaryBuilder,
    carry_over,
    dump_snapshot,
    heartbeat_only,
    needs_recording,
    parse_snapshot,
    pod_request,
    ready_condition,
    trim_object,
)
from gitops_karmada.core.observed.resource_names import (
    NATIVE_PLURALS,
    crd_plurals,
    guess_plural,
    list_path,
    resource_plural,
)
from gitops_karmada.model.diagnostics import SourceRef
from gitops_karmada.model.errors import InputError
from gitops_karmada.model.status import ClusterStatusSnapshot


@pytest.mark.parametrize(
    ("kind", "plural"),
    [("Deployment", "deployments"), ("Ingress", "ingresses"), ("NetworkPolicy", "networkpolicies"),
     ("Endpoints", "endpoints"), ("Status", "statuses"), ("Gateway", "gatewaies"), ("", "")],
)  # fmt: skip
def test_the_guess_is_apimachinerys_unsafe_guess(kind: str, plural: str) -> None:
    # "gatewaies" is what Kubernetes guesses too: why a CRD's own plural comes first
    assert guess_plural(kind) == plural


def test_every_native_kind_has_a_plural_and_the_guess_agrees_with_the_table() -> None:
    # the table is authoritative; the guess happens to agree for every native kind (Endpoints via its exception)
    for (group, kind), plural in NATIVE_PLURALS.items():
        assert guess_plural(kind) == plural, (group, kind)
    unlisted = {(g, k) for g, kinds in BUILTIN_KINDS.items() for k in kinds} - set(NATIVE_PLURALS)
    assert unlisted <= {("policy", "PodSecurityPolicy"), ("coordination.k8s.io", "LeaseCandidate")}


def test_a_crd_of_the_repository_names_its_plural() -> None:
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "spec": {"group": "example.com", "names": {"kind": "Cactus", "plural": "cacti"}}}  # fmt: skip
    not_a_crd = {"apiVersion": "example.com/v1", "kind": "CustomResourceDefinition", "spec": crd["spec"]}
    crds = crd_plurals(
        [crd, not_a_crd, {"kind": "CustomResourceDefinition", "apiVersion": "apiextensions.k8s.io/v1"}]
    )
    assert crds == {("example.com", "Cactus"): "cacti"}
    assert resource_plural("example.com/v1", "Cactus", crds) == "cacti"
    assert resource_plural("other.io/v1", "Cactus", crds) == "cactuses"
    assert resource_plural("v1", "Endpoints", crds) == "endpoints"
    assert list_path("v1", "configmaps") == "/api/v1/configmaps"
    assert list_path("example.com/v1", "cacti") == "/apis/example.com/v1/cacti"


def _node(ready: str | None, allocatable: dict[str, str]) -> dict[str, Any]:
    conditions = [] if ready is None else [{"type": "Ready", "status": ready}]
    return {"status": {"allocatable": allocatable, "conditions": conditions}}


def test_nodes_give_the_node_summary_and_allocatable_of_every_node() -> None:
    builder = SummaryBuilder()
    builder.add_nodes(
        [_node("True", {"cpu": "2", "memory": "1Gi"}), _node("Unknown", {"cpu": "500m", "memory": "512Mi"})]
    )
    builder.add_nodes([_node(None, {"cpu": "1", "example.com/fpga": "1", "memory": "bogus"})])
    assert (builder.node_summary().total_num, builder.node_summary().ready_num) == (3, 1)
    allocatable = builder.resource_summary(with_pods=False).allocatable
    assert {name: str(q) for name, q in allocatable.items()} == {
        "cpu": "3500m",
        "example.com/fpga": "1",
        "memory": "1536Mi",
    }


def test_a_pods_request_is_karmadas_add_pod_request() -> None:
    spec = {
        "containers": [{"resources": {"requests": {"cpu": "100m", "memory": "100Mi", "example.com/gpu": "1"}}},
                       {"resources": {"requests": {"cpu": "0.0001", "unknown": "5"}}}, {}],
        "initContainers": [{"resources": {"requests": {"memory": "1Gi", "cpu": "50m", "hugepages-2Mi": "4Mi"}}}],
        "overhead": {"cpu": "10m"},
    }  # fmt: skip
    request = pod_request(spec)
    # 0.0001 CPU counts as 1m (MilliValue rounds up); "unknown" is not a scalar resource and is not counted
    assert {name: str(q) for name, q in request.resource_list().items()} == {
        "cpu": "111m", "ephemeral-storage": "0", "example.com/gpu": "1", "hugepages-2Mi": "4Mi", "memory": "1Gi", "pods": "0",
    }  # fmt: skip


def test_trimming_keeps_identity_spec_and_status_only() -> None:
    member = {
        "apiVersion": "v1", "kind": "Service", "extra": 1,
        "metadata": {"name": "web", "namespace": "shop", "uid": "x", "resourceVersion": "3", "generation": 1,
                     "labels": {"b": "2", "a": "1"},
                     "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{...}"}},
        "spec": {"ports": [{"port": 80}]}, "status": {"loadBalancer": {}},
    }  # fmt: skip
    assert trim_object(member) == {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"generation": 1, "labels": {"a": "1", "b": "2"}, "name": "web", "namespace": "shop"},
        "spec": {"ports": [{"port": 80}]}, "status": {"loadBalancer": {}},
    }  # fmt: skip
    assert list(trim_object(member)["metadata"]["labels"]) == ["a", "b"]


def _snapshot(**status: Any) -> ClusterStatusSnapshot:
    return ClusterStatusSnapshot.model_validate(
        {"metadata": {"name": "member1"}, "collectedAt": "2026-01-01T00:00:00Z", "status": status}
    )


def test_the_codec_is_canonical_and_round_trips() -> None:
    one = _snapshot(resourceSummary={"allocatable": {"pods": 110, "cpu": "2000m"}})
    other = _snapshot(resourceSummary={"allocatable": {"cpu": "2", "pods": "110"}})
    assert one == other and dump_snapshot(one) == dump_snapshot(other)
    assert b'allocatable:\n      cpu: "2"\n      pods: "110"\n' in dump_snapshot(one)
    source = SourceRef("status:clusters/member1.yaml")
    assert parse_snapshot(dump_snapshot(one), source, "here") == one
    with pytest.raises(
        InputError, match=r"status:clusters/member1\.yaml\[0\] collectedAt: .*\(here\)"
    ) as raised:
        parse_snapshot(dump_snapshot(one).replace(b"2026-01-01T00:00:00Z", b"yesterday"), source, "here")
    assert raised.value.field == "collectedAt"
    with pytest.raises(InputError, match=r"member1\.yaml\[0\]: line 2 column 1: .*\(here\)"):
        parse_snapshot(b"a: [", source, "here")
    with pytest.raises(InputError, match="must hold one ClusterStatusSnapshot document"):
        parse_snapshot(b"- 1\n", source, "here")


def test_carry_over_keeps_unchanged_transition_times_and_an_offline_clusters_summaries() -> None:
    ready = ready_condition(online=True, healthy=True, now="2026-01-01T00:00:00Z")
    first = _snapshot(
        kubernetesVersion="v1.30.0", conditions=[ready.model_dump(by_alias=True)], nodeSummary={"totalNum": 1}
    )
    again = _snapshot(
        kubernetesVersion="v1.30.1",
        conditions=[
            ready.model_copy(update={"last_transition_time": "2026-01-01T00:01:00Z"}).model_dump(
                by_alias=True
            )
        ],
    )
    kept = carry_over(first, again)
    assert kept.status.conditions[0].last_transition_time == "2026-01-01T00:00:00Z"
    assert kept.status.kubernetes_version == "v1.30.1" and kept.status.node_summary is None, (
        "a ready cluster: as read"
    )
    offline = ready_condition(online=False, healthy=False, now="2026-01-01T00:02:00Z")
    gone = carry_over(first, _snapshot(conditions=[offline.model_dump(by_alias=True)]))
    assert gone.status.conditions[0].last_transition_time == "2026-01-01T00:02:00Z"
    assert (
        gone.status.kubernetes_version == "v1.30.0" and gone.status.node_summary == first.status.node_summary
    )
    assert carry_over(None, again) is again


def test_a_heartbeat_alone_is_recorded_before_it_would_be_half_the_grace_period_old() -> None:
    ready = ready_condition(online=True, healthy=True, now="2026-01-01T00:00:00Z").model_dump(by_alias=True)
    recorded = _snapshot(conditions=[ready], nodeSummary={"totalNum": 1})

    def later(seconds: int, **status: Any) -> ClusterStatusSnapshot:
        at = f"2026-01-01T00:00:{seconds:02d}Z"
        body = {"conditions": [ready], "nodeSummary": {"totalNum": 1}, **status}
        return _snapshot(**body).model_copy(update={"collected_at": at})

    def due(
        snapshot: ClusterStatusSnapshot, interval: float, before: ClusterStatusSnapshot = recorded
    ) -> bool:
        return needs_recording(before, snapshot, grace_seconds=40, interval_seconds=interval)

    assert heartbeat_only(recorded, later(5)) and not heartbeat_only(recorded, later(5, nodeSummary={}))
    assert needs_recording(None, later(0), grace_seconds=40)
    # every 5 s: 15 s old now, 20 s at the next round (not more than grace/2): skipped; 16 s old: recorded
    assert not due(later(15), 5) and due(later(16), 5)
    # every 15 s: 15 s old now would be 30 s at the next round; recorded now (the heartbeat stays <= 20 s old)
    assert due(later(15), 15)
    assert due(later(1, nodeSummary={"totalNum": 2}), 5), "a change is recorded at once"
    newer = recorded.model_copy(update={"collected_at": "2026-01-01T00:00:30Z"})
    assert not due(later(20, nodeSummary={"totalNum": 2}), 5, before=newer), (
        "another collector's newer snapshot is never replaced by an older observation"
    )
