"""Reads many blobs through one streaming ``git cat-file --batch`` process (binary-safe, sized by headers)."""

from __future__ import annotations

import contextlib
import tempfile
import threading
from typing import IO, TYPE_CHECKING

from gitops_karmada.adapters.git_process import GitRunner, git_error
from gitops_karmada.model.errors import GitError

if TYPE_CHECKING:
    from collections.abc import Sequence


def _feed(stdin: IO[bytes], oids: Sequence[str]) -> None:
    # A separate thread writes the requests so that neither side can fill a pipe and wait for the other.
    try:
        stdin.write("".join(f"{oid}\n" for oid in oids).encode("ascii"))
    except (BrokenPipeError, ValueError):
        pass  # git died or we stopped reading; the reader reports why
    finally:
        with contextlib.suppress(BrokenPipeError, ValueError):
            stdin.close()


def _read_object(stdout: IO[bytes], oid: str) -> bytes:
    header = stdout.readline()
    if not header.endswith(b"\n"):
        raise GitError("cat-file", f"the object stream ended before {oid}")
    fields = header.split()
    if len(fields) == 2 and fields[1] == b"missing":
        raise GitError("cat-file", f"object {oid} is missing from the repository")
    if len(fields) != 3 or fields[0].decode("ascii", "replace") != oid:
        raise GitError("cat-file", f"unexpected reply for {oid}: {header[:200]!r}")
    if fields[1] != b"blob":
        raise GitError("cat-file", f"object {oid} is a {fields[1].decode('ascii', 'replace')}, not a blob")
    size = int(fields[2])
    content = stdout.read(size)
    if len(content) != size or stdout.read(1) != b"\n":
        raise GitError("cat-file", f"the object stream ended inside {oid} ({len(content)} of {size} bytes)")
    return content


def _read_all(runner: GitRunner, oids: Sequence[str], stderr: IO[bytes]) -> dict[str, bytes]:
    process = runner.spawn(["cat-file", "--batch", "--buffer"], stderr=stderr)
    assert process.stdin is not None and process.stdout is not None
    feeder = threading.Thread(target=_feed, args=(process.stdin, oids), daemon=True)
    feeder.start()
    try:
        blobs = {oid: _read_object(process.stdout, oid) for oid in oids}
    except BaseException:
        process.kill()
        raise
    finally:
        feeder.join()
        process.stdout.close()
        returncode = process.wait()
    if returncode != 0:
        raise GitError("cat-file", f"exited with status {returncode}")
    return blobs


def read_blobs(runner: GitRunner, oids: Sequence[str]) -> dict[str, bytes]:
    """The content of each blob in ``oids`` (full object ids), read in one pass."""
    unique = list(dict.fromkeys(oids))
    if not unique:
        return {}
    with tempfile.TemporaryFile() as stderr:
        try:
            return _read_all(runner, unique, stderr)
        except GitError as exc:
            stderr.seek(0)
            raise git_error(exc.operation, exc.detail, stderr.read()) from None
