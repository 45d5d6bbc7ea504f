"""Fetch through GitPython with the daemon's credentials: an SSH remote reached through the configured SSH
command (a real script that runs git's server side locally, as sshd would), transfer progress in the log,
and the errors a fetch can meet."""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

import pytest
from loguru import logger

from gitops_karmada.adapters.git_fetch import RemoteAccess
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.model.errors import GitError
from tests.gitrepos import commit_all, git, make_repo

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture
def ssh_remote(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(bare remote, clone whose origin is ssh://fleet.example/<remote>, the SSH command's log)."""
    seed = make_repo(
        tmp_path / "seed", {f"templates/t{i}.yaml": f"kind: ConfigMap\nindex: {i}\n" * 50 for i in range(200)}
    )
    git(tmp_path, "clone", "-q", "--bare", str(seed), "remote.git")
    remote = tmp_path / "remote.git"
    log = tmp_path / "ssh.log"
    ssh = tmp_path / "fake-ssh"
    # what sshd would do: run the command git asks for (git-upload-pack '<path>') on "the host"
    ssh.write_text(f'#!/bin/bash\necho "$@" >> {log}\nexec bash -c "${{@: -1}}"\n')
    ssh.chmod(ssh.stat().st_mode | stat.S_IXUSR)
    git(tmp_path, "clone", "-q", str(remote), "clone")
    clone = tmp_path / "clone"
    git(clone, "remote", "set-url", "origin", f"ssh://fleet.example{remote}")
    # the remote moves on by many objects after the clone, so the fetch has something to transfer
    commit_all(seed, {f"templates/t{i}.yaml": f"kind: ConfigMap\nindex: {i}\n" * 50 for i in range(300)})
    git(seed, "push", "-q", str(remote), "HEAD:main")
    return remote, clone, log


@pytest.fixture
def debug_lines() -> Iterator[list[str]]:
    lines: list[str] = []
    sink = logger.add(lambda message: lines.append(str(message)), level="DEBUG", format="{message}")
    yield lines
    logger.remove(sink)


def test_fetch_and_push_use_the_configured_ssh_command(
    tmp_path: Path, ssh_remote: tuple[Path, Path, Path], debug_lines: list[str]
) -> None:
    remote, clone, log = ssh_remote
    store = GitStore.open(clone, remote_access=RemoteAccess(ssh_command=str(tmp_path / "fake-ssh")))
    tip = store.fetch("origin", "main")
    assert tip == git(remote, "rev-parse", "main")
    assert "fleet.example git-upload-pack" in log.read_text()
    assert any("fetching main from origin:" in line and "%" in line for line in debug_lines)  # progress
    git(clone, "reset", "-q", "--hard", tip)  # the daemon moves its branch to the fetched tip likewise
    pushed = commit_all(clone, {"clusters/member1/web.yaml": "replicas: 3\n"}, message="reconcile")
    store.push("origin", "refs/heads/main", "main")
    assert git(remote, "rev-parse", "main") == pushed
    assert "git-receive-pack" in log.read_text()
    # no refs of the fetch are left behind
    assert git(clone, "for-each-ref", "refs/gitops-karmada/") == ""


def test_without_the_credentials_the_ssh_remote_fails_permanently(
    ssh_remote: tuple[Path, Path, Path],
) -> None:
    _remote, clone, _log = ssh_remote
    env_ssh = os.environ.get("GIT_SSH_COMMAND")
    assert env_ssh is None  # the test's own environment sets none
    store = GitStore.open(clone, remote_access=RemoteAccess(ssh_command="false"))
    with pytest.raises(GitError) as caught:
        store.fetch("origin", "main")
    assert "fetching main from origin" in str(caught.value)


def test_a_missing_remote_or_branch_is_named(ssh_remote: tuple[Path, Path, Path], tmp_path: Path) -> None:
    _remote, clone, _log = ssh_remote
    store = GitStore.open(clone, remote_access=RemoteAccess(ssh_command=str(tmp_path / "fake-ssh")))
    with pytest.raises(GitError, match="has no remote 'upstream'") as no_remote:
        store.fetch("upstream", "main")
    assert not no_remote.value.temporary
    with pytest.raises(GitError, match="origin has no branch release") as no_branch:
        store.fetch("origin", "release")
    assert not no_branch.value.temporary
    with pytest.raises(GitError, match="not a valid branch name"):
        store.fetch("origin", "-x")


def test_remote_access_environment() -> None:
    assert RemoteAccess().environment() == {"GIT_TERMINAL_PROMPT": "0"}
    keyed = RemoteAccess(ssh_key="/keys/deploy key", askpass="/bin/token").environment()
    assert keyed["GIT_SSH_COMMAND"] == "ssh -i '/keys/deploy key' -o IdentitiesOnly=yes -o BatchMode=yes"
    assert keyed["GIT_ASKPASS"] == "/bin/token"
    assert RemoteAccess(ssh_key="k", ssh_command="my-ssh").environment()["GIT_SSH_COMMAND"] == "my-ssh"
