"""GitStore.commit survives SIGKILL anywhere: the ref is at the old or the new commit; a rerun converges.

Run as a script (``python -m tests.adapters.test_git_store_crash <repo> <mode> <parent>``) this module is the
helper process that starts a commit and stops at the requested point until the test kills it.
"""

from __future__ import annotations

import re
import select
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from gitops_karmada.adapters.git_store import CommitStage, GitStore
from gitops_karmada.adapters.git_work_tree import JOURNAL_NAME
from gitops_karmada.model.errors import GitError
from tests.gitrepos import git, make_repo, refs_under, status, write_files

PROJECT_ROOT = Path(__file__).resolve().parents[2]
FILE_COUNT = 400
BLOCK_AT = FILE_COUNT // 2
READY_TIMEOUT_SECONDS = 120
BASE = {
    "clusters/member1/old.yaml": "stale\n",
    "clusters/member1/web.yaml": "replicas: 1\n",
    "README.md": "r\n",
}


def crash_changes() -> dict[str, bytes | None]:
    # ~8 KiB per file: by the blocking file, more than one 1 MiB chunk has reached fast-import.
    changes: dict[str, bytes | None] = {
        f"clusters/member2/app-{index:03}.yaml": f"index: {index}\n".encode() + b"#" * 8192
        for index in range(FILE_COUNT)
    }
    changes["clusters/member1/old.yaml"] = None
    changes["clusters/member1/web.yaml"] = b"replicas: 5\n"
    return changes


def blocking_key() -> str:
    return f"clusters/member2/app-{BLOCK_AT:03}.yaml"


class BlockingChanges(Mapping[str, bytes | None]):
    """The changes, but looking up one file's content announces it and then waits to be killed."""

    def __init__(self, changes: dict[str, bytes | None]) -> None:
        self._changes = changes

    def __getitem__(self, path: str) -> bytes | None:
        if path == blocking_key():
            wait_to_be_killed("mid-stream")
        return self._changes[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._changes)

    def __len__(self) -> int:
        return len(self._changes)


def wait_to_be_killed(announcement: str) -> None:
    print(announcement, flush=True)
    sys.stdin.read()  # the test never writes or closes it: blocks until SIGKILL
    raise SystemExit("the test did not kill the helper")


def helper_main(repo: str, mode: str, parent: str) -> None:
    def pause(stage: CommitStage) -> None:
        if stage.value == mode:
            wait_to_be_killed(stage.value)

    store = GitStore.open(Path(repo), observer=pause)
    changes: Mapping[str, bytes | None] = (
        BlockingChanges(crash_changes()) if mode == "mid-stream" else crash_changes()
    )
    store.commit(parent=parent, ref="refs/heads/main", changes=changes, message="crash test")
    print("finished", flush=True)


