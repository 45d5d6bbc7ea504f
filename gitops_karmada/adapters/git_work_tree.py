"""Keeps checked-out work trees in step when the store moves the branch they show.

Git's own two-tree merge (``git read-tree -m -u <old> <new>``, what ``git checkout`` uses) does the work: it
touches only the paths that differ between the two commits, carries the user's other uncommitted edits over,
and refuses, before changing anything, when an edit or an untracked file is in the way. ``check_can_sync`` is
its dry run, to be called before the ref moves; ``sync_work_tree`` the real run, after it moved.

A process killed between moving the ref and finishing the sync would leave the index at the old commit while
HEAD shows the new one, and the user's next ``git commit`` would quietly revert the reconciler. A small
journal in the work tree's git directory, written before the ref moves and removed after the sync, lets
``finish_interrupted_sync`` complete the job on the next run.
"""

from __future__ import annotations

import json
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_process import GitRunner, git_error, held_lock
from gitops_karmada.adapters.git_tree import SYMLINK_MODE, decode_path, encode_path
from gitops_karmada.model.errors import GitError

if TYPE_CHECKING:
    import subprocess

JOURNAL_NAME = "gitops-karmada-sync.json"
_ABSENT_MODE = "000000"


@dataclass(frozen=True, slots=True)
class WorkTree:
    """One entry of ``git worktree list``: a checkout (or the bare repository itself)."""

    path: Path
    head: str | None
    branch: str | None
    is_bare: bool


@dataclass(frozen=True, slots=True)
class PendingSync:
    """The journal: the work tree at ``path`` must go from commit ``old`` to ``new`` once HEAD is ``new``."""

    old: str
    new: str


def list_work_trees(runner: GitRunner) -> tuple[WorkTree, ...]:
    """Every work tree of the repository, the main one first."""
    output = runner.run(
        ["worktree", "list", "--porcelain", "-z"], operation="worktree list", what="listing work trees"
    ).stdout
    trees = []
    for record in output.split(b"\0\0"):
        fields = [decode_path(field) for field in record.split(b"\0") if field]
        if not fields:
            continue
        attributes = dict(field.partition(" ")[::2] for field in fields)
        trees.append(
            WorkTree(
                path=Path(attributes["worktree"]),
                head=attributes.get("HEAD") or None,
                branch=attributes.get("branch") or None,
                is_bare="bare" in attributes,
            )
        )
    return tuple(trees)


def work_trees_showing(runner: GitRunner, ref: str, current: Path | None) -> tuple[Path, ...]:
    """The work trees whose files follow ``ref``: the branch's checkouts, or ``current`` for ``HEAD``."""
    if ref == "HEAD":
        return (current,) if current is not None else ()
    return tuple(
        tree.path
        for tree in list_work_trees(runner)
        if tree.branch == ref and not tree.is_bare and tree.path.is_dir()
    )


def _refresh_index(runner: GitRunner) -> None:
    # Without a refresh, a file whose stat data changed but whose content did not counts as an edit.
    done = runner.run(
        ["update-index", "-q", "--refresh"],
        operation="update-index",
        what="refreshing the index",
        ok_codes=(0, 1, 128),
    )
    if done.returncode == 128:
        # -q silences git's own lock message: look for the lock ourselves
        lock = Path(
            runner.text(["rev-parse", "--git-path", "index.lock"], operation="rev-parse", what="index lock")
        )
        lock = lock if lock.is_absolute() else runner.root / lock
        what = f"cannot refresh the index of {runner.root}"
        if lock.exists():
            raise git_error("update-index", what, f"Unable to create '{lock}': File exists.")
        if not done.stderr.strip():
            # the lock was there a moment ago and is gone: another git command was at work
            raise GitError(
                "update-index", f"{what}: another git command held {lock} meanwhile; rerun", temporary=True
            )
        raise git_error("update-index", what, done.stderr)


