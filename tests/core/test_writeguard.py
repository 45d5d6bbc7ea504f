"""The write guard's plan: what a commit does to each cluster folder, from the changed paths alone."""

from __future__ import annotations

from gitops_karmada.core.diff import ChangeKind, parse_guardrails
from gitops_karmada.core.diff.writeguard import guard, write_plan
from gitops_karmada.core.layout import RepoLayout

EXISTING = [
    "clusters/m1/apps/a.yaml",
    "clusters/m1/apps/b.yaml",
    "clusters/m1/v1/Namespace/shop.yaml",
    "clusters/m2/apps/a.yaml",
    "clusters/m2/apps/b.yaml",
    "README.md",
]


def test_the_plan_counts_every_change_and_lists_the_removed_files() -> None:
    changes: dict[str, bytes | None] = {
        "clusters/m1/apps/a.yaml": b"changed",
        "clusters/m1/apps/c.yaml": b"new",
        "clusters/m1/v1/Namespace/shop.yaml": None,
        "clusters/m2/apps/a.yaml": None,
        "clusters/m2/apps/b.yaml": None,
        "clusters/m2/apps/gone-already.yaml": None,  # not there: nothing to remove
        "clusters/m3/apps/a.yaml": b"new",
        "karmada-state/index/shop.json": b"{}",  # outside the cluster folders
    }
    plan = write_plan(
        previous=(), current=(), existing=EXISTING, changes=changes, layout=RepoLayout.default()
    )
    counts = {
        c.cluster: (c.objects_before, c.objects_after, c.added, c.modified, c.removed) for c in plan.clusters
    }
    assert counts == {"m1": (3, 3, 1, 1, 1), "m2": (2, 0, 0, 0, 2), "m3": (0, 1, 1, 0, 0)}
    assert [(o.path, o.change) for o in plan.objects] == [
        ("clusters/m1/v1/Namespace/shop.yaml", ChangeKind.REMOVED),
        ("clusters/m2/apps/a.yaml", ChangeKind.REMOVED),
        ("clusters/m2/apps/b.yaml", ChangeKind.REMOVED),
    ]
    checked = guard(plan, parse_guardrails(("cluster-emptied", "max-deleted=2")))
    assert sorted(v.guardrail for v in checked.violations) == ["cluster-emptied", "max-deleted=2"]
    assert [v.subject for v in checked.violations if v.guardrail == "cluster-emptied"] == ["m2"]