def kill_helper_at(repo: Path, mode: str, parent: str) -> None:
    """Start the helper, wait until it announces ``mode``, SIGKILL it."""
    helper = subprocess.Popen(
        [sys.executable, "-m", "tests.adapters.test_git_store_crash", str(repo), mode, parent],
        cwd=PROJECT_ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert helper.stdout is not None and helper.stderr is not None and helper.stdin is not None
    try:
        readable, _, _ = select.select([helper.stdout], [], [], READY_TIMEOUT_SECONDS)
        announced = helper.stdout.readline().decode().strip() if readable else "<nothing>"
        helper.kill()
        helper.wait()
        assert announced == mode, helper.stderr.read().decode(errors="replace")
    finally:
        helper.kill()
        helper.wait()
        for stream in (helper.stdin, helper.stdout, helper.stderr):
            stream.close()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", BASE)


def assert_untouched(repo: Path, parent: str) -> None:
    assert git(repo, "rev-parse", "refs/heads/main") == parent
    assert status(repo) == []
    assert (repo / "clusters/member1/old.yaml").read_text() == "stale\n"
    assert (repo / "clusters/member1/web.yaml").read_text() == "replicas: 1\n"
    assert not (repo / "clusters/member2").exists()


def assert_converged(repo: Path, store: GitStore) -> None:
    assert status(repo) == []
    assert not (repo / ".git" / JOURNAL_NAME).exists()
    assert refs_under(repo, "refs/gitops-karmada/") == []
    expected = {path: content for path, content in crash_changes().items() if content is not None}
    assert store.read_files("HEAD", lambda path: path.startswith("clusters/")) == expected
    assert (repo / "clusters/member1/web.yaml").read_bytes() == b"replicas: 5\n"
    assert not (repo / "clusters/member1/old.yaml").exists()
    assert len(list((repo / "clusters/member2").iterdir())) == FILE_COUNT


@pytest.mark.parametrize(
    ("mode", "leaves_temporary_ref"),
    [
        ("mid-stream", False),
        (CommitStage.OBJECTS_WRITTEN.value, True),
        (CommitStage.WORK_TREE_CHECKED.value, True),
    ],
    ids=["fast-import-input-cut-mid-stream", "after-fast-import-before-update-ref", "after-work-tree-check"],
)
def test_killed_before_the_ref_moves_changes_nothing_and_a_rerun_commits(
    repo: Path, mode: str, leaves_temporary_ref: bool
) -> None:
    parent = git(repo, "rev-parse", "HEAD")
    kill_helper_at(repo, mode, parent)
    assert_untouched(repo, parent)
    assert bool(refs_under(repo, "refs/gitops-karmada/")) is leaves_temporary_ref
    store = GitStore.open(repo)
    new = store.commit(parent=parent, ref="refs/heads/main", changes=crash_changes(), message="rerun")
    assert new is not None
    assert git(repo, "rev-parse", "HEAD") == new
    assert_converged(repo, store)


def kill_after_ref_update(repo: Path) -> tuple[str, str]:
    parent = git(repo, "rev-parse", "HEAD")
    kill_helper_at(repo, CommitStage.REF_UPDATED.value, parent)
    new = git(repo, "rev-parse", "refs/heads/main")
    assert new != parent
    assert git(repo, "rev-parse", f"{new}^") == parent
    assert (repo / ".git" / JOURNAL_NAME).exists()
    assert (repo / "clusters/member1/old.yaml").exists()  # the work tree has not followed yet
    return parent, new


def test_killed_after_the_ref_moved_the_rerun_finishes_the_work_tree(repo: Path) -> None:
    _parent, new = kill_after_ref_update(repo)
    store = GitStore.open(repo)
    assert store.commit(parent=new, ref="refs/heads/main", changes=crash_changes(), message="rerun") is None
    assert git(repo, "rev-parse", "HEAD") == new
    assert_converged(repo, store)


def test_killed_half_way_through_the_work_tree_update_the_rerun_finishes_it(repo: Path) -> None:
    _parent, new = kill_after_ref_update(repo)
    # What a sync killed half-way leaves: some files already new, the index still old.
    write_files(
        repo,
        {
            "clusters/member1/web.yaml": "replicas: 5\n",
            "clusters/member2/app-000.yaml": b"index: 0\n" + b"#" * 8192,
        },
    )
    (repo / "clusters/member1/old.yaml").unlink()
    store = GitStore.open(repo)
    assert store.commit(parent=new, ref="refs/heads/main", changes=crash_changes(), message="rerun") is None
    assert_converged(repo, store)


def test_user_edit_after_the_crash_is_never_overwritten(repo: Path) -> None:
    _parent, new = kill_after_ref_update(repo)
    write_files(repo, {"clusters/member1/web.yaml": "edited by the user\n"})
    store = GitStore.open(repo)
    with pytest.raises(GitError, match=re.escape("clusters/member1/web.yaml")):
        store.commit(parent=new, ref="refs/heads/main", changes=crash_changes(), message="rerun")
    assert (repo / "clusters/member1/web.yaml").read_text() == "edited by the user\n"
    assert git(repo, "rev-parse", "HEAD") == new
    assert (repo / ".git" / JOURNAL_NAME).exists()
    # Once the user puts the file back, the next run finishes the job.
    git(repo, "checkout", "--", "clusters/member1/web.yaml")
    assert store.commit(parent=new, ref="refs/heads/main", changes=crash_changes(), message="rerun") is None
    assert_converged(repo, store)


if __name__ == "__main__":
    helper_main(*sys.argv[1:])
