"""The Git adapter: reads a commit's files into memory and writes a whole result as one atomic commit.

Reads use ``git ls-tree -r -z`` and one streaming ``git cat-file --batch``, never the work tree, so a
half-saved checkout cannot leak into a run. A commit is written by one ``git fast-import`` stream into a
private temporary ref, then the target ref moves with a compare-and-swap (``git update-ref <ref> <new>
<old>``); a checked-out work tree follows with git's two-tree merge. A process killed at any point leaves the
ref at the old or at the new commit, and the next run converges. All git calls are subprocesses (GitPython's
index and object database are far too slow for hundreds of thousands of files).
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import os
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from gitops_karmada.adapters import git_remote
from gitops_karmada.adapters.git_blob_stream import BlobStream
from gitops_karmada.adapters.git_blob_writer import WRITE_AHEAD_FILES, BlobWriter
from gitops_karmada.adapters.git_cat_file import read_blobs
from gitops_karmada.adapters.git_fast_import import import_commit
from gitops_karmada.adapters.git_fetch import RemoteAccess, fetch_branch
from gitops_karmada.adapters.git_log import LOG_FORMAT, LogEntry, PathChange, parse_log, parse_raw_changes
from gitops_karmada.adapters.git_process import GitRunner, git_error
from gitops_karmada.adapters.git_tree import (
    EntryKind,
    TreeEntry,
    decode_path,
    list_tree,
    ls_tree_raw,
    normalise_prefix,
    parse_ls_tree,
)
from gitops_karmada.adapters.git_work_tree import (
    PendingSync,
    check_can_sync,
    finish_interrupted_sync,
    has_journal,
    remove_journal,
    sync_work_tree,
    work_trees_showing,
    write_journal,
)
from gitops_karmada.model.errors import GitError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

    from gitops_karmada.core.file_changes import FileChange

DEFAULT_AUTHOR_NAME = "gitops-karmada"
DEFAULT_AUTHOR_EMAIL = "gitops-karmada@localhost"
TEMPORARY_REF_PREFIX = "refs/gitops-karmada/tmp/"
_COMMIT_REF_PREFIX = TEMPORARY_REF_PREFIX + "commit-"


class CommitStage(enum.StrEnum):
    """Points of ``GitStore.commit``/``move_ref`` reported to an observer (progress; crash-safety tests)."""

    OBJECTS_WRITTEN = "objects-written"  # fast-import finished; no user-visible ref has changed
    WORK_TREE_CHECKED = "work-tree-checked"  # the checked-out work trees can take the new commit
    REF_UPDATED = "ref-updated"  # the compare-and-swap succeeded; work trees not yet updated
    WORK_TREE_SYNCED = "work-tree-synced"  # work trees and indexes show the new commit


@dataclass(frozen=True, slots=True)
class SkippedEntry:
    """A tree entry ``read_snapshot`` does not return as a file, and why."""

    path: str
    kind: EntryKind
    reason: str


@dataclass(frozen=True, slots=True)
class TreeSnapshot:
    """The regular files of one commit that passed the filter, plus the entries that were skipped."""

    commit: str
    files: Mapping[str, bytes]
    skipped: tuple[SkippedEntry, ...]


SYMLINK_SKIPPED = "symbolic link: its target is not read (it may point outside the repository)"
SUBMODULE_SKIPPED = "submodule: its files belong to another repository"
_SKIP_REASONS = {
    EntryKind.SYMLINK: SYMLINK_SKIPPED,
    EntryKind.SUBMODULE: SUBMODULE_SKIPPED,
}


def _owner_alive(suffix: str) -> bool:
    """Whether the process that named a temporary ref ``<pid>-<random>`` still runs on this machine."""
    pid = suffix.partition("-")[0]
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass(frozen=True, slots=True, kw_only=True)
class GitStore:
    """One repository (a work tree or a bare repository), read and written through git subprocesses."""

    git_dir: Path
    work_tree: Path | None
    object_format: str
    observer: Callable[[CommitStage], None] | None = None
    remote_access: RemoteAccess = field(default_factory=RemoteAccess)
    """Credentials for fetch and push (an SSH key or command, an askpass program)."""
    subdir: str = ""
    """The folder of the work tree the store was opened from, relative to its top (``""``: the top): a
    fleet kept in a subfolder of a monorepo is found from there."""
    _commits: set[str] = field(default_factory=set, init=False, compare=False, repr=False)
    """Full ids ``resolve`` has found to name commits: an id names the same commit for ever, so a run that
    lists and reads one commit many times asks git once (a ref name is asked every time: it moves)."""

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        observer: Callable[[CommitStage], None] | None = None,
        remote_access: RemoteAccess | None = None,
    ) -> GitStore:
        """The repository at ``path`` (or containing it); GitError if there is none."""
        if not path.is_dir():
            raise GitError("open", f"{path} is not a directory")
        probe = GitRunner(path.resolve())
        done = probe.run(
            ["rev-parse", "--absolute-git-dir", "--is-inside-work-tree", "--show-object-format"],
            operation="open",
            what=f"{path}",
            ok_codes=(0, 128),
        )
        if done.returncode != 0:
            raise git_error("open", f"{path} is not a git repository", done.stderr)
        git_dir, inside_work_tree, object_format = done.stdout.decode("utf-8", "surrogateescape").splitlines()
        work_tree, subdir = None, ""
        if inside_work_tree == "true":
            lines = probe.text(
                ["rev-parse", "--show-toplevel", "--show-prefix"], operation="open", what=f"{path}"
            ).splitlines()
            work_tree, subdir = Path(lines[0]), (lines[1] if len(lines) > 1 else "").rstrip("/")
        return cls(
            git_dir=Path(git_dir),
            work_tree=work_tree,
            object_format=object_format,
            observer=observer,
            remote_access=remote_access or RemoteAccess(),
            subdir=subdir,
        )

    @property
    def runner(self) -> GitRunner:
        """The runner of this repository's git directory (for adapters that spawn their own git process)."""
        return self._git

    @property
    def _git(self) -> GitRunner:
        return GitRunner(self.work_tree or self.git_dir)

    def _notify(self, stage: CommitStage) -> None:
        if self.observer is not None:
            self.observer(stage)

    # --- revisions -------------------------------------------------------------------------------------

    def resolve(self, rev: str) -> str:
        """The full id of the commit ``rev`` names; GitError naming ``rev`` when there is none."""
        if rev in self._commits:
            return rev
        if not rev or rev.startswith("-") or "\n" in rev:
            raise GitError("rev-parse", f"{rev!r} is not a revision")
        done = self._git.run(
            ["rev-parse", "-q", "--verify", "--end-of-options", f"{rev}^{{commit}}"],
            operation="rev-parse",
            what=rev,
            ok_codes=(0, 1, 128),
        )
        if done.returncode == 0:
            commit = done.stdout.decode("ascii").strip()
            self._commits.add(commit)
            return commit
        if not self._git.succeeds(["rev-parse", "-q", "--verify", "HEAD"]):
            refs = self._git.text(
                ["for-each-ref", "--count=1", "--format=%(refname)"], operation="rev-parse", what=rev
            )
            if not refs:
                raise GitError("rev-parse", f"cannot resolve {rev!r}: the repository has no commits yet")
            if rev == "HEAD":
                raise GitError("rev-parse", "HEAD is a branch without commits yet")
        if self._git.succeeds(["rev-parse", "-q", "--verify", "--end-of-options", rev]):
            raise GitError("rev-parse", f"{rev!r} does not name a commit")
        raise GitError("rev-parse", f"unknown revision {rev!r}")

    def try_resolve(self, rev: str) -> str | None:
        """The commit ``rev`` names, or None when it names none (no error)."""
        if rev in self._commits:
            return rev
        done = self._git.run(
            ["rev-parse", "-q", "--verify", "--end-of-options", f"{rev}^{{commit}}"],
            operation="rev-parse",
            what=rev,
            ok_codes=(0, 1, 128),
        )
        if done.returncode != 0:
            return None
        commit = done.stdout.decode("ascii").strip()
        self._commits.add(commit)
        return commit

    def merge_base(self, first: str, second: str) -> str | None:
        """The best common ancestor of two commits, or None when they have none."""
        done = self._git.run(
            ["merge-base", self.resolve(first), self.resolve(second)],
            operation="merge-base",
            what=f"{first} and {second}",
            ok_codes=(0, 1),
        )
        return done.stdout.decode("ascii").strip() if done.returncode == 0 else None

    def head_ref(self) -> str | None:
        """The branch HEAD is on (``refs/heads/main``), or None when HEAD is detached."""
        done = self._git.run(
            ["symbolic-ref", "-q", "HEAD"], operation="symbolic-ref", what="HEAD", ok_codes=(0, 1)
        )
        return done.stdout.decode("utf-8", "surrogateescape").strip() or None

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """Whether ``ancestor`` is ``descendant`` or one of its ancestors."""
        done = self._git.run(
            ["merge-base", "--is-ancestor", self.resolve(ancestor), self.resolve(descendant)],
            operation="merge-base",
            what=f"{ancestor} and {descendant}",
            ok_codes=(0, 1),
        )
        return done.returncode == 0

    # --- reading ---------------------------------------------------------------------------------------

    def read_snapshot(self, rev: str, include: Callable[[str], bool]) -> TreeSnapshot:
        """The regular files (100644/100755) of ``rev`` whose path passes ``include``; the rest, skipped."""
        commit = self.resolve(rev)
        entries = [entry for entry in list_tree(self._git, commit) if include(entry.path)]
        files = [entry for entry in entries if entry.is_regular_file]
        blobs = read_blobs(self._git, [entry.oid for entry in files])
        skipped = tuple(
            SkippedEntry(entry.path, entry.kind, _SKIP_REASONS[entry.kind])
            for entry in entries
            if not entry.is_regular_file
        )
        return TreeSnapshot(
            commit=commit, files={entry.path: blobs[entry.oid] for entry in files}, skipped=skipped
        )

    def read_file(self, rev: str, path: str) -> bytes | None:
        """The content of the regular file ``path`` at ``rev``, or None when there is no such file."""
        commit = self.resolve(rev)
        done = self._git.run(
            ["cat-file", "-p", f"{commit}:{path}"],
            operation="cat-file",
            what=f"{rev}:{path}",
            ok_codes=(0, 128),
        )
        if done.returncode != 0:
            return None
        kind = self._git.run(
            ["cat-file", "-t", f"{commit}:{path}"], operation="cat-file", what=f"{rev}:{path}"
        ).stdout.strip()
        return done.stdout if kind == b"blob" else None

    def read_files(self, rev: str, include: Callable[[str], bool]) -> dict[str, bytes]:
        """``read_snapshot(rev, include).files``: symbolic links and submodules are skipped."""
        return dict(self.read_snapshot(rev, include).files)

    def list_blobs(self, rev: str, prefixes: Sequence[str]) -> dict[str, str]:
        """path → blob id of every file and symbolic link of ``rev`` at or under one of ``prefixes``.

        A prefix names whole path components (``clusters/m1`` is not under ``clusters/m``); ``""`` is the
        whole tree; no prefixes, no paths.
        """
        if not prefixes:
            return {}
        entries = list_tree(self._git, self.resolve(rev), prefixes)
        return {entry.path: entry.oid for entry in entries if entry.kind is not EntryKind.SUBMODULE}

    def blob_sizes(self, oids: Sequence[str]) -> dict[str, int]:
        """The size in bytes of each blob in ``oids`` (full ids), from one ``cat-file --batch-check``."""
        unique = list(dict.fromkeys(oids))
        if not unique:
            return {}
        output = self._git.run(
            ["cat-file", "--batch-check=%(objectname) %(objectsize)", "--buffer"],
            operation="cat-file",
            what="sizing blobs",
            stdin="".join(f"{oid}\n" for oid in unique).encode("ascii"),
        ).stdout
        sizes: dict[str, int] = {}
        for line in output.decode("ascii", "replace").splitlines():
            oid, _, size = line.partition(" ")
            if size.isdigit():
                sizes[oid] = int(size)
        return sizes

    def blob_id(self, content: bytes) -> str:
        """The id git gives a file with ``content`` here (``git hash-object``), to skip unchanged writes."""
        header = b"blob %d\0" % len(content)
        return hashlib.new(self.object_format, header + content).hexdigest()

    def commit_message(self, rev: str) -> str:
        """The full message of commit ``rev``, as stored (``commit`` stores it with a final newline)."""
        return self._commit_object(rev).partition(b"\n\n")[2].decode("utf-8", "replace")

    def trailers(self, rev: str) -> dict[str, str]:
        """The ``Key: value`` trailers of ``rev``'s message, as ``git interpret-trailers --parse`` reads them.

        A key given twice keeps its last value.
        """
        message = self.commit_message(rev).encode("utf-8")
        parsed = self._git.run(
            ["-c", "trailer.separators=:", "interpret-trailers", "--parse"],
            operation="interpret-trailers",
            what=f"parsing the trailers of {rev}",
            stdin=message,
        ).stdout.decode("utf-8", "replace")
        trailers = {}
        for line in parsed.splitlines():
            key, separator, value = line.partition(":")
            if separator:
                trailers[key.strip()] = value.strip()
        return trailers

    def commit_time(self, rev: str) -> datetime:
        """The committer date of ``rev``, in UTC."""
        for line in self._commit_object(rev).partition(b"\n\n")[0].splitlines():
            if line.startswith(b"committer "):
                epoch = int(line.rsplit(b" ", 2)[1])
                return datetime.fromtimestamp(epoch, tz=UTC)
        raise GitError("cat-file", f"commit {rev} has no committer line")

    def _commit_object(self, rev: str) -> bytes:
        commit = self.resolve(rev)
        return self._git.run(
            ["cat-file", "commit", commit], operation="cat-file", what=f"reading commit {rev}"
        ).stdout

    def uncommitted(self, include: Sequence[str] = ("",), exclude: Sequence[str] = ()) -> tuple[str, ...]:
        """Paths of the work tree that differ from HEAD (modified, staged, deleted or untracked) under the
        folders in ``include`` (``""``: everywhere) and outside those in ``exclude``; () when bare."""
        if self.work_tree is None:
            return ()
        specs = [f":(literal){normalise_prefix(p)}" if normalise_prefix(p) else "." for p in include]
        specs += [f":(exclude,literal){normalise_prefix(p)}" for p in exclude if normalise_prefix(p)]
        output = self._git.run(
            ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", *specs],
            operation="status",
            what="listing uncommitted changes",
        ).stdout
        return tuple(sorted(decode_path(entry[3:]) for entry in output.split(b"\0") if len(entry) > 3))

    # --- history (used by rollback, history, verify and trace) --------------------------------------------

    def log(
        self,
        rev: str,
        *,
        since: str | None = None,
        paths: Sequence[str] = (),
        globs: Sequence[str] = (),
        first_parent: bool = True,
        with_changes: bool = False,
        max_count: int | None = None,
        grep: str | None = None,
    ) -> tuple[LogEntry, ...]:
        """The commits of ``rev``'s history, newest first, with their trailers (and changed blobs).

        ``since`` excludes that commit and its ancestors (``since..rev``); ``paths`` (literal paths or
        folders) and ``globs`` (git glob pathspecs) keep only commits that changed a matching path, and
        limit ``with_changes`` to those paths. ``first_parent`` follows only first parents (a merge then
        shows its changes against its first parent); otherwise git's default history simplification applies.
        ``grep`` keeps commits whose message has a line matching that basic regular expression.
        """
        args = [
            "-c",
            "trailer.separators=:",
            "log",
            "-z",
            f"--format={LOG_FORMAT}",
            "--no-renames",
            "--no-abbrev",
            "--no-show-signature",
        ]
        if first_parent:
            args.append("--first-parent")
        if with_changes:
            args.append("--raw")
        if max_count is not None:
            args.append(f"--max-count={max_count}")
        if grep is not None:
            args += ["--grep", grep]
        args.append(self.resolve(rev))
        if since is not None:
            args.append(f"^{self.resolve(since)}")
        pathspecs = [f":(literal){normalise_prefix(p)}" for p in paths if normalise_prefix(p)]
        pathspecs += [f":(glob){pattern}" for pattern in globs]
        if (paths or globs) and len(pathspecs) < len(paths) + len(globs):
            pathspecs = []  # one of the paths is the whole tree
        args += ["--", *pathspecs]
        output = self._git.run(args, operation="log", what=f"walking the history of {rev}").stdout
        return parse_log(output)

    def diff(self, old: str, new: str, prefixes: Sequence[str] = ("",)) -> tuple[PathChange, ...]:
        """The paths (under ``prefixes``; ``""`` is the whole tree) whose blob or mode differs between
        commits ``old`` and ``new``, with both sides' ids and modes."""
        if not prefixes:
            return ()
        specs = [f":(literal){normalise_prefix(p)}" for p in prefixes if normalise_prefix(p)]
        if len(specs) < len(prefixes):
            specs = []  # one of the prefixes is the whole tree
        output = self._git.run(
            ["diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-abbrev", self.resolve(old),
             self.resolve(new), "--", *specs],
            operation="diff-tree",
            what=f"comparing {old} with {new}",
        ).stdout  # fmt: skip
        return parse_raw_changes(output)

    def list_entries(self, rev: str, prefixes: Sequence[str] = ("",)) -> tuple[TreeEntry, ...]:
        """Every file, symbolic link and submodule of ``rev`` under ``prefixes``, with its mode."""
        return list_tree(self._git, self.resolve(rev), prefixes)

    def list_children(self, rev: str, folders: Sequence[str]) -> tuple[TreeEntry, ...]:
        """The entries directly inside each of ``folders`` (not recursive), trees included (their ``kind``
        is undefined: compare ``mode``). ``""`` is the root folder (list it alone)."""
        if not folders:
            return ()
        specs = [normalise_prefix(f) + "/" for f in folders if normalise_prefix(f)]
        if len(specs) < len(folders):
            specs = []  # the root folder: list it alone
        return parse_ls_tree(ls_tree_raw(self._git, self.resolve(rev), specs, recursive=False))

    def list_children_paths(self, rev: str, folders: Sequence[str]) -> list[str]:
        """The paths of ``list_children`` alone (nothing parsed but the names: a folder of thousands)."""
        if not folders:
            return []
        specs = [normalise_prefix(f) + "/" for f in folders if normalise_prefix(f)]
        if len(specs) < len(folders):
            specs = []
        raw = ls_tree_raw(self._git, self.resolve(rev), specs, recursive=False, names=True)
        return [decode_path(p) for p in raw.split(b"\0") if p]

    def list_inside(self, rev: str, folders: Sequence[str]) -> tuple[TreeEntry, ...]:
        """Every file, link and submodule inside each of ``folders`` (recursively), in git's order: one
        ``ls-tree`` whose pathspecs (``folder/``) select exactly that, however many folders there are."""
        return parse_ls_tree(self.list_inside_raw(rev, folders))

    def list_inside_raw(self, rev: str, folders: Sequence[str]) -> bytes:
        """``list_inside`` as git prints it (``<mode> <type> <oid> TAB <path> NUL`` records in tree order)."""
        if not folders:
            return b""
        specs = [normalise_prefix(f) + "/" for f in folders]
        return ls_tree_raw(self._git, self.resolve(rev), specs)

    def list_tree_raw(self, rev: str, folder: str) -> bytes:
        """``ls-tree -r -z`` of ``folder`` as git prints it (``<mode> <type> <oid> TAB <path> NUL`` records in
        tree order), for callers that count or slice records rather than parse them."""
        return ls_tree_raw(self._git, self.resolve(rev), [normalise_prefix(folder)])

    def read_blobs(self, oids: Sequence[str]) -> dict[str, bytes]:
        """The content of each blob in ``oids`` (full ids), read through one ``cat-file --batch``."""
        return read_blobs(self._git, oids)

    def archive(self, rev: str, pathspecs: Sequence[str], target: Path) -> None:
        """The files of ``rev`` matching ``pathspecs`` as a tar file at ``target`` (``git archive``)."""
        self._git.run(
            ["archive", "--format=tar", f"--output={target}", self.resolve(rev), "--", *pathspecs],
            operation="archive",
            what=f"exporting {rev}",
        )

    # --- writing ---------------------------------------------------------------------------------------

    def remembered_blob_id(self) -> Callable[[bytes], str]:
        """``blob_id`` remembering each content object it hashed, by identity, for one run: a first run
        hashes 35,000 files for its index, its change list and its blob writer. The contents are held, so
        an identity is never reused while the function lives."""
        known: dict[int, tuple[bytes, str]] = {}

        def blob_id(content: bytes) -> str:
            hit = known.get(id(content))
            if hit is not None and hit[0] is content:
                return hit[1]
            oid = self.blob_id(content)
            known[id(content)] = (content, oid)
            return oid

        return blob_id

    def blob_writer(
        self, blob_id: Callable[[bytes], str] | None = None, *, min_files: int = WRITE_AHEAD_FILES
    ) -> BlobWriter:
        """A writer of a run's files ahead of its commit (see ``git_blob_writer``); ``commit`` takes what
        it wrote. ``blob_id``: the run's (``remembered_blob_id``), else this repository's."""
        return BlobWriter(self._git, blob_id or self.blob_id, min_files=min_files)

    def blob_stream(self, *, min_files: int = WRITE_AHEAD_FILES) -> BlobStream:
        """A stream of a run's rendered files into the object database as they are made, one fast-import
        per process (see ``git_blob_stream``); ``commit`` names them by id (``StoredBlob``)."""
        return BlobStream(self._git, self.blob_id, min_files=min_files)

    def commit(
        self,
        *,
        parent: str,
        ref: str,
        changes: Mapping[str, FileChange],
        message: str,
        written: Mapping[str, tuple[bytes, str]] | None = None,
        empty: bool = False,
    ) -> str | None:
        """One commit on top of ``parent`` applying ``changes`` (bytes: write a 100644 file; None: delete).

        ``ref`` is a full ref name (``refs/heads/main``) or ``HEAD``; it must point at ``parent``, else
        GitError(temporary=True) and nothing changes. Returns the new commit id, or None when the tree would
        equal ``parent``'s (no empty commits). Work trees showing ``ref`` follow for the changed paths only;
        an uncommitted edit to one of those paths is refused before anything changes. ``written``: files
        a ``blob_writer`` wrote ahead (``BlobWriter.written``), named by id instead of sent again. ``empty``:
        commit even when the tree does not change (a commit that is a record of its own, as an approval).
        """
        parent_commit = self.resolve(parent)
        target = self._target_ref(ref)
        work_trees = self._prepare_work_trees(target)
        self._expect_ref(target, parent_commit)
        if not changes and not empty:
            return None
        text = message if message.endswith("\n") else message + "\n"
        with self.stage(parent=parent_commit, changes=changes, message=text, written=written) as new_commit:
            self._notify(CommitStage.OBJECTS_WRITTEN)
            if not empty and self._tree_of(new_commit) == self._tree_of(parent_commit):
                return None
            subject = text.partition("\n")[0]
            self._move(
                target, parent_commit, new_commit, work_trees, reflog=f"gitops-karmada commit: {subject}"
            )
            return new_commit

    @contextlib.contextmanager
    def stage(
        self,
        *,
        parent: str,
        changes: Mapping[str, FileChange],
        message: str,
        written: Mapping[str, tuple[bytes, str]] | None = None,
    ) -> Iterator[str]:
        """A commit on top of ``parent`` applying ``changes``, on a temporary ref for as long as the block
        lasts (``commit`` moves a branch to it inside; sharded output takes its trees apart): a run killed
        inside leaves that ref, which ``recover`` drops once its process is gone."""
        temporary_ref = f"{_COMMIT_REF_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        try:
            yield import_commit(
                self._git,
                temp_ref=temporary_ref,
                parent=self.resolve(parent),
                author=self._identity("AUTHOR"),
                committer=self._identity("COMMITTER"),
                message=message if message.endswith("\n") else message + "\n",
                changes=changes,
                written=written,
            )
        finally:
            self._delete_temporary_refs(_COMMIT_REF_PREFIX)

    def identity(self, role: str) -> str:
        """``Name <email> <epoch> <tz>`` a commit made now carries as its ``AUTHOR`` or ``COMMITTER``."""
        return self._identity(role)

    def update_ref(self, ref: str, old: str | None, new: str, *, reflog: str) -> None:
        """Compare-and-swap ``ref`` (no work tree follows: a ref no one checks out, such as an output shard's
        branch) from ``old`` (None: absent) to ``new``; temporary GitError when it moved."""
        self._compare_and_swap(ref, old or "0" * len(new), new, reflog=reflog)

    def recover(self, ref: str) -> None:
        """Finish a work-tree update that a killed run left unfinished for ``ref``'s checkouts (no-op when
        there is none). Every run that reads a branch calls this first, whether or not it will commit, so
        the index and files never keep showing an older commit than the branch. Temporary refs of runs that
        died are dropped too."""
        self._prepare_work_trees(self._target_ref(ref))
        self._delete_temporary_refs(_COMMIT_REF_PREFIX, only_dead=True)

    def pending_sync(self) -> bool:
        """Whether this checkout's work tree has an unfinished update (a journal left by a killed run)."""
        return self.work_tree is not None and has_journal(self._git)

    def move_ref(self, *, ref: str, old: str, new: str) -> None:
        """Move ``ref`` from commit ``old`` to commit ``new`` (any commit, e.g. a fetched upstream tip).

        Same guarantees as ``commit``: compare-and-swap (temporary GitError if ``ref`` is not at ``old``),
        work trees showing ``ref`` follow, uncommitted edits in the way are refused before anything changes.
        Meant for dropping an unpushed rendering commit in favour of the fetched upstream before rerendering.
        """
        old_commit, new_commit = self.resolve(old), self.resolve(new)
        target = self._target_ref(ref)
        work_trees = self._prepare_work_trees(target)
        self._expect_ref(target, old_commit)
        if old_commit != new_commit:
            self._move(target, old_commit, new_commit, work_trees, reflog=f"gitops-karmada: move to {new}")

    def _target_ref(self, ref: str) -> str:
        if ref == "HEAD":
            # On a branch, HEAD means that branch (and its other checkouts, if any).
            return self.head_ref() or "HEAD"
        if not ref.startswith("refs/") or not self._git.succeeds(["check-ref-format", ref]):
            raise GitError("update-ref", f"{ref!r} is not a full ref name (like refs/heads/main) or HEAD")
        return ref

    def _prepare_work_trees(self, target: str) -> tuple[GitRunner, ...]:
        runners = tuple(self._git.at(path) for path in work_trees_showing(self._git, target, self.work_tree))
        for runner in runners:
            finish_interrupted_sync(runner)
        return runners

    def _expect_ref(self, ref: str, expected: str) -> None:
        current = self._ref_value(ref)
        if current != expected:
            raise GitError(
                "update-ref",
                f"{ref} moved to {current or 'nothing'} (expected {expected}) since it was read: another run "
                "or a user committed first; nothing was changed, rerun",
                temporary=True,
            )

    def _ref_value(self, ref: str) -> str | None:
        done = self._git.run(
            ["rev-parse", "-q", "--verify", ref], operation="rev-parse", what=ref, ok_codes=(0, 1)
        )
        return done.stdout.decode("ascii").strip() or None

    def _tree_of(self, commit: str) -> str:
        return self._git.text(
            ["rev-parse", f"{commit}^{{tree}}"], operation="rev-parse", what=f"the tree of {commit}"
        )

    def _move(
        self, target: str, old: str, new: str, work_trees: tuple[GitRunner, ...], *, reflog: str
    ) -> None:
        for runner in work_trees:
            try:
                check_can_sync(runner, old, new)
            except GitError:
                # another run that moved the branch meanwhile also moved the files: that is the reason
                self._expect_ref(target, old)
                raise
        self._notify(CommitStage.WORK_TREE_CHECKED)
        for runner in work_trees:
            write_journal(runner, PendingSync(old=old, new=new))
        try:
            self._compare_and_swap(target, old, new, reflog=reflog)
        except GitError:
            for runner in work_trees:
                remove_journal(runner)
            raise
        self._notify(CommitStage.REF_UPDATED)
        for runner in work_trees:
            try:
                sync_work_tree(runner, old, new)
            except GitError as exc:
                # The commit stands; the journal stays, so the next run finishes the work tree update.
                detail = f"{target} now points at {new}, but {runner.root} was not updated: {exc.detail}"
                raise GitError(exc.operation, detail) from exc
            remove_journal(runner)
        self._notify(CommitStage.WORK_TREE_SYNCED)

    def _compare_and_swap(self, target: str, old: str, new: str, *, reflog: str) -> None:
        no_deref = ["--no-deref"] if target == "HEAD" else []
        done = self._git.run(
            ["update-ref", "-m", reflog, *no_deref, target, new, old],
            operation="update-ref",
            what=f"moving {target} from {old} to {new}",
            ok_codes=range(256),
        )
        if done.returncode == 0:
            return
        current = self._ref_value(target)
        stderr = done.stderr.decode("utf-8", "replace")
        raced = current != old or "cannot lock ref" in stderr
        what = f"{target} moved to {current or 'nothing'} (expected {old}); nothing was changed, rerun"
        raise git_error(
            "update-ref", what if current != old else f"moving {target} failed", stderr, temporary=raced
        )

    def clock(self) -> datetime:
        """The time a commit made now would carry (``GIT_COMMITTER_DATE`` when set, else the wall clock)."""
        epoch = self._identity("COMMITTER").rsplit(" ", 2)[1]
        return datetime.fromtimestamp(int(epoch), UTC)

    def _identity(self, role: str) -> str:
        """``Name <email> <epoch> <tz>`` from configuration or GIT_<role>_* variables, else the tool's own."""
        variable = f"GIT_{role}_IDENT"
        done = self._git.run(
            ["-c", "user.useConfigOnly=true", "var", variable],
            operation="var",
            what=variable,
            ok_codes=(0, 128),
        )
        if done.returncode == 0:
            return done.stdout.decode("utf-8", "surrogateescape").strip()
        fallback = {f"GIT_{role}_NAME": DEFAULT_AUTHOR_NAME, f"GIT_{role}_EMAIL": DEFAULT_AUTHOR_EMAIL}
        return self._git.text(["var", variable], operation="var", what=variable, env=fallback)

    def _delete_temporary_refs(self, prefix: str, *, only_dead: bool = False) -> None:
        listed = self._git.text(
            ["for-each-ref", "--format=%(refname)", prefix.rpartition("/")[0] + "/"],
            operation="for-each-ref",
            what="listing temporary refs",
        )
        doomed = [
            name
            for name in listed.splitlines()
            if name.startswith(prefix) and not (only_dead and _owner_alive(name.removeprefix(prefix)))
        ]
        if doomed:
            # Best effort: a concurrent run may delete the same leftovers; the next run tries again.
            self._git.run(
                ["update-ref", "--stdin"],
                operation="update-ref",
                what="deleting temporary refs",
                stdin="".join(f"delete {name}\n" for name in doomed).encode(),
                ok_codes=range(256),
            )

    # --- remotes and housekeeping ----------------------------------------------------------------------

    def upstream(self, branch_ref: str) -> tuple[str, str] | None:
        """(remote, remote branch) configured for ``branch_ref``, or None."""
        return git_remote.upstream(self._git, branch_ref)

    def remotes(self) -> list[str]:
        """The names of the configured remotes."""
        return git_remote.remote_names(self._git)

    def fetch(self, remote: str, branch: str, *, warn_after: float | None = None) -> str:
        """Fetch ``branch`` of ``remote`` and return its commit id (GitError temporary on network failure);
        ``warn_after``: log a warning every so many seconds while the fetch lasts."""
        git_remote.check_branch_name(self._git, "fetch", branch)
        return fetch_branch(self.git_dir, remote, branch, self.remote_access, warn_after=warn_after)

    def remote_tip(self, remote: str, branch: str) -> str | None:
        """Where ``branch`` of ``remote`` is now, without fetching (None: no such branch)."""
        return git_remote.remote_tip(self._git, remote, branch, self.remote_access.environment())

    def push(self, remote: str, local_ref: str, remote_branch: str) -> None:
        """Push without forcing; a non-fast-forward rejection is GitError(temporary=True)."""
        git_remote.push(self._git, remote, local_ref, remote_branch, self.remote_access.environment())

    def push_refs(self, remote: str, refs: Mapping[str, str]) -> None:
        """Push to branches of ``remote`` (a remote's name or URL; branch → local ref or commit) in one push,
        without forcing."""
        git_remote.push_refs(self._git, remote, refs, self.remote_access.environment())

    def fetch_ref(self, remote: str, branch: str, ref: str) -> str | None:
        """Fetch ``branch`` of ``remote`` (a name or URL) into the local ``ref`` (forced: the remote is the
        truth); its commit, or None when the remote has no such branch."""
        if not git_remote.fetch_ref(self._git, remote, branch, ref, self.remote_access.environment()):
            return None
        return self.try_resolve(ref)

    def push_with_lease(self, remote: str, commit: str, remote_branch: str, expected: str | None) -> None:
        """Push ``commit`` only if ``remote_branch`` is still at ``expected`` (None: absent); a moved branch
        is GitError(temporary=True)."""
        env = self.remote_access.environment()
        git_remote.push_with_lease(self._git, remote, commit, remote_branch, expected, env)

    def object_counts(self) -> tuple[int, int]:
        """(loose objects, packs) in the object database (``count-objects``: it counts files, it reads
        none)."""
        done = self._git.text(["count-objects", "-v"], operation="count-objects", what="counting objects")
        counts = dict(line.partition(": ")[::2] for line in done.splitlines())
        return int(counts.get("count", "0")), int(counts.get("packs", "0"))

    def maintenance(self) -> None:
        """Pack loose objects and merge fast-import's many small packs; drop the temporary refs of processes
        that are gone."""
        self._delete_temporary_refs(TEMPORARY_REF_PREFIX, only_dead=True)
        # Geometric repacking merges the small packs each commit leaves without rewriting the big one.
        self._git.run(["repack", "-d", "-q", "--geometric=2"], operation="repack", what="packing objects")
