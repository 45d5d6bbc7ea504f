"""Issue 12: a run's rendered files streamed into the object database as they are made, one fast-import per
process, so the run does not hold the whole fleet; the commit names them by id."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from typing import TYPE_CHECKING

import pytest
from loguru import logger

from benchmarks.fleet import write_fleet
from gitops_karmada.adapters.fork_pool import ForkPool
from gitops_karmada.adapters.git_blob_stream import BlobStream
from gitops_karmada.adapters.git_process import GitRunner
from gitops_karmada.core.file_changes import StoredBlob
from gitops_karmada.model.errors import GitError
from tests.adapters.conftest import FILES, plain_reconcile_tree
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from gitops_karmada.adapters.git_store import GitStore


def _missing(store: GitStore, oids: set[str]) -> set[str]:
    """The ids not in the object database (one ``cat-file --batch-check``)."""
    assert store.work_tree is not None
    done = subprocess.run(
        ["git", "-C", str(store.work_tree), "cat-file", "--batch-check"],
        input="".join(f"{oid}\n" for oid in sorted(oids)).encode(),
        capture_output=True,
        check=True,
    )
    return {line.split()[0] for line in done.stdout.decode().splitlines() if line.endswith(" missing")}


def test_stored_files_are_named_by_id_and_give_the_plain_commits_tree(store: GitStore) -> None:
    assert store.work_tree is not None
    parent = git(store.work_tree, "rev-parse", "HEAD")
    git(store.work_tree, "branch", "plain", parent)
    stream = store.blob_stream(min_files=1)
    ids = stream(FILES)
    assert ids is not None and set(ids) == set(FILES)
    assert all(ids[path] == store.blob_id(content) for path, content in FILES.items())
    stream.seal()
    assert not _missing(store, set(ids.values()))

    named = store.commit(
        parent=parent,
        ref="refs/heads/main",
        changes={path: StoredBlob(oid) for path, oid in ids.items()},
        message="stored",
    )
    plain = store.commit(parent=parent, ref="refs/heads/plain", changes=FILES, message="plain")
    assert named is not None and plain is not None
    assert git(store.work_tree, "rev-parse", f"{named}^{{tree}}") == git(
        store.work_tree, "rev-parse", f"{plain}^{{tree}}"
    )


def test_files_are_held_until_the_process_has_been_offered_enough(store: GitStore) -> None:
    """A small change is left to the commit: no fast-import is started for it."""
    stream = store.blob_stream(min_files=len(FILES) + 10)
    assert stream(FILES) is None
    assert stream({"clusters/m0/apps/last.yaml": b"v: last\n"}) is None
    more = {f"clusters/m9/apps/g{i}.yaml": f"w: {i}\n".encode() for i in range(10)}
    ids = stream(more)
    assert ids is not None and set(ids) == set(more), "the files that cross the threshold are stored"
    stream.seal()
    assert not _missing(store, set(ids.values()))
    assert _missing(store, {store.blob_id(c) for c in FILES.values()}) == {
        store.blob_id(c) for c in FILES.values()
    }, "what was left held was not written"


def test_a_stream_whose_git_fails_is_refused_at_the_seal(tmp_path: Path) -> None:
    """fast-import cannot write (no repository at all): the seal raises with git's reason; nothing stored
    can be vouched for, so the run fails before its commit."""
    stream = BlobStream(GitRunner(tmp_path), lambda content: hashlib.sha1(content).hexdigest(), min_files=1)
    with pytest.raises(GitError, match=r"(?i)fast-import.*not a git repository"):
        stream(FILES)
        stream.seal()


def test_a_closed_stream_kills_its_fast_import_and_seals_nothing(store: GitStore) -> None:
    stream = store.blob_stream(min_files=1)
    ids = stream(FILES)
    assert ids is not None
    stream.close()
    stream.seal()  # nothing left to seal: a no-op, not an error
    assert _missing(store, set(ids.values())) == set(ids.values()), "killed before its pack was written"


Stored = list[tuple[int, dict[str, str] | None]]
"""Per item: the process that stored its file, and the ids the stream returned."""


def _store_in_every_process(stream: BlobStream) -> Callable[[Sequence[int]], Stored]:
    def work(items: Sequence[int]) -> Stored:
        time.sleep(0.002 * len(items))  # long enough that every process takes slices before they run out
        return [
            (os.getpid(), stream({f"clusters/c{i % 3}/apps/a{i}.yaml": f"item: {i}\n".encode()}))
            for i in items
        ]

    return work


def test_each_forked_process_streams_into_its_own_fast_import_sealed_before_it_exits(store: GitStore) -> None:
    stream = store.blob_stream(min_files=1)
    pool = ForkPool(workers=3, min_per_worker=1, with_threads=True, finish=stream.seal)
    items = list(range(600))

    found = pool(_store_in_every_process(stream), items)
    stream.seal()

    assert len({pid for pid, _ids in found}) >= 2, "children stored files too"
    oids: set[str] = set()
    for (_pid, ids), item in zip(found, items, strict=True):
        assert ids is not None
        assert ids == {f"clusters/c{item % 3}/apps/a{item}.yaml": store.blob_id(f"item: {item}\n".encode())}
        oids.update(ids.values())
    assert not _missing(store, oids), "every child sealed its stream before the parent read its results"


def test_a_child_whose_stream_cannot_be_sealed_has_all_its_slices_redone_here(store: GitStore) -> None:
    """A child's stored blobs are trusted only once its stream is sealed: when that fails, every slice the
    child delivered is redone in this process, whose own stream then holds the blobs."""
    parent = os.getpid()
    stream = store.blob_stream(min_files=1)

    def seal_fails_in_children() -> None:
        if os.getpid() != parent:
            raise GitError("fast-import", "writing the run's files into the object database: disk full")
        stream.seal()

    lines: list[str] = []
    sink = logger.add(lambda message: lines.append(str(message)), level="WARNING", format="{message}")
    try:
        pool = ForkPool(workers=2, min_per_worker=1, with_threads=True, finish=seal_fails_in_children)
        found = pool(_store_in_every_process(stream), list(range(400)))
    finally:
        logger.remove(sink)
    stream.seal()

    assert {pid for pid, _ids in found} == {parent}, "nothing of the child's is kept"
    assert len(lines) == 1
    assert "a worker process failed on" in lines[0] and "disk full; they are redone" in lines[0]
    assert not _missing(store, {oid for _pid, ids in found if ids for oid in ids.values()})


def test_a_first_reconcile_over_two_processes_streams_its_files_and_reads_back(tmp_path: Path) -> None:
    """Through the CLI, forked over two processes: each streams the files it renders, the commit names them
    by id, ``verify`` passes, ``git fsck`` finds every object, and the tree is the one a commit sending every
    file itself makes of the same run."""
    root = tmp_path / "fleet"
    write_fleet(root, 800, 400, 10)
    repo = FleetRepo.create(root)
    twin = tmp_path / "twin"
    git(tmp_path, "clone", "-q", str(root), str(twin))
    done = repo.cli_process(  # forks: a process of its own (the test process runs threads)
        "--log-level", "debug", "--logging-format", "json", "reconcile", env={"GITOPS_KARMADA_WORKERS": "2"}
    )
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    streamed = [line for line in lines if "streamed into the object database" in line["msg"]]
    assert len({line["pid"] for line in streamed}) == 2, "the run's process and its child both streamed"
    assert sum(line["files"] for line in streamed) >= 4_000
    repo.cli("verify")
    git(root, "fsck", "--no-progress", "--connectivity-only")

    assert plain_reconcile_tree(twin) == git(root, "rev-parse", "HEAD^{tree}")
