"""``output.buckets`` end to end: a fleet in bucket folders reconciles, verifies, diffs, traces and lists
as one without, and switching the layout on or off moves every file in one commit (no object leaves its
cluster, so no removal is named and no guardrail stops it)."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from tests.builders import cpp_doc, deployment
from tests.cli.test_lifecycle_fleet import shop_fleet

if TYPE_CHECKING:
    from pathlib import Path


def bucket(name: str, digits: int) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:digits]


WEB_BUCKETED = f"clusters/member1/shop/deployment.apps/{bucket('web', 1)}/web.yaml"
WEB_RECORD_BUCKETED = f"karmada-state/bindings/shop/deployment.apps/{bucket('web', 1)}/web.yaml"
NAMESPACE_BUCKETED = f"clusters/member1/_cluster/namespace/{bucket('shop', 1)}/shop.yaml"


def test_switching_buckets_moves_every_file_and_the_bucketed_fleet_works_with_every_verb(
    tmp_path: Path,
) -> None:
    repo = shop_fleet(tmp_path, reconciled=False)
    repo.write("apps/namespace.yaml", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})
    repo.write("policies/namespaces.yaml", cpp_doc("namespaces", [{"apiVersion": "v1", "kind": "Namespace"}]))
    repo.commit("the shop namespace everywhere")
    repo.cli("reconcile")
    before = repo.tree("clusters/")
    assert "clusters/member1/shop/deployment.apps/web.yaml" in before
    repo.write(
        "gitops-karmada.yaml",
        {"apiVersion": "gitops-karmada.io/v1alpha1", "kind": "Config", "output": {"buckets": 16}},
    )
    switched = repo.commit("bucket the output")

    # a move, not a removal: every object stays in its cluster, so no guardrail stops it
    moved = json.loads(repo.cli("reconcile", "-o", "json").stdout)
    assert moved["outcome"] == "committed"
    assert moved["removals"] == [] and moved["violations"] == []
    move = repo.head()
    assert move != switched
    after = repo.tree("clusters/")
    assert len(after) == len(before)
    assert WEB_BUCKETED in after and NAMESPACE_BUCKETED in after
    assert all(path.count("/") == 5 for path in after), after  # clusters/member/ns/kind/bucket/name.yaml
    assert WEB_RECORD_BUCKETED in repo.tree("karmada-state/bindings/")
    assert repo.status() == ""

    repo.cli("verify")
    repo.cli("verify", "--full")
    assert "up to date" in repo.cli("reconcile").stdout

    # a change in the bucketed fleet: diffed by template, committed in place, traced and listed
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=8))
    repo.commit("more replicas")
    diff = json.loads(repo.cli("diff", "-o", "json", "--base", "HEAD~1", "--head", "HEAD", check=1).stdout)
    paths = {o["path"]: o for o in diff["manifests"]}
    assert WEB_BUCKETED in paths
    assert paths[WEB_BUCKETED]["template"] == "Deployment.apps/shop/web"
    repo.cli("reconcile")
    assert set(repo.tree("clusters/")) == set(after)
    repo.cli("verify")
    trace = json.loads(repo.cli("trace", WEB_BUCKETED, "-o", "json").stdout)
    assert trace["template"] == "Deployment.apps/shop/web"
    assert trace["writtenByTool"] is True
    assert "web" in repo.cli("get", "rb", "-n", "shop", "-o", "name").stdout
    # the record's history runs through the move: one update there, not a deletion and a creation
    history = json.loads(repo.cli("history", "Deployment/shop/web", "-o", "json").stdout)
    assert history["record"] == WEB_RECORD_BUCKETED
    changes = [(c["commit"], c["change"]) for c in history["changes"]]
    assert changes.count((move, "updated")) == 1 and len(changes) == len({c for c, _ in changes})

    described = repo.cli("describe", "Deployment.apps/shop/web").stdout
    assert described.count(move[:12]) == 1  # its events, the move among them
    # a rollback inside the bucketed layout restores the bucketed files
    repo.cli("rollback", move)
    assert "replicas: 3" in repo.read(WEB_BUCKETED)
    repo.cli("verify")

    # a guardrail reads bucketed paths: the namespace leaving every cluster is refused
    repo.delete("apps/namespace.yaml")
    repo.commit("drop the namespace")
    refused = json.loads(repo.cli("reconcile", "-o", "json", check=3).stdout)
    assert {v["guardrail"] for v in refused["violations"]} == {"namespace-removed"}
    repo.write("apps/namespace.yaml", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})
    repo.commit("keep the namespace")

    # and off again: the files move back, with the same permission
    repo.write("gitops-karmada.yaml", {"apiVersion": "gitops-karmada.io/v1alpha1", "kind": "Config"})
    repo.commit("no buckets")
    repo.cli("reconcile")
    assert "clusters/member1/shop/deployment.apps/web.yaml" in repo.tree("clusters/")
    repo.cli("verify")
    refused = repo.cli("rollback", move, check=None)
    assert refused.returncode != 0 and "output.buckets differs" in refused.stderr
