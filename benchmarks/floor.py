"""The floors of a first reconcile, measured beside it in the same run (issue 38).

``python -m benchmarks.floor BARE REV [--loose] [--repeat N]`` prints the seconds of each try, one a line.

* **The true floor**: the rendered tree of REV (its ``clusters/`` folder) rebuilt with nothing a run does
  but writing it: each *distinct* content emitted once with the project's YAML emitter and sent once to one
  ``git fast-import`` stream as a marked blob, then one commit whose every path points at its content's
  mark. No loading, matching, scheduling or overriding; no file emitted or sent twice.
* **The loose floor** (``--loose``; issue 12's): every file emitted and sent, however many are alike, through
  the project's own commit path (``GitStore.commit``). A run that sends each distinct content once can beat
  it, which says the floor is loose, not that the run is fast.

The documents are parsed before the clock starts, in the process that measures (run it in a process of its
own, as the benchmarks do, so the tree it holds never inflates a later child's peak memory).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_fast_import import quote_path
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.shard_store import output_view
from gitops_karmada.core.codecs.serialize import dump_yaml_documents, load_yaml_documents
from gitops_karmada.core.layout import RepoLayout

if TYPE_CHECKING:
    from collections.abc import Sequence

RENDERED = "clusters"
TRUE_FLOOR = "true floor: each distinct content emitted and sent once, one fast-import commit"
LOOSE_FLOOR = "loose floor (issue 12): every file emitted and sent"
BY_FLOOR = "÷ true floor (its fastest try)"
"""How the history names a first reconcile's ratio to the floor: ``f"{step} {BY_FLOOR}"``."""
IDENTITY = b"floor <floor@example.invalid> 0 +0000"
_FLUSH_BYTES = 1 << 20
FLOOR_TRIES = 3
"""At least this many tries of a floor in a run, all in one process (the tree parsed once): a floor is what
the machine does at best, so a benchmark divides by the fastest try. At a small fleet the floor is tens of
milliseconds, and one try's noise alone would double the ratio to it."""


@dataclass(frozen=True)
class RenderedTree:
    """The rendered files of one commit: each distinct content's documents, and the paths holding it."""

    documents: dict[str, tuple[bytes, list[object]]]
    """By the content's blob id: its leading comment lines (the provenance header, kept as bytes) and its
    parsed documents (emitted again by the floor)."""
    paths: dict[str, list[str]]
    """By the content's blob id: every path that holds it."""

    @property
    def files(self) -> int:
        return sum(len(paths) for paths in self.paths.values())


@dataclass(frozen=True)
class FloorRun:
    seconds: float
    commit: str
    blobs_sent: int
    paths_written: int


def read_rendered(bare: Path, rev: str) -> RenderedTree:
    """The regular files under ``clusters/`` of ``rev`` (of its shards, in a sharded output mode), grouped by
    content."""
    store = GitStore.open(bare)
    view = output_view(store, store.resolve(rev), RepoLayout.default())
    paths: dict[str, list[str]] = {}
    for entry in store.list_entries(view.rev, [RENDERED]):
        if entry.is_regular_file:
            paths.setdefault(entry.oid, []).append(entry.path)
    blobs = store.read_blobs(list(paths))
    documents = {
        oid: (_header(blobs[oid]), [d.body for d in load_yaml_documents(blobs[oid])]) for oid in paths
    }
    return RenderedTree(documents, paths)


def _header(content: bytes) -> bytes:
    """The comment lines a rendered file starts with (``# Rendered by gitops-karmada from ...``)."""
    end = 0
    while content.startswith(b"#", end):
        end = content.index(b"\n", end) + 1
    return content[:end]


def new_bare(target: Path) -> Path:
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run(["git", "init", "-q", "--bare", str(target)], check=True)
    return target


