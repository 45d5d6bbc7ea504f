"""Streams a run's rendered files into the object database as they are made: one ``git fast-import`` per
process, so the run never holds the whole fleet.

A first reconcile of fleet M renders a quarter of a million files; held until the commit, they were most of
the run's memory. With a ``BlobStream`` as ``Ports.store``, every process that renders (the
run's own and each child of ``adapters.fork_pool``) feeds a template's files to a fast-import of its own as
soon as they are made and keeps only their blob ids; the commit names them by id (``M 100644 <id> <path>``).
A child's files are sent once, by the child, and never pickled back.

A process's blobs are trusted only once its fast-import has ended well (``seal``): a child seals before it
exits, and the pool trusts none of a child's results when that fails (they are redone in the run's
process); the run's own process seals before its commit, and a failure there fails the run with nothing
committed. Blobs of a run that commits nothing are unreferenced objects, which ``git gc`` drops as it drops
any tool's. Until a process has been offered ``min_files`` files it leaves them held (the store returns
None): starting a fast-import costs more than it saves on a small change.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import IO, TYPE_CHECKING

from loguru import logger

from gitops_karmada.adapters.git_blob_writer import WRITE_AHEAD_FILES
from gitops_karmada.adapters.git_process import git_error

if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable, Mapping

    from gitops_karmada.adapters.git_process import GitRunner


class BlobStream:
    """``Ports.store``: called with a template's files, returns their blob ids once they are on
    their way into the object database (None below ``min_files``); ``seal`` ends this process's stream."""

    def __init__(
        self, runner: GitRunner, blob_id: Callable[[bytes], str], *, min_files: int = WRITE_AHEAD_FILES
    ) -> None:
        self._runner = runner
        self._blob_id = blob_id
        self._min_files = min_files
        self._owner = os.getpid()
        self._offered = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._sent: set[str] = set()
        self.stored = 0
        """Files this process has stored since its stream started (a content shared by several counts for
        each)."""

    def _own(self) -> None:
        """Forget a parent's stream in a forked child: the parent's fast-import is not this process's."""
        if self._owner != os.getpid():
            self._owner = os.getpid()
            self._offered = 0
            self._process, self._stderr = None, None
            self._sent = set()
            self.stored = 0

    def __call__(self, files: Mapping[str, bytes]) -> dict[str, str] | None:
        self._own()
        if self._process is None:
            self._offered += len(files)
            if self._offered < self._min_files:
                return None
            self._start()
        assert self._process is not None and self._process.stdin is not None
        ids: dict[str, str] = {}
        chunk = bytearray()
        # a template's content is one object for every cluster it is the same on: hashed once, one id string
        known: dict[int, str] = {}
        for path, content in files.items():
            oid = known.get(id(content))
            if oid is None:
                oid = known[id(content)] = self._blob_id(content)
            ids[path] = oid
            if oid not in self._sent:
                self._sent.add(oid)
                chunk += b"blob\ndata %d\n" % len(content)
                chunk += content
                chunk += b"\n"
        try:
            self._process.stdin.write(chunk)
        except (OSError, ValueError):
            self._failed("streaming the run's files into the object database")
        self.stored += len(files)
        return ids

    def _start(self) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (outlives this call: closed by seal or close)
        self._process = self._runner.spawn(["fast-import", "--quiet"], stderr=self._stderr)
        assert self._process.stdin is not None
        # "feature done": a stream cut short (the process killed) is refused, not taken as complete
        self._process.stdin.write(b"feature done\n")

    def seal(self) -> None:
        """End this process's stream and wait for its blobs to be in the object database; GitError when
        they are not (what was stored cannot be vouched for). Nothing to do where nothing was stored."""
        self._own()
        process = self._process
        if process is None:
            return
        assert process.stdin is not None
        try:
            process.stdin.write(b"done\n")
            process.stdin.close()
        except (OSError, ValueError):
            self._failed("ending the stream of the run's files")
        if process.wait() != 0:
            self._failed("writing the run's files into the object database")
        logger.bind(logger="git", files=self.stored, pid=os.getpid()).debug(
            "{} file(s) streamed into the object database by process {}", self.stored, os.getpid()
        )
        self._finish()

    def close(self) -> None:
        """Stop this process's stream unsealed (a run that failed or was cancelled): what it wrote is left
        unreferenced."""
        if self._owner != os.getpid() or self._process is None:
            return
        if self._process.poll() is None:
            self._process.kill()
        self._finish()

    def _failed(self, doing: str) -> None:
        process, stderr = self._process, self._stderr
        assert process is not None
        if process.poll() is None:
            process.kill()
        process.wait()
        detail = b""
        if stderr is not None:
            stderr.seek(0)
            detail = stderr.read()
        self._finish()
        raise git_error("fast-import", doing, detail)

    def _finish(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            for pipe in (process.stdin, process.stdout):
                with contextlib.suppress(OSError, ValueError):
                    if pipe is not None:
                        pipe.close()
            process.wait()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self._offered = 0
        self._sent = set()
        self.stored = 0
