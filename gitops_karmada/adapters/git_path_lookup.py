"""Looks up ``commit:path`` object ids one at a time through one long-lived ``git cat-file --batch-check``.

A run that redoes a handful of templates asks about a few hundred paths of a tree that may hold a quarter of
a million; a round trip through a running ``cat-file`` costs tens of microseconds, a listing of the whole
tree costs seconds to parse. One request, one reply line (cat-file flushes after each), so neither pipe can
fill while the other side waits.
"""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
import weakref
from typing import IO, TYPE_CHECKING

from gitops_karmada.adapters.git_tree import encode_path
from gitops_karmada.model.errors import GitError

if TYPE_CHECKING:
    from gitops_karmada.adapters.git_process import GitRunner


def _stop(process: subprocess.Popen[bytes], stderr: IO[bytes]) -> None:
    with contextlib.suppress(OSError, ValueError):
        if process.stdin is not None:
            process.stdin.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    if process.poll() is None:
        process.kill()
        process.wait()
    if process.stdout is not None:
        process.stdout.close()
    stderr.close()


class PathLookup:
    """``oid(path)``: the blob id at ``path`` in ``commit`` (``None``: no entry, a folder or a submodule)."""

    def __init__(self, runner: GitRunner, commit: str) -> None:
        self._commit = commit
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the process
        self._process = runner.spawn(
            ["cat-file", "--batch-check=%(objectname) %(objecttype)"], stderr=self._stderr
        )
        self._finalizer = weakref.finalize(self, _stop, self._process, self._stderr)

    @staticmethod
    def can_ask(path: str) -> bool:
        """Whether ``path`` fits the line protocol (no newline; not read as a relative ``./`` path)."""
        return "\n" not in path and not path.startswith(("./", "../")) and path not in (".", "..")

    def oid(self, path: str) -> str | None:
        found = self.entry(path)
        return found[0] if found is not None and found[1] == "blob" else None

    def entry(self, path: str) -> tuple[str, str] | None:
        """(object id, object type) at ``path``, or None when there is no entry."""
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(f"{self._commit}:".encode() + encode_path(path) + b"\n")
            stdin.flush()
        except (BrokenPipeError, ValueError) as exc:
            raise self._failed(f"looking up {path}") from exc
        reply = stdout.readline()
        if not reply.endswith(b"\n"):
            raise self._failed(f"looking up {path}")
        fields = reply.split()
        if fields[-1] == b"missing":
            return None
        if len(fields) != 2:
            raise GitError("cat-file", f"unexpected reply for {path}: {reply[:200]!r}")
        return fields[0].decode("ascii"), fields[1].decode("ascii")

    def _failed(self, what: str) -> GitError:
        self._stderr.seek(0)
        detail = self._stderr.read().decode("utf-8", "replace").strip()[-2000:]
        return GitError("cat-file", f"{what}: cat-file stopped" + (f": {detail}" if detail else ""))

    def close(self) -> None:
        self._finalizer()
