"""Blobs written ahead of the commit: the commit names them by id and has the tree a plain commit has."""

from __future__ import annotations

import hashlib
import json
import subprocess
from typing import TYPE_CHECKING

from loguru import logger

from benchmarks.fleet import write_karmada_fleet
from gitops_karmada.adapters.git_blob_writer import WRITE_AHEAD_FILES, BlobWriter
from gitops_karmada.adapters.git_process import GitRunner
from tests.adapters.conftest import FILES, plain_reconcile_tree
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

    from gitops_karmada.adapters.git_store import GitStore


def _exists(store: GitStore, oid: str) -> bool:
    assert store.work_tree is not None
    done = subprocess.run(["git", "-C", str(store.work_tree), "cat-file", "-e", oid], check=False)
    return done.returncode == 0


def test_files_written_ahead_are_named_by_id_and_give_the_plain_commits_tree(store: GitStore) -> None:
    assert store.work_tree is not None
    parent = git(store.work_tree, "rev-parse", "HEAD")
    git(store.work_tree, "branch", "plain", parent)
    writer = store.blob_writer(min_files=1)
    writer(FILES)
    written = writer.written()
    assert set(written) == set(FILES)
    assert all(content is FILES[path] and _exists(store, oid) for path, (content, oid) in written.items())
    assert len({oid for _, oid in written.values()}) == 7

    ahead = store.commit(
        parent=parent, ref="refs/heads/main", changes=FILES, message="ahead", written=written
    )
    plain = store.commit(parent=parent, ref="refs/heads/plain", changes=FILES, message="plain")
    assert ahead is not None and plain is not None
    assert git(store.work_tree, "rev-parse", f"{ahead}^{{tree}}") == git(
        store.work_tree, "rev-parse", f"{plain}^{{tree}}"
    )


def test_too_few_files_are_left_to_the_commit(store: GitStore) -> None:
    writer = store.blob_writer(min_files=len(FILES) + 1)
    writer(FILES)
    assert writer.written() == {}
    assert not any(_exists(store, store.blob_id(content)) for content in FILES.values())


def test_a_closed_writer_vouches_for_nothing_and_the_commit_sends_the_contents(store: GitStore) -> None:
    assert store.work_tree is not None
    writer = store.blob_writer(min_files=1)
    writer(FILES)
    writer.close()
    assert writer.written() == {}
    parent = git(store.work_tree, "rev-parse", "HEAD")
    commit = store.commit(parent=parent, ref="refs/heads/main", changes=FILES, message="m", written={})
    assert git(store.work_tree, "show", f"{commit}:clusters/m1/apps/f001.yaml") == "v: 1"


def test_a_writer_whose_git_fails_is_named_and_vouches_for_nothing(tmp_path: Path) -> None:
    """fast-import cannot write (here: there is no repository at all): a warning says so and names git's
    reason, and the commit is left to send every file itself."""
    messages: list[str] = []
    sink = logger.add(lambda message: messages.append(str(message)), level="WARNING")
    try:
        writer = BlobWriter(
            GitRunner(tmp_path), lambda content: hashlib.sha1(content).hexdigest(), min_files=1
        )
        writer(FILES)
        assert writer.written() == {}
        assert writer.written() == {}  # asked again: the same answer
    finally:
        logger.remove(sink)
    assert len(messages) == 1
    assert f"writing {len(FILES)} file(s) ahead of the commit failed" in messages[0]
    assert "not a git repository" in messages[0].lower()


def test_a_path_whose_content_is_not_the_one_written_is_sent(store: GitStore) -> None:
    """Only the very content written is named by id: a path given other bytes since commits those."""
    assert store.work_tree is not None
    writer = store.blob_writer(min_files=1)
    writer(FILES)
    written = writer.written()
    path = "clusters/m0/apps/f000.yaml"
    changes = {**FILES, path: b"v: changed\n"}
    parent = git(store.work_tree, "rev-parse", "HEAD")
    commit = store.commit(parent=parent, ref="refs/heads/main", changes=changes, message="m", written=written)
    assert git(store.work_tree, "show", f"{commit}:{path}") == "v: changed"


def test_a_first_reconcile_writes_its_files_ahead_and_reads_back(tmp_path: Path) -> None:
    """Through the CLI: a first run of more files than the threshold writes them ahead of its commit. The
    commit verifies, and its tree is the one a commit sending every file itself makes of the same run."""
    root = tmp_path / "fleet"
    write_karmada_fleet(root, 400, 200, 20)
    repo = FleetRepo.create(root)
    twin = tmp_path / "twin"
    git(tmp_path, "clone", "-q", str(root), str(twin))
    done = repo.cli("--log-level", "debug", "--logging-format", "json", "reconcile", "-o", "json")
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    ahead = [line for line in lines if "written ahead of the commit" in line["msg"]]
    assert len(ahead) == 1 and ahead[0]["files"] >= WRITE_AHEAD_FILES
    repo.cli("verify")

    assert plain_reconcile_tree(twin) == git(root, "rev-parse", "HEAD^{tree}")


def test_a_runs_blob_ids_are_remembered_by_content_object(store: GitStore) -> None:
    """``remembered_blob_id`` answers as ``blob_id`` does, for equal contents in different objects too."""
    blob_id = store.remembered_blob_id()
    first, twin, other = b"v: 1\n", bytes(bytearray(b"v: 1\n")), b"v: 2\n"
    assert first is not twin
    for content in (first, twin, other, first):
        assert blob_id(content) == store.blob_id(content)
    assert blob_id(first) != blob_id(other)
