"""Writes a run's files as blobs while the run finishes, so its commit only names them.

``git fast-import`` compresses every blob it is given. Fed at commit time, a first reconcile of 35,000 files
waits on it (0.6 s at fleet K) with nothing else to do. A ``BlobWriter`` is told the files as soon as the
run knows them (``Ports.emit``) and feeds them to a fast-import of its own from a thread, while
the run builds its records, index and guards on the other CPU; the commit then names each file's blob by
id (``M 100644 <id> <path>``) and has nothing left to compress.

Blobs of a run that commits nothing (a guard refuses, the process is killed) are unreferenced objects,
which ``git gc`` drops as it drops any tool's. Below ``min_files`` files the extra process costs more than
it saves, and nothing is written ahead.
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
from typing import IO, TYPE_CHECKING

from loguru import logger

if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable, Mapping

    from gitops_karmada.adapters.git_process import GitRunner

WRITE_AHEAD_FILES = 2_000
"""Fewer files than this are left to the commit: starting a second fast-import costs about 10 ms."""
_FLUSH_BYTES = 1 << 20

Written = dict[str, tuple[bytes, str]]
"""Path → (the content written, its blob id)."""


class BlobWriter:
    """Called once with the files to write ahead (the ``emit`` callback); ``written`` then waits for them."""

    def __init__(
        self, runner: GitRunner, blob_id: Callable[[bytes], str], *, min_files: int = WRITE_AHEAD_FILES
    ) -> None:
        self._runner = runner
        self._blob_id = blob_id
        self._min_files = min_files
        self._files: dict[str, bytes] = {}
        self._written: Written = {}
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._thread: threading.Thread | None = None

    def __call__(self, files: Mapping[str, bytes]) -> None:
        if self._process is not None or len(files) < self._min_files:
            return
        self._files = dict(files)  # the caller goes on adding to its mapping
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (outlives this call: closed by close())
        self._process = self._runner.spawn(["fast-import", "--quiet"], stderr=self._stderr)
        self._thread = threading.Thread(target=self._feed, name="gitops-karmada-blob-writer", daemon=True)
        self._thread.start()

    def _feed(self) -> None:
        assert self._process is not None and self._process.stdin is not None
        stdin = self._process.stdin
        written: Written = {}
        sent: set[str] = set()
        # "feature done": a stream cut short (the process killed) is refused, not taken as complete
        chunk = bytearray(b"feature done\n")
        try:
            for path, content in self._files.items():
                oid = self._blob_id(content)
                written[path] = (content, oid)
                if oid in sent:
                    continue
                sent.add(oid)
                chunk += b"blob\ndata %d\n" % len(content)
                chunk += content
                chunk += b"\n"
                if len(chunk) >= _FLUSH_BYTES:
                    stdin.write(chunk)
                    chunk.clear()
            chunk += b"done\n"
            stdin.write(chunk)
            stdin.close()
        except (OSError, ValueError):
            return  # fast-import stopped, or the writer was closed: nothing is vouched for
        self._written = written

    def written(self) -> Written:
        """Every file now in the object database, by path, once the writer is done with them; empty when
        nothing was written ahead or the writer failed (the commit then carries the contents itself)."""
        if self._process is None or self._thread is None:
            return self._written  # nothing written ahead, or already waited for (or closed)
        self._thread.join()
        returncode = self._process.wait()
        if returncode != 0:
            detail = b""
            if self._stderr is not None:
                self._stderr.seek(0)
                detail = self._stderr.read()
            logger.bind(logger="git").warning(
                "writing {} file(s) ahead of the commit failed (exit {}): {}; the commit writes them itself",
                len(self._files),
                returncode,
                detail.decode("utf-8", "replace").strip()[:500] or "no message",
            )
            self._written = {}
        self.close()
        logger.bind(logger="git", files=len(self._written)).debug(
            "{} file(s) written ahead of the commit", len(self._written)
        )
        return self._written

    def close(self) -> None:
        """Stop the writer (a run that fails or is cancelled); what it wrote stays unreferenced."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        with contextlib.suppress(OSError, ValueError):
            if process.stdin is not None:
                process.stdin.close()
        if self._thread is not None:
            self._thread.join()
        process.wait()
        for stream in (process.stdout, self._stderr):
            if stream is not None:
                stream.close()
        if self._thread is not None and self._written and process.returncode != 0:
            self._written = {}
