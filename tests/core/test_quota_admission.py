"""The ResourceBinding webhook's quota check: skip rules, restricted deltas, integer rounding, multi-FRQ."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitops_karmada.core.quota import (
    QUOTA_EXCEEDED,
    AdmissionOperation,
    QuotaCheckOutcome,
    SkipReason,
    is_quota_relevant_change,
    review_binding,
)
from gitops_karmada.model.bindings import ResourceBindingSpec
from gitops_karmada.model.quantity import Quantity
from gitops_karmada.model.quotas import FederatedResourceQuota

CREATE, UPDATE = AdmissionOperation.CREATE, AdmissionOperation.UPDATE
RESOURCE = {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "team", "name": "web"}


def legacy(
    request: dict[str, str], clusters: dict[str, int], replicas: int | None = None
) -> ResourceBindingSpec:
    return ResourceBindingSpec.model_validate(
        {
            "resource": RESOURCE,
            "replicaRequirements": {"resourceRequest": request},
            "replicas": sum(clusters.values()) if replicas is None else replicas,
            "clusters": [{"name": n, "replicas": r} for n, r in clusters.items()],
        }
    )


def flink(clusters: list[str], taskmanagers: int = 2, cpu: str = "1") -> ResourceBindingSpec:
    return ResourceBindingSpec.model_validate(
        {
            "resource": RESOURCE,
            "components": [
                {
                    "name": "jobmanager",
                    "replicas": 1,
                    "replicaRequirements": {"resourceRequest": {"cpu": cpu}},
                },
                {
                    "name": "taskmanager",
                    "replicas": taskmanagers,
                    "replicaRequirements": {"resourceRequest": {"cpu": cpu}},
                },
            ],
            "clusters": [{"name": n} for n in clusters],
        }
    )


def frq(
    overall: dict[str, str], used: dict[str, str] | None = None, name: str = "q"
) -> FederatedResourceQuota:
    document: dict[str, Any] = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "FederatedResourceQuota",
        "metadata": {"name": name, "namespace": "team"},
        "spec": {"overall": overall},
    }
    if used is not None:
        document["status"] = {"overallUsed": used}
    return FederatedResourceQuota.model_validate(document)


def q(values: dict[str, str]) -> dict[str, Quantity]:
    return {name: Quantity.parse(value) for name, value in values.items()}


WIDE = frq({"cpu": "100", "memory": "100Gi"}, {"cpu": "1"})

# -- when the check does not run ----------------------------------------------------------------------------

SKIPS = [
    ("gate-off", False, UPDATE, legacy({"cpu": "1"}, {"m1": 1}), legacy({"cpu": "1"}, {"m1": 50}), [WIDE], SkipReason.GATE_DISABLED),
    ("create-without-clusters", True, CREATE, None, legacy({"cpu": "1"}, {}, replicas=3), [WIDE], SkipReason.NO_CLUSTERS),
    ("replicas-field-only", True, UPDATE, legacy({"cpu": "1"}, {"m1": 1}), legacy({"cpu": "1"}, {"m1": 1}, replicas=9), [WIDE], SkipReason.NO_RELEVANT_CHANGE),
    ("legacy-moved-same-total", True, UPDATE, legacy({"cpu": "1"}, {"m1": 2}), legacy({"cpu": "1"}, {"m2": 1, "m3": 1}), [WIDE], SkipReason.NO_RELEVANT_CHANGE),
    ("request-equal-numerically", True, UPDATE, legacy({"cpu": "1"}, {"m1": 2}), legacy({"cpu": "1000m"}, {"m1": 2}), [WIDE], SkipReason.NO_RELEVANT_CHANGE),
    ("no-frq-in-namespace", True, UPDATE, legacy({"cpu": "1"}, {"m1": 1}), legacy({"cpu": "1"}, {"m1": 2}), [], SkipReason.NO_QUOTA),
    ("components-moved-zero-delta", True, UPDATE, flink(["m1"]), flink(["m2"]), [WIDE], SkipReason.NO_DELTA),
    ("create-with-zero-usage", True, CREATE, None, legacy({"cpu": "0"}, {"m1": 2}), [WIDE], SkipReason.NO_DELTA),
]  # fmt: skip


@pytest.mark.parametrize(
    ("gate", "operation", "old", "new", "frqs", "reason"), [s[1:] for s in SKIPS], ids=[s[0] for s in SKIPS]
)
def test_skip_rules(
    gate: bool,
    operation: AdmissionOperation,
    old: ResourceBindingSpec | None,
    new: ResourceBindingSpec,
    frqs: list[FederatedResourceQuota],
    reason: SkipReason,
) -> None:
    answer = review_binding(operation, old, new, frqs, enforcement=gate)
    assert (answer.allowed, answer.skipped, answer.code, answer.updates) == (True, reason, 200, ())


RELEVANCE = [
    ("same", legacy({"cpu": "1"}, {"m1": 1}), legacy({"cpu": "1"}, {"m1": 1}), False),
    ("legacy-request", legacy({"cpu": "1"}, {"m1": 1}), legacy({"cpu": "2"}, {"m1": 1}), True),
    ("legacy-new-key", legacy({"cpu": "1"}, {"m1": 1}), legacy({"cpu": "1", "memory": "1Gi"}, {"m1": 1}), True),
    ("cluster-replica-sum", legacy({"cpu": "1"}, {"m1": 1}), legacy({"cpu": "1"}, {"m1": 1, "m2": 1}), True),
    ("legacy-cluster-set-only", legacy({"cpu": "1"}, {"m1": 1}), legacy({"cpu": "1"}, {"m2": 1}), False),
    ("components-cluster-set", flink(["m1"]), flink(["m2"]), True),
    ("components-cluster-added", flink(["m1"]), flink(["m1", "m2"]), True),
    ("components-same-clusters-reordered", flink(["m1", "m2"]), flink(["m2", "m1"]), False),
    ("component-replicas", flink(["m1"]), flink(["m1"], taskmanagers=3), True),
    ("component-request", flink(["m1"]), flink(["m1"], cpu="2"), True),
    ("components-appear", legacy({"cpu": "1"}, {"m1": 1}), flink(["m1"]), True),
]  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "relevant"), [r[1:] for r in RELEVANCE], ids=[r[0] for r in RELEVANCE]
)
def test_quota_relevant_fields(old: ResourceBindingSpec, new: ResourceBindingSpec, relevant: bool) -> None:
    assert is_quota_relevant_change(old, new) is relevant


# -- the check itself -------------------------------------------------------------------------------------

DECISIONS = [
    # id, old, new, overall, overallUsed, allowed, written overallUsed (None: not written)
    ("within-limit", legacy({"cpu": "1"}, {"m1": 1}), legacy({"cpu": "1"}, {"m1": 3}), {"cpu": "4"}, {"cpu": "1"}, True, {"cpu": "3"}),
    ("exactly-at-limit", legacy({"cpu": "1"}, {"m1": 1}), legacy({"cpu": "1"}, {"m1": 4}), {"cpu": "4"}, {"cpu": "1"}, True, {"cpu": "4"}),
    ("over-limit", legacy({"cpu": "1"}, {"m1": 1}), legacy({"cpu": "1"}, {"m1": 5}), {"cpu": "4"}, {"cpu": "1"}, False, None),
    ("delta-only-on-overall-keys", legacy({"cpu": "1", "nvidia.com/gpu": "1"}, {"m1": 1}), legacy({"cpu": "1", "nvidia.com/gpu": "1"}, {"m1": 3}), {"cpu": "4"}, {"cpu": "1"}, True, {"cpu": "3"}),
    ("untracked-key-not-compared", legacy({"nvidia.com/gpu": "1"}, {"m1": 1}), legacy({"nvidia.com/gpu": "1"}, {"m1": 9}), {"cpu": "4"}, {"cpu": "1"}, True, None),
    ("requests-prefixed-overall-never-counts", legacy({"cpu": "1"}, {"m1": 1}), legacy({"cpu": "1"}, {"m1": 90}), {"requests.cpu": "4"}, {}, True, None),
    # 1 byte used + 0.4 byte delta: the integer model makes it 2 > 1.5 (exact 1.4 would pass)
    ("rounding-up-denies", legacy({"memory": "400m"}, {"m1": 0}), legacy({"memory": "400m"}, {"m1": 1}), {"memory": "1500m"}, {"memory": "1"}, False, None),
    ("rounding-up-written", legacy({"memory": "400m"}, {"m1": 0}), legacy({"memory": "400m"}, {"m1": 1}), {"memory": "4"}, {"memory": "1"}, True, {"memory": "2"}),
    ("cpu-rounds-to-millicores", legacy({"cpu": "100u"}, {"m1": 0}), legacy({"cpu": "100u"}, {"m1": 1}), {"cpu": "1"}, {"cpu": "10m"}, True, {"cpu": "11m"}),
    ("negative-delta-rounds-away-from-zero", legacy({"memory": "500m"}, {"m1": 1}), legacy({"memory": "500m"}, {"m1": 0}), {"memory": "4"}, {"memory": "3"}, True, {"memory": "2"}),
    ("freed-to-zero-drops-the-key", legacy({"cpu": "1"}, {"m1": 1}), legacy({"cpu": "1"}, {"m1": 0}), {"cpu": "4"}, {"cpu": "1"}, True, {}),
    ("scale-down-refused-while-another-key-is-over", legacy({"memory": "1Gi"}, {"m1": 2}), legacy({"memory": "1Gi"}, {"m1": 1}), {"cpu": "4", "memory": "4Gi"}, {"cpu": "6", "memory": "2Gi"}, False, None),
    ("scale-down-still-over-refused", legacy({"cpu": "1"}, {"m1": 3}), legacy({"cpu": "1"}, {"m1": 2}), {"cpu": "4"}, {"cpu": "6"}, False, None),
    ("scale-down-below-the-limit-allowed", legacy({"cpu": "1"}, {"m1": 3}), legacy({"cpu": "1"}, {"m1": 1}), {"cpu": "4"}, {"cpu": "6"}, True, {"cpu": "4"}),
    ("components-added-cluster-doubles-usage", flink(["m1"]), flink(["m1", "m2"]), {"cpu": "6"}, {"cpu": "3"}, True, {"cpu": "6"}),
    ("components-added-cluster-over", flink(["m1"]), flink(["m1", "m2"]), {"cpu": "5"}, {"cpu": "3"}, False, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "overall", "used", "allowed", "written"),
    [d[1:] for d in DECISIONS],
    ids=[d[0] for d in DECISIONS],
)
def test_decisions(
    old: ResourceBindingSpec,
    new: ResourceBindingSpec,
    overall: dict[str, str],
    used: dict[str, str],
    allowed: bool,
    written: dict[str, str] | None,
) -> None:
    answer = review_binding(UPDATE, old, new, [frq(overall, used)], enforcement=True)
    assert answer.allowed is allowed
    assert answer.skipped is None
    assert answer.code == (200 if allowed else 403)
    assert answer.reason == ("" if allowed else QUOTA_EXCEEDED)
    assert answer.overall_used_after() == ({} if written is None else {"q": q(written)})


def test_denial_message_names_quota_resource_sum_and_limit() -> None:
    answer = review_binding(
        UPDATE,
        legacy({"cpu": "1"}, {"m1": 1}),
        legacy({"cpu": "1"}, {"m1": 5}),
        [frq({"cpu": "4"}, {"cpu": "1"})],
        enforcement=True,
    )
    assert (
        answer.message
        == "FederatedResourceQuota(team/q) exceeded for resource cpu: requested sum 5, limit 4."
    )


def test_scale_down_denial_reports_the_key_that_stays_over() -> None:
    answer = review_binding(
        UPDATE,
        legacy({"memory": "1Gi"}, {"m1": 2}),
        legacy({"memory": "1Gi"}, {"m1": 1}),
        [frq({"cpu": "4", "memory": "4Gi"}, {"cpu": "6", "memory": "2Gi"})],
        enforcement=True,
    )
    assert (
        answer.message
        == "FederatedResourceQuota(team/q) exceeded for resource cpu: requested sum 6, limit 4."
    )
    assert answer.checks[0].prospective == q({"cpu": "6", "memory": "1Gi"})


def test_several_keys_over_report_the_first_by_name() -> None:
    answer = review_binding(
        UPDATE,
        legacy({"cpu": "1", "memory": "1Gi"}, {"m1": 1}),
        legacy({"cpu": "1", "memory": "1Gi"}, {"m1": 9}),
        [frq({"cpu": "4", "memory": "4Gi"}, {})],
        enforcement=True,
    )
    assert "for resource cpu:" in answer.message


# -- several FRQs in the namespace ------------------------------------------------------------------------


def test_every_frq_with_a_delta_is_updated_in_list_order() -> None:
    cpu_quota = frq({"cpu": "10"}, {"cpu": "2"}, name="a-cpu")
    memory_quota = frq({"memory": "10Gi"}, {"memory": "1Gi"}, name="b-memory")
    gpu_quota = frq({"nvidia.com/gpu": "4"}, {}, name="c-gpu")
    answer = review_binding(
        UPDATE,
        legacy({"cpu": "1", "memory": "1Gi"}, {"m1": 1}),
        legacy({"cpu": "1", "memory": "1Gi"}, {"m1": 2}),
        [cpu_quota, memory_quota, gpu_quota],
        enforcement=True,
    )
    assert answer.allowed
    assert [(u.name, u.overall_used) for u in answer.updates] == [
        ("a-cpu", q({"cpu": "3"})),
        ("b-memory", q({"memory": "2Gi"})),
    ]
    assert [c.outcome for c in answer.checks] == [
        QuotaCheckOutcome.WITHIN,
        QuotaCheckOutcome.WITHIN,
        QuotaCheckOutcome.NO_DELTA,
    ]


def test_one_frq_over_denies_the_request_and_writes_none() -> None:
    roomy = frq({"cpu": "10"}, {"cpu": "2"}, name="a-roomy")
    tight = frq({"memory": "1Gi"}, {"memory": "1Gi"}, name="b-tight")
    never_reached = frq({"cpu": "1"}, {"cpu": "5"}, name="c-later")
    answer = review_binding(
        UPDATE,
        legacy({"cpu": "1", "memory": "1Gi"}, {"m1": 1}),
        legacy({"cpu": "1", "memory": "1Gi"}, {"m1": 2}),
        [roomy, tight, never_reached],
        enforcement=True,
    )
    assert not answer.allowed
    assert answer.updates == ()
    assert "FederatedResourceQuota(team/b-tight) exceeded for resource memory" in answer.message
    assert [c.name for c in answer.checks] == ["a-roomy", "b-tight"]


def test_create_counts_the_whole_new_usage() -> None:
    answer = review_binding(
        CREATE,
        None,
        legacy({"cpu": "500m"}, {"m1": 2, "m2": 1}),
        [frq({"cpu": "4"}, {"cpu": "2"})],
        enforcement=True,
    )
    assert answer.allowed
    assert answer.delta == q({"cpu": "1500m"})
    assert answer.overall_used_after() == {"q": q({"cpu": "3500m"})}


def test_update_without_old_spec_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="old_spec"):
        review_binding(UPDATE, None, legacy({"cpu": "1"}, {"m1": 1}), [WIDE], enforcement=True)


def test_admission_to_dict_is_plain_data() -> None:
    answer = review_binding(
        UPDATE,
        legacy({"cpu": "1"}, {"m1": 1}),
        legacy({"cpu": "1"}, {"m1": 5}),
        [frq({"cpu": "4"}, {"cpu": "1"})],
        enforcement=True,
    )
    assert answer.to_dict() == {
        "allowed": False,
        "code": 403,
        "reason": "QuotaExceeded",
        "message": "FederatedResourceQuota(team/q) exceeded for resource cpu: requested sum 5, limit 4.",
        "delta": {"cpu": "4"},
        "quotas": [
            {
                "quota": "team/q",
                "outcome": "exceeded",
                "delta": {"cpu": "4"},
                "prospectiveOverallUsed": {"cpu": "5"},
                "exceeded": "cpu",
            }
        ],
    }


# -- property ---------------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    request_milli=st.integers(1, 3000),
    before=st.integers(0, 6),
    after=st.integers(0, 6),
    used_milli=st.integers(0, 20000),
    limit_milli=st.integers(0, 20000),
)
def test_the_verdict_is_the_limit_check_of_what_would_be_written(
    request_milli: int, before: int, after: int, used_milli: int, limit_milli: int
) -> None:
    """Allowed ⇔ the prospective overallUsed is within the limit; an allowed change never writes above it."""
    request = {"cpu": f"{request_milli}m"}
    quota = frq({"cpu": f"{limit_milli}m"}, {"cpu": f"{used_milli}m"})
    answer = review_binding(
        UPDATE, legacy(request, {"m1": before}), legacy(request, {"m1": after}), [quota], enforcement=True
    )
    if before == after:
        assert answer.skipped is SkipReason.NO_RELEVANT_CHANGE
        return
    prospective = max(used_milli + (after - before) * request_milli, 0)
    assert answer.allowed is (prospective <= limit_milli)
    if answer.allowed:
        written = answer.overall_used_after()["q"].get("cpu", Quantity(0))
        assert written == Quantity.parse(f"{prospective}m") and written <= Quantity.parse(f"{limit_milli}m")