LOCK_WAIT_SECONDS = 10.0
"""How long a work-tree update waits for another git command's index lock before giving up."""


def _refresh_index_waiting(runner: GitRunner) -> None:
    """``_refresh_index``, waiting out a lock that a live git command holds (another run, the user's git)."""
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    pause = 0.02
    while True:
        try:
            _refresh_index(runner)
        except GitError as exc:
            if not exc.temporary or time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
            continue
        return


def _read_tree(runner: GitRunner, args: list[str], what: str) -> subprocess.CompletedProcess[bytes]:
    """``git read-tree ARGS`` (exit 0 or 128), waiting while another git command holds the index lock."""
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    pause = 0.02
    while True:
        done = runner.run(["read-tree", *args], operation="commit", what=what, ok_codes=(0, 128))
        if done.returncode == 0 or held_lock(done.stderr) is None or time.monotonic() + pause > deadline:
            return done
        time.sleep(pause)
        pause = min(pause * 2, 0.5)


def check_can_sync(runner: GitRunner, old: str, new: str) -> None:
    """GitError, with nothing changed, unless the work tree can move from ``old`` to ``new`` keeping edits."""
    _refresh_index_waiting(runner)
    done = _read_tree(runner, ["-m", "-u", "-n", old, new], "checking the work tree")
    if done.returncode != 0:
        if held_lock(done.stderr) is not None:
            raise git_error(
                "commit", f"cannot update the work tree of {runner.root}; nothing was changed", done.stderr
            )
        raise git_error(
            "commit",
            f"uncommitted changes in {runner.root} are in the way of paths the commit changes "
            f"(commit or discard them and rerun; nothing was changed)",
            done.stderr,
        )


def _journal_path(runner: GitRunner) -> Path:
    git_dir = runner.text(
        ["rev-parse", "--absolute-git-dir"], operation="rev-parse", what="finding the git directory"
    )
    return Path(git_dir) / JOURNAL_NAME


def write_journal(runner: GitRunner, pending: PendingSync) -> None:
    """Record, atomically, that the work tree must be synchronised from ``old`` to ``new``."""
    path = _journal_path(runner)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with temporary.open("w", encoding="utf-8") as journal:
        json.dump({"old": pending.old, "new": pending.new}, journal)
        journal.flush()
        os.fsync(journal.fileno())
    temporary.replace(path)


def has_journal(runner: GitRunner) -> bool:
    return _journal_path(runner).exists()


def remove_journal(runner: GitRunner) -> None:
    _journal_path(runner).unlink(missing_ok=True)


def _read_journal(runner: GitRunner) -> PendingSync | None:
    try:
        recorded = json.loads(_journal_path(runner).read_text(encoding="utf-8"))
        return PendingSync(old=str(recorded["old"]), new=str(recorded["new"]))
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError):
        # A journal cut short can only come from a run killed before the ref moved: nothing to finish.
        remove_journal(runner)
        return None


def _changed_paths(runner: GitRunner, old: str, new: str) -> dict[str, tuple[str, str, str, str]]:
    """path → (old mode, new mode, old blob, new blob) for every path that differs between the commits."""
    output = runner.run(
        ["diff-tree", "-r", "-z", "--no-renames", old, new],
        operation="diff-tree",
        what=f"comparing {old} and {new}",
    ).stdout
    fields = output.split(b"\0")
    changed = {}
    for meta, raw_path in zip(fields[0:-1:2], fields[1::2], strict=True):
        old_mode, new_mode, old_blob, new_blob, _status = meta.decode("ascii").lstrip(":").split(" ")
        changed[decode_path(raw_path)] = (old_mode, new_mode, old_blob, new_blob)
    return changed


