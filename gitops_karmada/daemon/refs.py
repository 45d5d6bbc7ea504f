"""Local mode: wake the worker when the watched branch moves, with watchdog on the ref files only.

Never a recursive watch of the work tree or ``clusters/`` (the daemon's own output: hundreds of thousands of
files and an inotify queue that overflows). Two directories are watched, not recursively: the git directory
(``HEAD``, ``packed-refs``) and the folder holding the branch's loose ref. ``event_filter`` keeps watchdog's
mask to writes, creates, deletes and moves: its default mask also queues open/close-without-write events,
which lost whole bursts in measurement (shared performance notes, section 3). The worker polls the ref on
its interval too, so a lost event delays a run, never loses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from watchdog.events import (
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

EVENTS: list[type[FileSystemEvent]] = [FileClosedEvent, FileCreatedEvent, FileDeletedEvent, FileMovedEvent]


class _RefChanged(FileSystemEventHandler):
    def __init__(self, watched: frozenset[str], on_change: Callable[[], None]) -> None:
        self.watched = watched
        self.on_change = on_change

    def on_any_event(self, event: FileSystemEvent) -> None:
        # git writes <ref>.lock and renames it over the ref: the move's destination is the ref
        paths = {event.src_path, getattr(event, "dest_path", "")}
        if any(str(p) in self.watched for p in paths if p):
            self.on_change()


class RefWatcher:
    """Calls ``on_change`` (from watchdog's thread) whenever ``HEAD``, ``packed-refs`` or one of the
    branches' ref files (the fleet branch, the status branch) is written."""

    def __init__(self, git_dir: Path, branches: Sequence[str], on_change: Callable[[], None]) -> None:
        ref_files = [git_dir / "refs" / "heads" / branch for branch in branches]
        for ref_file in ref_files:
            ref_file.parent.mkdir(
                parents=True, exist_ok=True
            )  # a branch only in packed-refs has no folder yet
        watched = frozenset(str(p) for p in (git_dir / "HEAD", git_dir / "packed-refs", *ref_files))
        handler = _RefChanged(watched, on_change)
        self.observer = Observer()
        for folder in {git_dir, *(ref_file.parent for ref_file in ref_files)}:
            self.observer.schedule(handler, str(folder), recursive=False, event_filter=EVENTS)

    def start(self) -> None:
        self.observer.start()

    def stop(self) -> None:
        self.observer.stop()
        self.observer.join(timeout=5)
