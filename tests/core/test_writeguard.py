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


def test_a_file_moved_into_its_bucket_folder_is_no_removal() -> None:
    """``output.buckets`` switched on: every file is deleted at its old path and written in its bucket folder
    of the same cluster, which removes nothing (no Namespace leaves, nothing counts for max-deleted)."""
    layout = RepoLayout("clusters", "karmada-state", "cluster-snapshots", buckets=16)
    existing = ["clusters/m1/_cluster/namespace/shop.yaml", "clusters/m1/shop/configmap/a.yaml"]
    changes: dict[str, bytes | None] = {
        "clusters/m1/_cluster/namespace/shop.yaml": None,
        f"clusters/m1/_cluster/namespace/{layout.bucket('shop')}/shop.yaml": b"moved",
        "clusters/m1/shop/configmap/a.yaml": None,
        "clusters/m2/shop/configmap/a.yaml": b"another cluster's",  # not a move of m1's file
    }
    plan = write_plan(previous=(), current=(), existing=existing, changes=changes, layout=layout)
    assert [o.path for o in plan.objects] == ["clusters/m1/shop/configmap/a.yaml"]
    checked = guard(plan, parse_guardrails(("namespace-removed", "max-deleted=0")))
    assert [v.guardrail for v in checked.violations] == ["max-deleted=0"]