def _index_entries(runner: GitRunner) -> dict[str, tuple[str, str, str]]:
    """path → (mode, blob, stage) of the index."""
    output = runner.run(["ls-files", "-s", "-z"], operation="ls-files", what="reading the index").stdout
    entries = {}
    for record in output.split(b"\0"):
        if record:
            meta, _, raw_path = record.partition(b"\t")
            mode, blob, stage = meta.decode("ascii").split(" ")
            entries[decode_path(raw_path)] = (mode, blob, stage)
    return entries


def _unfinished_paths(runner: GitRunner, old: str, new: str) -> list[str]:
    """Changed paths whose index entry or file is neither the old nor the new version (a user edit)."""
    changed = _changed_paths(runner, old, new)
    index = _index_entries(runner)
    suspicious, to_hash = [], []
    for path, (old_mode, new_mode, old_blob, new_blob) in changed.items():
        staged = index.get(path)
        index_ok = (staged is None and _ABSENT_MODE in (old_mode, new_mode)) or (
            staged is not None
            and staged[2] == "0"
            and staged[:2] in ((old_mode, old_blob), (new_mode, new_blob))
        )
        try:
            mode = (runner.root / path).lstat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            mode = None
        if not index_ok or SYMLINK_MODE in (old_mode, new_mode) or "\n" in path:
            suspicious.append(path)  # symlinks and multi-line names cannot be hashed below: leave to the user
        elif mode is None:
            if _ABSENT_MODE not in (old_mode, new_mode):
                suspicious.append(path)
        elif stat.S_ISREG(mode):
            to_hash.append(path)
        else:
            suspicious.append(path)
    if to_hash:
        hashed = runner.run(
            ["hash-object", "--stdin-paths"],
            operation="hash-object",
            what="hashing work tree files",
            stdin=b"".join(encode_path(path) + b"\n" for path in to_hash),
        ).stdout.split()
        for path, blob in zip(to_hash, hashed, strict=True):
            if blob.decode("ascii") not in changed[path][2:]:
                suspicious.append(path)
    return sorted(suspicious)


def sync_work_tree(runner: GitRunner, old: str, new: str) -> None:
    """Bring index and files from ``old`` to ``new`` for the changed paths only, keeping other edits.

    When the plain two-tree merge refuses because an earlier run was killed half-way through writing files,
    the changed paths are each still the old or the new version; then a forced two-tree merge finishes the
    job. Anything else is a user edit and is never overwritten.
    """
    _refresh_index_waiting(runner)
    done = _read_tree(runner, ["-m", "-u", old, new], "updating the work tree")
    if done.returncode == 0:
        return
    if held_lock(done.stderr) is not None:
        raise git_error("commit", f"cannot update the work tree of {runner.root}", done.stderr)
    edited = _unfinished_paths(runner, old, new)
    if edited:
        shown = ", ".join(edited[:10]) + (" …" if len(edited) > 10 else "")
        raise git_error(
            "commit",
            f"the branch now points at {new} but {runner.root} still shows {old}, and these paths have edits "
            f"that would be lost: {shown}; save or discard them, then rerun",
            done.stderr,
        )
    forced = _read_tree(runner, ["--reset", "-u", old, new], "finishing the work tree update")
    if forced.returncode != 0:
        raise git_error("commit", f"cannot finish the work tree update of {runner.root}", forced.stderr)


def finish_interrupted_sync(runner: GitRunner) -> None:
    """Complete a work tree update that a killed run left unfinished (no-op without a journal)."""
    pending = _read_journal(runner)
    if pending is None:
        return
    head = runner.run(
        ["rev-parse", "-q", "--verify", "HEAD"], operation="rev-parse", what="reading HEAD", ok_codes=(0, 1)
    )
    # HEAD elsewhere: the run died before moving the ref (or the user has moved on); nothing to finish.
    if head.stdout.decode("ascii").strip() == pending.new:
        try:
            sync_work_tree(runner, pending.old, pending.new)
        except GitError as exc:
            raise GitError(exc.operation, f"finishing an interrupted earlier run: {exc.detail}") from exc
    remove_journal(runner)
