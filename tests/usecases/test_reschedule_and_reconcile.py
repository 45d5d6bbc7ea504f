"""``reschedule`` and ``reconcile``'s choice of run as use cases, in process: the templates chosen on the
current run, the one commit, and what a dry run, a push and an input error give."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.model.errors import GitError, NotFoundError
from gitops_karmada.usecases.reconcile import reconcile_rev
from gitops_karmada.usecases.reschedule import reschedule
from tests.cli.test_lifecycle_fleet import WEB_RECORD, shop_fleet, web_policy
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

SETTINGS_RECORD = "karmada-state/bindings/shop/configmap/settings.yaml"


def test_the_named_templates_are_divided_afresh_in_one_commit(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    before = repo.commit_count()
    done = reschedule(GitStore.open(repo.path), "HEAD", ["Deployment/shop/web"])
    assert done.current.input_ok and done.reconciled is not None
    assert done.reconciled.commit == repo.head() and repo.commit_count() == before + 1
    assert git(repo.path, "log", "-1", "--format=%s") == "gitops-karmada: reschedule Deployment.apps/shop/web"
    assert "rescheduleTriggeredAt" in repo.load(WEB_RECORD)["spec"]
    assert "rescheduleTriggeredAt" not in repo.load(SETTINGS_RECORD)["spec"], "only the template named"


def test_a_dry_run_of_every_template_commits_nothing(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    head = repo.head()
    done = reschedule(GitStore.open(repo.path), "HEAD", everything=True, dry_run=True)
    assert done.reconciled is not None and done.reconciled.commit is None
    assert {WEB_RECORD, SETTINGS_RECORD} <= set(done.reconciled.changes)
    assert repo.head() == head


def test_an_unknown_template_is_not_found_and_an_input_error_reschedules_nothing(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    store = GitStore.open(repo.path)
    with pytest.raises(NotFoundError, match="no template 'Deployment/shop/gone'"):
        reschedule(store, "HEAD", ["Deployment/shop/gone"])
    repo.write("policies/web.yaml", "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\n")
    head = repo.commit("a policy without a name")
    done = reschedule(store, "HEAD", ["Deployment/shop/web"])
    assert done.reconciled is None and not done.current.input_ok
    assert any(d.is_error for d in done.current.diagnostics)
    assert repo.head() == head


def test_reconcile_reads_a_dry_run_as_is_and_commits_on_the_branch_otherwise(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    repo.write("policies/web.yaml", web_policy({"member1": 2, "member2": 2}))
    source = repo.commit("even out web")
    store = GitStore.open(repo.path)
    dry = reconcile_rev(store, "HEAD", dry_run=True)
    assert (dry.commit, dry.source, repo.head()) == (None, source, source)
    assert dry.changes, "the dry run saw what would change"
    done = reconcile_rev(store, "main", message="even out web, reconciled")
    assert done.commit == repo.head() and done.source == source
    assert git(repo.path, "log", "-1", "--format=%s") == "even out web, reconciled"
    with pytest.raises(GitError, match="has no upstream"):
        reconcile_rev(store, "HEAD", push=True)
    assert reconcile_rev(store, "HEAD").up_to_date is not None
