"""``trace PATH`` end to end: a rendered file's template, policy, overrides and source commit."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tests.cli.test_lifecycle_fleet import WEB_PATH, WEB_RECORD, change, shop_fleet, web_policy
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

MEMBER2_WEB = WEB_PATH.format(cluster="member2")


def test_trace_names_template_policy_overrides_and_the_source_commit_of_the_last_change(
    tmp_path: Path,
) -> None:
    repo = shop_fleet(tmp_path)
    source = change(repo, {"policies/web.yaml": web_policy({"member1": 1, "member2": 1})}, "even out web")

    trace = json.loads(repo.cli("trace", MEMBER2_WEB, "-o", "json").stdout)

    assert trace["writtenByTool"] is True
    assert trace["cluster"] == "member2"
    assert trace["template"] == "Deployment.apps/shop/web"
    assert trace["source"] == "apps/web.yaml[0]"
    assert trace["policy"] == "PropagationPolicy shop/web"
    assert trace["record"] == WEB_RECORD
    assert trace["overrides"] == [
        {"kind": "OverridePolicy", "namespace": "shop", "name": "eu-label", "overriders": ["labelsOverrider"]}
    ]
    assert trace["lastChange"]["commit"] == repo.head()
    assert trace["lastChange"]["byTool"] is True
    assert trace["sourceCommit"]["commit"] == source
    assert trace["sourceCommit"]["subject"] == "even out web"
    assert trace["notes"] == []


def test_trace_text_of_an_unchanged_file_points_at_the_commit_that_last_rendered_it(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    initial = git(repo.path, "rev-parse", "HEAD~1")
    change(repo, {"apps/other.yaml": {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}}, "x")
    settings = "clusters/member3/shop/configmap/settings.yaml"

    done = repo.cli("trace", str(repo.path / settings))

    lines = done.stdout.splitlines()
    assert lines[0] == settings
    assert lines[1].startswith("  # Rendered by gitops-karmada from apps/settings.yaml[0]")
    assert "  policy:         ClusterPropagationPolicy configs" in lines
    assert "  overrides:      -" in lines
    assert any(line.startswith(f"  source commit:  {initial[:12]} ") for line in lines)


def test_trace_says_when_a_file_was_edited_by_hand_or_is_hand_written(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    repo.write(MEMBER2_WEB, repo.read(MEMBER2_WEB) + "# tweaked\n")
    hand = "clusters/member3/shop/deployment.apps/web.yaml"
    repo.write(hand, "kind: Deployment\n")
    edit = repo.commit("hand edits")

    edited = json.loads(repo.cli("trace", MEMBER2_WEB, "-o", "json").stdout)
    assert edited["lastChange"]["commit"] == edit
    assert edited["sourceCommit"] is None
    assert edited["notes"] == [f"edited by hand after rendering, in {edit[:12]}: run gitops-karmada verify"]

    mine = json.loads(repo.cli("trace", hand, "-o", "json").stdout)
    assert mine["writtenByTool"] is False
    assert mine["header"] is None
    assert mine["notes"] == ["no record says gitops-karmada wrote this file: it is hand-written"]


def test_trace_rejects_paths_that_are_not_rendered_manifests(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    assert "not a rendered manifest path" in repo.cli("trace", "apps/web.yaml", check=1).stderr
    assert "does not exist" in repo.cli("trace", WEB_PATH.format(cluster="member9"), check=1).stderr
