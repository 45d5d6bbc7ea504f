"""``--fail-on`` guardrails: the accepted spellings and the changes that violate them."""

from __future__ import annotations

import pytest

from gitops_karmada.core.diff import Guardrail, GuardrailKind, GuardrailSyntaxError, compare, parse_guardrails
from tests.action.diffdata import binding, side

D = "Deployment"


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        (["cluster-emptied"], ("cluster-emptied",)),
        (["replicas-moved>25%"], ("replicas-moved>25%",)),
        (["replicas-moved=25"], ("replicas-moved>25%",)),
        (["Replicas-Moved > 10 %"], ("replicas-moved>10%",)),
        (["unschedulable, quota-blocked", "failed"], ("unschedulable", "quota-blocked", "failed")),
        (["unschedulable,unschedulable", ""], ("unschedulable",)),
        (
            ["workload-removed, namespace-removed", "max-deleted=20"],
            ("workload-removed", "namespace-removed", "max-deleted=20"),
        ),
    ],
    ids=[
        "emptied",
        "moved",
        "moved-equals",
        "spaces-and-case",
        "comma-and-repeat",
        "duplicates-and-empty",
        "deletion-guards",
    ],
)
def test_parse(specs: list[str], expected: tuple[str, ...]) -> None:
    assert tuple(str(g) for g in parse_guardrails(specs)) == expected


@pytest.mark.parametrize(
    "spec",
    [
        "replicas-moved",
        "replicas-moved>101%",
        "emptied",
        "replicas-moved>x%",
        "max-deleted",
        "max-deleted>5%",
    ],
    ids=[
        "moved-without-threshold",
        "over-100",
        "unknown",
        "not-a-number",
        "deleted-without-count",
        "deleted-percent",
    ],
)
def test_parse_rejects(spec: str) -> None:
    with pytest.raises(GuardrailSyntaxError, match=r"is not a known guardrail|must be at most 100"):
        parse_guardrails([spec])


def _tree(clusters: dict[str, int]) -> dict[str, bytes]:
    return {
        f"clusters/{c}/shop/configmap/cfg-{i}.yaml": b"apiVersion: v1\nkind: ConfigMap\n"
        for c, n in clusters.items()
        for i in range(n)
    }


@pytest.mark.parametrize(
    ("guardrail", "subjects"),
    [
        (Guardrail(GuardrailKind.CLUSTER_EMPTIED), ["m3"]),
        (Guardrail(GuardrailKind.REPLICAS_MOVED, 30), ["Deployment.apps/shop/web"]),
        (Guardrail(GuardrailKind.REPLICAS_MOVED, 40), []),
        (Guardrail(GuardrailKind.UNSCHEDULABLE), ["Deployment.apps/shop/new"]),
        (Guardrail(GuardrailKind.QUOTA_BLOCKED), ["Deployment.apps/shop/quota"]),
        (Guardrail(GuardrailKind.FAILED), []),
    ],
    ids=["emptied", "moved-over-30", "moved-not-over-40", "unschedulable-new-only", "quota", "failed-none"],
)
def test_violations(guardrail: Guardrail, subjects: list[str]) -> None:
    unschedulable = ("False", "Unschedulable", "0/3 clusters are available")
    base = side(
        "base",
        binding(D, "shop", "web", {"m1": 4, "m2": 2, "m3": 2}),
        binding(D, "shop", "old", {"m1": 1}, scheduled=unschedulable),
        tree=_tree({"m1": 2, "m3": 2}),
    )
    head = side(
        "head",
        binding(D, "shop", "web", {"m1": 3, "m2": 5}),  # 3 of 8 replicas move: 37.5 %
        binding(D, "shop", "old", {"m1": 1}, scheduled=unschedulable),
        binding(D, "shop", "new", {}, scheduled=unschedulable),
        binding(D, "shop", "quota", {}, scheduled=("False", "QuotaExceeded", "exceeded for resource cpu")),
        tree=_tree({"m1": 2}),
    )
    diff = compare(base, head, [guardrail])
    assert [v.subject for v in diff.violations] == subjects
    assert all(v.guardrail == str(guardrail) for v in diff.violations)
    assert diff.fail_on == (str(guardrail),)


def test_exactly_the_threshold_is_not_more() -> None:
    base = side("base", binding(D, "shop", "web", {"m1": 4, "m2": 4}))
    head = side("head", binding(D, "shop", "web", {"m1": 2, "m2": 6}))  # 2 of 8 = 25 %
    assert compare(base, head, parse_guardrails(["replicas-moved>25%"])).violations == ()
    assert len(compare(base, head, parse_guardrails(["replicas-moved>24%"])).violations) == 1
