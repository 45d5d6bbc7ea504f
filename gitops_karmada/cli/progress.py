"""Progress of a long run: a bar on a terminal, JSON events under ``--logging-format json``, else nothing.

The core only calls ``(done, total)`` after each template; this module decides what a person or a log
collector sees. Runs of fewer than ``MIN_TEMPLATES`` templates show nothing: they end before a bar helps.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from loguru import logger

from gitops_karmada.cli.logs import logging_format

MIN_TEMPLATES = 200
JSON_STEPS = 10
"""Under JSON logging: one event per tenth of the run (and the last)."""

Callback = Callable[[int, int], None]


@contextmanager
def template_progress(what: str = "placing templates") -> Iterator[Callback | None]:
    """A callback for ``Ports.progress`` (None when nothing should be shown)."""
    if logging_format() == "json":
        yield _json_events(what)
    elif sys.stderr.isatty():
        with _bar(what) as callback:
            yield callback
    else:
        yield None


def _json_events(what: str) -> Callback:
    last_step = -1

    def report(done: int, total: int) -> None:
        nonlocal last_step
        if total < MIN_TEMPLATES:
            return
        step = done * JSON_STEPS // total
        if step != last_step:
            last_step = step
            logger.bind(logger="progress", done=done, total=total).info("{}: {} of {}", what, done, total)

    return report


@contextmanager
def _bar(what: str) -> Iterator[Callback]:
    # rich is imported here: only a run on a terminal draws a bar, and the import costs 50 ms
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        Task,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.text import Text

    class _RateColumn(ProgressColumn):
        """Templates per second, once rich has measured a rate."""

        def render(self, task: Task) -> Text:
            return Text(f"{task.speed:,.0f}/s" if task.speed else "–/s")

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        console=Console(file=sys.stderr),
        transient=True,
    )
    task: list[TaskID] = []

    def report(done: int, total: int) -> None:
        if total < MIN_TEMPLATES:
            return
        if not task:
            progress.start()
            task.append(progress.add_task(what, total=total))
        progress.update(task[0], completed=done, total=total)

    try:
        yield report
    finally:
        if task:
            progress.stop()
