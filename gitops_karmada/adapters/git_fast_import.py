"""Writes one commit's objects with a single ``git fast-import`` stream (the parent plus the changed paths).

It only creates objects and a private temporary ref; moving a user-visible ref is the caller's job. The
stream declares ``feature done``, so a stream cut off at any point (the process killed mid-way) is rejected
by fast-import instead of being committed as a truncated tree.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from typing import IO, TYPE_CHECKING

from gitops_karmada.adapters.git_process import GitRunner, died_of, git_error
from gitops_karmada.adapters.git_tree import REGULAR_FILE_MODE, encode_path
from gitops_karmada.core.file_changes import StoredBlob
from gitops_karmada.model.errors import GitError

if TYPE_CHECKING:
    from collections.abc import Container, Iterable, Iterator, Mapping, Sequence

    from gitops_karmada.core.file_changes import FileChange

_FLUSH_BYTES = 1 << 20
_MODE = REGULAR_FILE_MODE.encode()
# fast-import reads an unquoted path literally to the end of the line; anything that could be mistaken for
# quoting or break the line gets C-style quoting instead.
_NEEDS_QUOTING = re.compile(rb'[\x00-\x1f"\\\x7f]')
_C_ESCAPES = {ord('"'): b'\\"', ord("\\"): b"\\\\", ord("\n"): b"\\n", ord("\t"): b"\\t"}
# Everything invalid_path_reason refuses matches this; a match is then explained by the slow checks.
_MAYBE_INVALID = re.compile(r"^$|^/|/$|//|\x00|(?:^|/)\.\.?(?:/|$)|(?:^|/)\.git[. ]*(?:/|$)", re.IGNORECASE)
# What every match of _MAYBE_INVALID needs, among paths joined by newlines: an empty path, a leading or
# trailing or doubled slash, a NUL, or a component starting with a dot. Absent all, no path can match.
_INVALID_MARKS = ("\n\n", "\n/", "/\n", "//", "\0", "/.", "\n.")
_QUOTED_BYTE = tuple(
    _C_ESCAPES.get(byte, b"\\%03o" % byte if byte < 0x20 or byte == 0x7F else bytes((byte,)))
    for byte in range(256)
)


def quote_path(path: str) -> bytes:
    """The path as fast-import reads it: literal when safe, else C-style quoted (UTF-8 bytes kept raw)."""
    raw = encode_path(path)
    if not _NEEDS_QUOTING.search(raw):
        return raw
    return b'"' + b"".join(_QUOTED_BYTE[byte] for byte in raw) + b'"'


def invalid_path_reason(path: str) -> str | None:
    """Why git cannot store ``path`` as a repository-relative POSIX path, or None when it can."""
    if not _MAYBE_INVALID.search(path):
        return None  # the common case, decided by one regex scan (this runs for every changed path)
    if not path:
        return "the path is empty"
    if "\0" in path:
        return "the path contains a NUL byte"
    if path.startswith("/"):
        return "the path is absolute"
    for component in path.split("/"):
        if component in ("", ".", ".."):
            return f"the path has an empty, '.' or '..' component ({component!r})"
        # git refuses .git in any letter case (and NTFS/HFS lookalikes with trailing dots or spaces).
        if component.rstrip(". ").lower() == ".git":
            return "the path has a .git component"
    return None


def check_paths(paths: Iterable[str]) -> tuple[str, ...]:
    """The paths in sorted (deterministic) order; GitError if git cannot store one of them."""
    ordered = tuple(sorted(paths))
    # a first run commits millions of paths: a few scans of joined batches, not one per path (nor one
    # string of them all: at fleet XL that alone is 150 MB)
    if ordered and not any(_maybe_invalid("\n".join(batch)) for batch in _batches(ordered)):
        return ordered
    for path in ordered:
        reason = invalid_path_reason(path)
        if reason:
            raise GitError("commit", f"cannot write {path!r}: {reason}")
    return ordered


_BATCH = 10_000


def _batches(paths: Sequence[str]) -> Iterator[Sequence[str]]:
    return (paths[start : start + _BATCH] for start in range(0, len(paths), _BATCH))


def _maybe_invalid(joined: str) -> bool:
    """Whether one of the newline-joined paths may match ``_MAYBE_INVALID`` (substring scans run in C; the
    regular expression over the joined text costs ten times as much)."""
    edges = not joined or joined.startswith(("/", ".", "\n")) or joined.endswith(("/", "\n"))
    return edges or any(mark in joined for mark in _INVALID_MARKS)


class _WrittenFiles:
    """The paths ``changes`` writes a file at (not deletes), as ``_check_not_inside_file`` asks of a written
    path's folders: a lookup per folder, not a set of the millions of written paths made before the first
    byte is sent (at fleet XL, two seconds fast-import waited for)."""

    __slots__ = ("_changes",)

    def __init__(self, changes: Mapping[str, FileChange]) -> None:
        self._changes = changes

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self._changes.get(path) is not None


def _check_not_inside_file(path: str, written: Container[str]) -> None:
    # Sorted order puts "a" before "a/b", so a file that would have to become a folder is already known.
    end = path.find("/")
    while end != -1:
        folder = path[:end]
        if folder in written:
            raise GitError("commit", f"cannot write both the file {folder!r} and the file {path!r} inside it")
        end = path.find("/", end + 1)


def _check_folder(path: str, checked: str | None, written: Container[str]) -> str:
    """``_check_not_inside_file`` once per folder: sorted paths of one folder come together, and a file
    named like one of its parents sorts before all of them. Returns the folder now checked."""
    folder = path.rpartition("/")[0]
    if folder != checked:
        _check_not_inside_file(path, written)
    return folder


def _send(stdin: IO[bytes], chunk: bytearray) -> None:
    stdin.write(chunk)
    chunk.clear()


def _stream(
    stdin: IO[bytes],
    *,
    temp_ref: str,
    parent: str,
    author: str,
    committer: str,
    message: bytes,
    paths: Sequence[str],
    changes: Mapping[str, FileChange],
    written: Mapping[str, tuple[bytes, str]],
) -> None:
    chunk = bytearray(b"feature done\n")
    chunk += b"commit %s\nmark :1\n" % temp_ref.encode()
    chunk += b"author %s\ncommitter %s\n" % (author.encode(), committer.encode())
    chunk += b"data %d\n%s\nfrom %s\n" % (len(message), message, parent.encode())
    written_paths = _WrittenFiles(changes)
    # every path is quoted only when one needs it: one scan of them all decides the common case
    plain = not any(_NEEDS_QUOTING.search(encode_path("/".join(batch))) for batch in _batches(paths))
    folder_checked = None
    by_id, inline = b"M " + _MODE + b" %s %s\n", b"M " + _MODE + b" inline %s\ndata %d\n"
    for path in paths:
        name = encode_path(path) if plain else quote_path(path)
        # Contents are looked up while streaming, so a lazily computed mapping is never held twice.
        content = changes[path]
        if content is None:
            chunk += b"D %s\n" % name
        elif isinstance(content, StoredBlob):
            # written into the object database as the run made it (``git_blob_stream``)
            folder_checked = _check_folder(path, folder_checked, written_paths)
            chunk += by_id % (content.oid.encode(), name)
        else:
            folder_checked = _check_folder(path, folder_checked, written_paths)
            known = written.get(path)
            if known is not None and known[0] is content:
                # written ahead by a BlobWriter: named by id, nothing to send or compress
                chunk += by_id % (known[1].encode(), name)
            else:
                chunk += inline % (name, len(content))
                if len(content) >= _FLUSH_BYTES:
                    _send(stdin, chunk)
                    stdin.write(content)
                else:
                    chunk += content
                chunk += b"\n"
        if len(chunk) >= _FLUSH_BYTES:
            _send(stdin, chunk)
    chunk += b"\nget-mark :1\ndone\n"
    _send(stdin, chunk)


def import_commit(
    runner: GitRunner,
    *,
    temp_ref: str,
    parent: str,
    author: str,
    committer: str,
    message: str,
    changes: Mapping[str, FileChange],
    written: Mapping[str, tuple[bytes, str]] | None = None,
) -> str:
    """Create the commit ``parent`` + ``changes`` at ``temp_ref``; return its id.

    ``author`` and ``committer`` are raw git identities (``Name <email> <epoch> <±hhmm>``). Files are written
    with mode 100644; ``None`` deletes the path (a folder path deletes the whole folder). ``written``: files
    already in the object database (``BlobWriter``), path → (content, blob id); a path whose content is that
    very object is named by id instead of sent.
    """
    paths = check_paths(changes)
    with tempfile.TemporaryFile() as stderr:
        process = runner.spawn(["fast-import", "--quiet", "--date-format=raw"], stderr=stderr)
        stdin, stdout = process.stdin, process.stdout
        assert stdin is not None and stdout is not None
        try:
            # A BrokenPipeError means fast-import stopped reading: it failed, and its stderr says why.
            with contextlib.suppress(BrokenPipeError):
                _stream(
                    stdin,
                    temp_ref=temp_ref,
                    parent=parent,
                    author=author,
                    committer=committer,
                    message=message.encode("utf-8"),
                    paths=paths,
                    changes=changes,
                    written=written or {},
                )
            with contextlib.suppress(BrokenPipeError):
                stdin.close()
            reply = stdout.read()
        except BaseException:
            # Killed, not starved: fast-import must not see the end of a stream we abandoned.
            process.kill()
            raise
        finally:
            with contextlib.suppress(BrokenPipeError):
                stdin.close()
            stdout.close()
            returncode = process.wait()
        if returncode != 0:
            stderr.seek(0)
            what = f"writing the commit on top of {parent}{died_of(returncode)}"
            raise git_error("fast-import", what, stderr.read())
    commit = reply.decode("ascii", "replace").strip()
    if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", commit):
        raise GitError("fast-import", f"unexpected reply instead of the new commit id: {commit[:200]!r}")
    return commit
