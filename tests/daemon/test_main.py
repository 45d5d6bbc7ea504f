"""The daemon's assembly from its settings, in process on real repositories: the branch it keeps, the
mistakes refused before anything starts, and which threads each mode gets (built, not started)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.daemon.main import assemble, worker_settings
from gitops_karmada.daemon.settings import DaemonSettings, SettingsError
from gitops_karmada.model.errors import UsageError
from gitops_karmada.usecases.collect import Member
from tests.cli.test_lifecycle_fleet import shop_fleet
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path


def test_the_checked_out_branch_is_kept_and_remote_mode_always_pushes(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    store = GitStore.open(repo.path)
    local = worker_settings(store, DaemonSettings(repo.path, interval=5, allow=frozenset({"all"})))
    assert (local.branch, local.ref, local.push, local.interval, local.allow) == (
        "main",
        "refs/heads/main",
        False,
        5,
        frozenset({"all"}),
    )
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo.path), str(clone))
    settings = DaemonSettings(clone, branch="main", remote="origin")
    remote = worker_settings(GitStore.open(clone), settings)
    assert (remote.remote, remote.push, settings.mode) == ("origin", True, "remote")


def test_a_detached_head_a_missing_branch_and_a_foreign_upstream_are_refused(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    store = GitStore.open(repo.path)
    git(repo.path, "checkout", "-q", "--detach")
    with pytest.raises(SettingsError, match="HEAD is detached: name the branch with --branch") as raised:
        worker_settings(store, DaemonSettings(repo.path))
    assert isinstance(raised.value, UsageError)
    with pytest.raises(SettingsError, match=r"--branch nowhere: .* has no commit on it"):
        worker_settings(store, DaemonSettings(repo.path, branch="nowhere"))
    # a remote that does not exist is named as such, not with an upstream hint that cannot work
    with pytest.raises(SettingsError, match=r"--remote origin: .* has no such remote \(it has no remote\)"):
        worker_settings(store, DaemonSettings(repo.path, branch="main", remote="origin"))
    git(repo.path, "remote", "add", "mirror", str(tmp_path / "elsewhere.git"))
    with pytest.raises(SettingsError, match=r"no such remote \(its remotes are mirror\); add it with"):
        worker_settings(store, DaemonSettings(repo.path, branch="main", remote="no-such-remote"))
    with pytest.raises(SettingsError, match="git branch --set-upstream-to=mirror/main main"):
        worker_settings(store, DaemonSettings(repo.path, branch="main", remote="mirror"))


def test_each_mode_gets_its_threads(tmp_path: Path) -> None:
    repo = shop_fleet(tmp_path)
    store = GitStore.open(repo.path)
    quiet = DaemonSettings(repo.path, remote="origin", listen=None)
    remote = assemble(store, quiet, worker_settings(store, DaemonSettings(repo.path)))
    assert (remote.server, remote.collect_loop, remote.watcher) == (None, None, None)
    member = Member("member1", tmp_path / "kubeconfig")
    busy = DaemonSettings(repo.path, listen=None, members=(member,), collect_interval=7, collect_timeout=3)
    local = assemble(store, busy, worker_settings(store, busy))
    assert local.watcher is not None and local.collect_loop is not None
    assert (local.collect_loop.settings.members, local.collect_loop.settings.interval) == ((member,), 7)
    assert local.collect_loop.settings.stop_bound > 3
    snapshot = local.worker.status.read()
    assert (snapshot.branch, snapshot.mode, snapshot.repository) == (
        "main",
        "local",
        str(repo.path.resolve()),
    )


def test_it_listens_on_loopback_unless_told_otherwise() -> None:
    from pathlib import Path

    from gitops_karmada.cli.watch import _listen_address, watch_command

    [listen] = [p for p in watch_command.params if p.name == "listen"]
    assert listen.default == "127.0.0.1:8080"
    assert DaemonSettings(Path("fleet")).listen == ("127.0.0.1", 8080)
    assert _listen_address(":9000") == ("127.0.0.1", 9000), "a port alone is a loopback port"
