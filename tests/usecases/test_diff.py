"""``diff``'s base side when none is given, in process: the merge-base with the upstream branch (or
``origin/HEAD``), and a usage error when there is neither."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.model.errors import UsageError
from gitops_karmada.usecases.diff import NoUpstreamError, compare_sides, default_base
from tests.cli.test_lifecycle_fleet import shop_fleet, web_policy
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path


def test_the_default_base_is_where_the_branch_left_its_upstream(tmp_path: Path) -> None:
    origin = shop_fleet(tmp_path)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin.path), str(clone))
    work = FleetRepo(clone)
    work.write("policies/web.yaml", web_policy({"member1": 2, "member2": 2}))
    work.commit("even out web")
    store = GitStore.open(clone)
    assert default_base(store, "HEAD") == origin.head()
    plan = compare_sides(clone, None, None, None, None)
    assert plan.base == origin.head()[:12] and plan.has_changes
    assert [w.template for w in plan.workloads] == ["Deployment.apps/shop/web"]


def test_no_upstream_and_no_origin_is_a_usage_error_naming_the_way_out(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    with pytest.raises(NoUpstreamError, match="give --base REV") as raised:
        compare_sides(repo.path, None, None, None, None)
    assert isinstance(raised.value, UsageError)
    assert not compare_sides(repo.path, "HEAD", None, None, None).has_changes
