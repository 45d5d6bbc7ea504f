"""``simulate`` as a use case, in process on the example fleet: a cluster down runs the failover
controllers forward to the scenario's end, nothing is written, and a scenario or a commit that cannot be
simulated is an error of its own class."""

from __future__ import annotations

import shutil
from datetime import timedelta
from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.core.failover.what_if import ScenarioError
from gitops_karmada.model.errors import UsageError
from gitops_karmada.usecases.reconcile import reconcile_ref
from gitops_karmada.usecases.simulate import Scenario, UnknownTargetError, UnrenderableCommitError, simulate
from tests.action.scenarios import REPO_LAYOUT
from tests.cli.test_failover import T0
from tests.cli.test_failover_walkthrough import flink_cluster
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FleetRepo:
    """The example fleet, reconciled; every commit at ``T0`` (the simulation starts at the commit's time)."""
    stamp = f"{int(T0.timestamp())} +0000"
    monkeypatch.setenv("GIT_AUTHOR_DATE", stamp)
    monkeypatch.setenv("GIT_COMMITTER_DATE", stamp)
    shutil.copytree(REPO_LAYOUT, tmp_path / "fleet")
    repo = FleetRepo.create(tmp_path / "fleet")
    assert reconcile_ref(GitStore.open(repo.path), "refs/heads/main").commit is not None
    return repo


def test_a_cluster_down_is_evicted_from_once_its_toleration_ends_and_nothing_is_written(
    fleet: FleetRepo,
) -> None:
    home = flink_cluster(fleet)
    head = fleet.head()
    store = GitStore.open(fleet.path)
    simulation = simulate(store, "HEAD", Scenario(down=(home,), after="10m"))
    evicted = [e for e in simulation.timeline if e.action == "evicted"]
    assert evicted and {e.cluster for e in evicted} == {home}
    assert min(e.at for e in evicted) == (T0 + timedelta(seconds=300)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert simulation.runs > 1 and simulation.plan.has_changes
    assert simulation.plan.base.endswith("(now)") and simulation.plan.head.startswith("simulated at ")
    assert (fleet.head(), fleet.status()) == (head, "")
    tolerated = simulate(store, "HEAD", Scenario(down=(home,)))
    assert (tolerated.runs, tolerated.plan.has_changes) == (1, False), "the toleration has not run out yet"


def test_a_scenario_naming_no_cluster_of_the_inventory_is_a_usage_error(fleet: FleetRepo) -> None:
    with pytest.raises(UnknownTargetError, match="--cluster-down: no cluster 'nowhere' in the inventory"):
        simulate(GitStore.open(fleet.path), "HEAD", Scenario(down=("nowhere",)))
    assert issubclass(UnknownTargetError, UsageError)
    with pytest.raises(ScenarioError):
        simulate(GitStore.open(fleet.path), "HEAD", Scenario(after="soon"))


def test_a_commit_with_input_errors_is_not_simulated_and_its_errors_are_told(fleet: FleetRepo) -> None:
    fleet.write("policies/broken.yaml", "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\n")
    fleet.commit("a policy without a name")
    with pytest.raises(UnrenderableCommitError) as raised:
        simulate(GitStore.open(fleet.path), "HEAD", Scenario())
    assert raised.value.diagnostics and all(d.is_error for d in raised.value.diagnostics)
    assert any(
        d.source is not None and d.source.path == "policies/broken.yaml" for d in raised.value.diagnostics
    )