def true_floor(
    tree: RenderedTree, target: Path, ref: str = "refs/heads/floor", *, shards: bool = False
) -> FloorRun:
    """Emit each distinct content of ``tree`` once, send it once, and commit every path in one fast-import
    stream into the bare repository ``target``; the seconds from the first emission to fast-import's end.
    ``shards``: one commit per cluster instead, on its own branch (``clusters/<cluster>``) with the cluster's
    files at its root: the floor of ``branch-per-cluster`` output."""
    start = time.perf_counter()
    importer = subprocess.Popen(
        ["git", "fast-import", "--quiet"], cwd=target, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
    )
    assert importer.stdin is not None
    chunk = bytearray(b"feature done\n")
    marks: list[tuple[list[str], int]] = []
    for mark, (oid, (header, documents)) in enumerate(tree.documents.items(), start=1):
        content = header + dump_yaml_documents(documents).encode()
        chunk += b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(content), content)
        marks.append((tree.paths[oid], mark))
        if len(chunk) > _FLUSH_BYTES:
            importer.stdin.write(chunk)
            chunk.clear()
    commits: dict[str, list[tuple[str, int]]] = {}
    for paths, mark in marks:
        for path in paths:
            if shards:
                cluster, _, inside = path.removeprefix(RENDERED + "/").partition("/")
                commits.setdefault(f"refs/heads/clusters/{cluster}", []).append((inside, mark))
            else:
                commits.setdefault(ref, []).append((path, mark))
    message = b"true floor\n"
    for branch, files in sorted(commits.items()):
        chunk += b"commit %s\nauthor %s\ncommitter %s\ndata %d\n%s" % (
            branch.encode(),
            IDENTITY,
            IDENTITY,
            len(message),
            message,
        )
        for path, mark in files:
            chunk += b"M 100644 :%d %s\n" % (mark, quote_path(path))
            if len(chunk) > _FLUSH_BYTES:
                importer.stdin.write(chunk)
                chunk.clear()
        chunk += b"\n"
    chunk += b"done\n"
    importer.stdin.write(chunk)
    importer.stdin.close()
    if importer.wait() != 0:
        raise RuntimeError(f"git fast-import exited {importer.returncode}")
    seconds = time.perf_counter() - start
    commit = subprocess.run(
        ["git", "rev-parse", min(commits)], cwd=target, capture_output=True, text=True, check=True
    ).stdout.strip()
    return FloorRun(seconds, commit, len(marks), tree.files)


def loose_floor(tree: RenderedTree, target: Path) -> FloorRun:
    """Issue 12's floor: every file of ``tree`` emitted and sent, through the project's commit path."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "floor",
        "GIT_AUTHOR_EMAIL": "floor@example.invalid",
        "GIT_COMMITTER_NAME": "floor",
        "GIT_COMMITTER_EMAIL": "floor@example.invalid",
    }

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=target, env=env, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    empty = git("commit-tree", git("hash-object", "-t", "tree", "-w", "/dev/null"), "-m", "empty")
    git("update-ref", "refs/heads/main", empty)
    sink = GitStore.open(target)
    documents = [(path, tree.documents[oid]) for oid, paths in tree.paths.items() for path in paths]
    start = time.perf_counter()
    files = {path: header + dump_yaml_documents(docs).encode() for path, (header, docs) in documents}
    commit = sink.commit(parent=empty, ref="refs/heads/main", changes=files, message="floor")
    seconds = time.perf_counter() - start
    return FloorRun(seconds, commit or empty, len(files), len(files))


def measure_in_subprocess(
    bare: Path, rev: str, *, loose: bool = False, repeat: int = 1, shards: bool = False
) -> list[float]:
    """The floor's seconds, ``repeat`` tries but at least ``FLOOR_TRIES``, in a process of its own (see the
    module's docstring)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.floor",
            str(bare),
            rev,
            "--repeat",
            str(max(repeat, FLOOR_TRIES)),
            *(["--loose"] if loose else []),
            *(["--shards"] if shards else []),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return [float(line) for line in done.stdout.split()]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("bare", type=Path, help="a bare repository holding a reconciled commit")
    parser.add_argument("rev", help="the reconciled commit whose clusters/ folder is rebuilt")
    parser.add_argument("--loose", action="store_true", help="issue 12's floor: every file emitted and sent")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--shards", action="store_true", help="one branch per cluster (branch-per-cluster)")
    args = parser.parse_args(argv)
    tree = read_rendered(args.bare, args.rev)
    target = args.bare.parent / f"{args.bare.name}-floor-{os.getpid()}.git"
    try:
        for _ in range(args.repeat):
            run = (
                loose_floor(tree, new_bare(target))
                if args.loose
                else true_floor(tree, new_bare(target), shards=args.shards)
            )
            print(f"{run.seconds:.4f}", flush=True)
    finally:
        shutil.rmtree(target, ignore_errors=True)


if __name__ == "__main__":
    main()
