"""``reconcile --push``: push to the upstream; on a race, fetch, re-render on the new tip and retry."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

from tests.builders import deployment
from tests.cli.test_reconcile import shop
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path


def shop_remote(tmp_path: Path) -> Path:
    """A bare remote holding the shop fleet, as a team's Git server would."""
    origin = shop(tmp_path)
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(origin.path), str(remote))
    return remote


def clone(remote: Path, path: Path) -> FleetRepo:
    git(remote.parent, "clone", "-q", str(remote), str(path))
    return FleetRepo(path)


def test_push_publishes_the_reconcile_commit(tmp_path: Path) -> None:
    remote = shop_remote(tmp_path)
    work = clone(remote, tmp_path / "work")
    work.cli("reconcile", "--push")
    assert git(remote, "rev-parse", "main") == work.head()
    assert "Rendered-By" in git(remote, "log", "-1", "--format=%B", "main")


def test_push_race_is_resolved_by_rerendering_on_the_fetched_tip(tmp_path: Path) -> None:
    remote = shop_remote(tmp_path)
    ci = clone(remote, tmp_path / "ci")
    dev = clone(remote, tmp_path / "dev")
    # the developer pushes a scale-up after CI checked out
    dev.write("apps/web.yaml", deployment("web", "shop", replicas=8))
    dev.commit("scale web to 8")
    git(dev.path, "push", "-q", "origin", "main")
    done = ci.cli("reconcile", "--push")
    assert "(pushed)" in done.stdout
    assert "push rejected" in done.stderr
    tip = git(remote, "rev-parse", "main")
    assert git(remote, "rev-parse", "main~1") == dev.head(), "the reconcile commit sits on the developer's"
    rendered = git(remote, "show", f"{tip}:clusters/member1/shop/deployment.apps/web.yaml")
    assert "replicas: 6" in rendered, "rendered from the new tip (8 replicas, 3:1 → 6/2)"
    assert ci.head() == tip and ci.status() == ""


def test_push_never_drops_a_users_unpushed_commit(tmp_path: Path) -> None:
    remote = shop_remote(tmp_path)
    ci = clone(remote, tmp_path / "ci")
    dev = clone(remote, tmp_path / "dev")
    dev.write("apps/other.yaml", deployment("other", "shop"))
    dev.commit("other app")
    git(dev.path, "push", "-q", "origin", "main")
    ci.write("apps/local.yaml", deployment("local", "shop"))
    local_commit = ci.commit("local unpushed work")
    done = ci.cli("reconcile", "--push", check=1)
    assert "have diverged" in done.stderr
    assert git(ci.path, "cat-file", "-t", local_commit) == "commit"
    assert git(ci.path, "merge-base", "--is-ancestor", local_commit, "HEAD") == ""


def test_push_without_upstream_is_a_clear_error(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    done = repo.cli("reconcile", "--push", check=1)
    assert "has no upstream" in done.stderr


def test_the_module_entry_point_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gitops_karmada", "--version"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ},
    )
    assert done.stdout.startswith("gitops-karmada, version ")


def test_push_when_already_up_to_date_says_so(tmp_path: Path) -> None:
    remote = shop_remote(tmp_path)
    work = clone(remote, tmp_path / "work")
    work.cli("reconcile", "--push")
    again = work.cli("reconcile", "--push")
    assert "up to date: nothing reconcile reads changed" in again.stdout
    assert "(pushed)" in again.stdout
    assert git(remote, "rev-parse", "main") == work.head()
