"""One read of the fleet: ``gitops-karmada.yaml`` is parsed once per run, and once per content in a process
that runs many times (the daemon), whichever steps of the run ask for it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.core.inputs.config_file import _load_config
from gitops_karmada.usecases.reconcile import reconcile_ref
from tests.builders import configmap, cpp_doc
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from pathlib import Path

CONFIG = "apiVersion: gitops-karmada.io/v1alpha1\nkind: Config\nexclude: [notes/*]\n"


def test_a_reconcile_parses_the_configuration_once_and_a_later_one_not_again(tmp_path: Path) -> None:
    policy = cpp_doc("all", [{"apiVersion": "v1", "kind": "ConfigMap"}])
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {"gitops-karmada.yaml": CONFIG, "p.yaml": policy, "a.yaml": configmap("a")},
        clusters=2,
    )
    store = GitStore.open(repo.path)
    _load_config.cache_clear()
    first = reconcile_ref(store, "refs/heads/main")
    assert first.commit is not None
    # every step of the run (the up-to-date check, the read of the commit, the change history) asked for it
    assert _load_config.cache_info().misses == 1
    repo.write("b.yaml", configmap("b"))
    repo.commit("another ConfigMap")
    second = reconcile_ref(store, "refs/heads/main")
    assert second.commit is not None
    assert _load_config.cache_info().misses == 1  # same content: not parsed again
    assert _load_config.cache_info().hits >= 3
