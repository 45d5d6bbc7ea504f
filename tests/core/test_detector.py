"""The detector's decision rules (spec §1.1-1.5), one table row per rule."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from gitops_karmada.core.defaults import permanent_id
from gitops_karmada.core.detector import ClaimState, PolicyIndex, match_policy
from gitops_karmada.model import wellknown
from gitops_karmada.model.base import ObjectMeta
from gitops_karmada.model.bindings import ObjectReference, ResourceBinding, ResourceBindingSpec
from tests.builders import cpp, deployment, manifest, pp

if TYPE_CHECKING:
    from gitops_karmada.model.policies import AnyPropagationPolicy

DEPLOY = {"apiVersion": "apps/v1", "kind": "Deployment"}
BY_NAME = {**DEPLOY, "name": "web"}
BY_LABEL = {**DEPLOY, "labelSelector": {"matchLabels": {"app": "web"}}}
EMPTY_LABEL_SELECTOR = {**DEPLOY, "labelSelector": {}}


def web() -> Any:
    return manifest(deployment("web", "shop", labels={"app": "web"}))


def claimed_by(policy: AnyPropagationPolicy) -> ResourceBinding:
    if policy.is_cluster_scoped:
        labels = {wellknown.CPP_PERMANENT_ID_LABEL: permanent_id(policy)}
        annotations = {wellknown.CPP_NAME_ANNOTATION: policy.name}
    else:
        labels = {wellknown.PP_PERMANENT_ID_LABEL: permanent_id(policy)}
        annotations = {
            wellknown.PP_NAME_ANNOTATION: policy.name,
            wellknown.PP_NAMESPACE_ANNOTATION: policy.namespace,
        }
    return unclaimed_binding().model_copy(
        update={
            "metadata": ObjectMeta(
                name="web-deployment", namespace="shop", labels=labels, annotations=annotations
            )
        }
    )


def unclaimed_binding() -> ResourceBinding:
    return ResourceBinding(
        metadata=ObjectMeta(name="web-deployment", namespace="shop"),
        spec=ResourceBindingSpec(
            resource=ObjectReference(api_version="apps/v1", kind="Deployment", namespace="shop", name="web")
        ),
    )


@dataclass
class Row:
    id: str
    policies: list[AnyPropagationPolicy]
    expected_state: ClaimState
    expected_policy: str | None
    previous_claim: str | None = None
    """Name of the policy the previous binding was claimed by (from ``claim_pool`` or ``policies``)."""
    claim_pool: list[AnyPropagationPolicy] = field(default_factory=list)
    orphan_binding: bool = False
    preemption: bool = False


ROWS = [
    Row(
        "pp-beats-cpp-whatever-priority",
        [pp("low", "shop", [BY_LABEL], priority=-5), cpp("high", [BY_NAME], priority=100)],
        ClaimState.FRESH,
        "low",
    ),
    Row(
        "cpp-when-no-pp-in-namespace",
        [pp("other-ns", "default", [DEPLOY]), cpp("fleet", [DEPLOY])],
        ClaimState.FRESH,
        "fleet",
    ),
    Row(
        "explicit-priority-dominates-implicit",
        [pp("by-name", "shop", [BY_NAME], priority=-1), pp("by-label", "shop", [BY_LABEL])],
        ClaimState.FRESH,
        "by-label",
    ),
    Row(
        "name-beats-label",
        [pp("b-name", "shop", [BY_NAME]), pp("a-label", "shop", [BY_LABEL])],
        ClaimState.FRESH,
        "b-name",
    ),
    Row(
        "label-beats-kind-only",
        [pp("b-label", "shop", [BY_LABEL]), pp("a-kind", "shop", [DEPLOY])],
        ClaimState.FRESH,
        "b-label",
    ),
    Row(
        "empty-label-selector-beats-kind-only",
        [pp("b-empty", "shop", [EMPTY_LABEL_SELECTOR]), pp("a-kind", "shop", [DEPLOY])],
        ClaimState.FRESH,
        "b-empty",
    ),
    Row(
        "tie-goes-to-smaller-name",
        [pp("zeta", "shop", [DEPLOY]), pp("alpha", "shop", [DEPLOY])],
        ClaimState.FRESH,
        "alpha",
    ),
    Row(
        "max-over-selectors",
        [pp("b", "shop", [DEPLOY, BY_NAME]), pp("a", "shop", [BY_LABEL])],
        ClaimState.FRESH,
        "b",
    ),
    Row(
        "name-selector-ignores-its-label-selector",
        [pp("named", "shop", [{**BY_NAME, "labelSelector": {"matchLabels": {"app": "other"}}}])],
        ClaimState.FRESH,
        "named",
    ),
    Row(
        "pp-never-selects-another-namespace",
        [pp("elsewhere", "default", [BY_NAME])],
        ClaimState.UNMATCHED,
        None,
    ),
    Row(
        "wrong-api-version-never-matches",
        [pp("beta", "shop", [{"apiVersion": "apps/v1beta1", "kind": "Deployment"}])],
        ClaimState.UNMATCHED,
        None,
    ),
    Row(
        "claim-is-sticky",
        [pp("old", "shop", [DEPLOY]), pp("better", "shop", [BY_NAME], priority=10)],
        ClaimState.STICKY,
        "old",
        previous_claim="old",
    ),
    Row(
        "deleted-policy-releases-claim-and-rematches",
        [pp("next", "shop", [DEPLOY])],
        ClaimState.FRESH,
        "next",
        previous_claim="gone",
        claim_pool=[pp("gone", "shop", [DEPLOY])],
    ),
    Row(
        "unselecting-policy-releases-claim",
        [pp("old", "shop", [{**DEPLOY, "name": "other"}]), pp("next", "shop", [DEPLOY])],
        ClaimState.FRESH,
        "next",
        previous_claim="old",
    ),
    Row("deleted-policy-orphans-binding", [], ClaimState.ORPHANED, None, orphan_binding=True),
    Row(
        "unclaimed-previous-binding-is-claimed-again",
        [pp("new", "shop", [DEPLOY])],
        ClaimState.FRESH,
        "new",
        orphan_binding=True,
    ),
    Row(
        "preemption-needs-the-gate",
        [pp("old", "shop", [DEPLOY]), pp("strong", "shop", [BY_NAME], priority=5, preemption="Always")],
        ClaimState.STICKY,
        "old",
        previous_claim="old",
    ),
    Row(
        "pp-preempts-pp-with-higher-priority",
        [pp("old", "shop", [DEPLOY]), pp("strong", "shop", [BY_NAME], priority=5, preemption="Always")],
        ClaimState.PREEMPTED,
        "strong",
        previous_claim="old",
        preemption=True,
    ),
    Row(
        "equal-priority-never-preempts",
        [
            pp("old", "shop", [DEPLOY], priority=5),
            pp("strong", "shop", [BY_NAME], priority=5, preemption="Always"),
        ],
        ClaimState.STICKY,
        "old",
        previous_claim="old",
        preemption=True,
    ),
    Row(
        "preemption-only-by-name",
        [pp("old", "shop", [DEPLOY]), pp("strong", "shop", [BY_LABEL], priority=5, preemption="Always")],
        ClaimState.STICKY,
        "old",
        previous_claim="old",
        preemption=True,
    ),
    Row(
        "preemption-never-by-a-never-policy",
        [pp("old", "shop", [DEPLOY]), pp("strong", "shop", [BY_NAME], priority=5)],
        ClaimState.STICKY,
        "old",
        previous_claim="old",
        preemption=True,
    ),
    Row(
        "pp-preempts-cpp-regardless-of-priority",
        [
            cpp("fleet", [DEPLOY], priority=100),
            pp("local", "shop", [BY_NAME], priority=-100, preemption="Always"),
        ],
        ClaimState.PREEMPTED,
        "local",
        previous_claim="fleet",
        preemption=True,
    ),
    Row(
        "cpp-never-preempts-pp",
        [pp("local", "shop", [DEPLOY]), cpp("fleet", [BY_NAME], priority=100, preemption="Always")],
        ClaimState.STICKY,
        "local",
        previous_claim="local",
        preemption=True,
    ),
    Row(
        "cpp-preempts-cpp-with-higher-priority",
        [cpp("old", [DEPLOY]), cpp("strong", [BY_NAME], priority=1, preemption="Always")],
        ClaimState.PREEMPTED,
        "strong",
        previous_claim="old",
        preemption=True,
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_detector_rule(row: Row) -> None:
    pps = [p for p in row.policies if not p.is_cluster_scoped]
    cpps = [p for p in row.policies if p.is_cluster_scoped]
    index = PolicyIndex.build(pps, cpps)  # type: ignore[arg-type]
    previous = None
    if row.previous_claim is not None:
        claimed = next(p for p in [*row.policies, *row.claim_pool] if p.name == row.previous_claim)
        previous = claimed_by(claimed)
    elif row.orphan_binding:
        previous = unclaimed_binding()
    decided = match_policy(web(), index, previous, preemption_enabled=row.preemption)
    assert decided.state is row.expected_state, decided.reason
    assert (decided.policy.name if decided.policy else None) == row.expected_policy


def test_recreated_policy_with_another_permanent_id_releases_the_claim() -> None:
    old = pp("web", "shop", [DEPLOY])
    recreated = pp("web", "shop", [DEPLOY]).model_copy(
        update={
            "metadata": ObjectMeta(
                name="web", namespace="shop", labels={wellknown.PP_PERMANENT_ID_LABEL: "new-id"}
            )
        }
    )
    decided = match_policy(
        web(), PolicyIndex.build([recreated], []), claimed_by(old), preemption_enabled=False
    )
    assert decided.state is ClaimState.FRESH
    assert "no longer exists" in decided.released_claim


@pytest.mark.parametrize(
    ("overrides", "state"),
    [(frozenset(), ClaimState.WAITING), (frozenset({("shop", "needed")}), ClaimState.FRESH)],
    ids=["missing-dependent-override-waits", "present-dependent-override-applies"],
)
def test_dependent_overrides(overrides: frozenset[tuple[str, str]], state: ClaimState) -> None:
    policy = pp("web", "shop", [DEPLOY], dependentOverrides=["needed"])
    decided = match_policy(
        web(),
        PolicyIndex.build([policy], []),
        None,
        preemption_enabled=False,
        existing_override_policies=overrides,
    )
    assert decided.state is state


@pytest.mark.parametrize(
    ("labels", "policies", "state"),
    [
        ({}, [], ClaimState.NAMESPACE_SYNC),
        ({wellknown.NAMESPACE_SKIP_AUTO_PROPAGATION_LABEL: "true"}, [], ClaimState.UNMATCHED),
        ({}, [cpp("namespaces", [{"apiVersion": "v1", "kind": "Namespace"}])], ClaimState.FRESH),
    ],
    ids=["namespace-synced-everywhere", "skip-auto-propagation", "cpp-claims-namespace"],
)
def test_namespace_sync(labels: dict[str, str], policies: list[Any], state: ClaimState) -> None:
    namespace = manifest(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "labels": labels}}
    )
    decided = match_policy(namespace, PolicyIndex.build([], policies), None, preemption_enabled=False)
    assert decided.state is state


def test_a_synced_namespace_stays_synced_on_later_runs() -> None:
    namespace = manifest({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})
    previous = unclaimed_binding()
    decided = match_policy(namespace, PolicyIndex.build([], []), previous, preemption_enabled=False)
    assert decided.state is ClaimState.NAMESPACE_SYNC


def test_claimed_by_another_controller_is_ignored() -> None:
    body = deployment("web", "shop", labels={wellknown.CLAIMED_BY_LABEL: "multiclusterservice"})
    decided = match_policy(
        manifest(body), PolicyIndex.build([pp("p", "shop", [DEPLOY])], []), None, preemption_enabled=False
    )
    assert decided.state is ClaimState.IGNORED


def test_the_reason_explains_the_win() -> None:
    policies = [pp("by-name", "shop", [BY_NAME], priority=-1), pp("by-label", "shop", [BY_LABEL])]
    decided = match_policy(web(), PolicyIndex.build(policies, []), None, preemption_enabled=False)
    assert "higher explicit priority (0 > -1 of by-name)" in decided.reason
    assert [c.policy.name for c in decided.candidates] == ["by-label", "by-name"]
