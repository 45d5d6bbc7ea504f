"""The line of a run that had nothing to do (``usecases.up_to_date``), printed without the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from gitops_karmada.usecases.up_to_date import UpToDate


def echo_up_to_date(current: UpToDate, *, pushed: bool = False) -> None:
    """The line of a run that had nothing to do."""
    since = "" if current.reconciled == current.source else f" since {current.reconciled[:12]}"
    click.echo(
        f"up to date: nothing reconcile reads changed{since}; no commit needed"
        + (" (pushed)" if pushed else "")
    )
