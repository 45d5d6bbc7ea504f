"""Options shared by several commands, applied by one decorator each."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import click

from gitops_karmada.model.guardrails import REFUSED, GuardrailKind, RemovalCause

F = TypeVar("F", bound=Callable[..., Any])


def repo_option(func: F) -> F:
    """``--repo``: the fleet repository (default: the current folder)."""
    return click.option(
        "--repo",
        type=click.Path(file_okay=False, path_type=Path),
        default=Path(),
        show_default=True,
        help="The fleet repository.",
    )(func)


def source_options(func: F) -> F:
    """``--repo``, ``--rev`` and ``--worktree``: where the input is read from."""
    func = click.option(
        "--worktree",
        is_flag=True,
        help="Read the files on disk instead of a commit (for checks before committing).",
    )(func)
    func = click.option("--rev", default="HEAD", show_default=True, help="The commit to read.")(func)
    return repo_option(func)


GUARDRAIL_NAMES = (
    "all",
    *(kind.value for kind in GuardrailKind),
    *(cause.value for cause in RemovalCause if cause in REFUSED),
)


def allow_option(func: F) -> F:
    """``--allow NAME``: commit although the named guardrail of ``gitops-karmada.yaml`` objects."""
    return click.option(
        "--allow",
        "allow",
        multiple=True,
        type=click.Choice(GUARDRAIL_NAMES),
        help="Commit although this guardrail (gitops-karmada.yaml guardrails:) or this cause of removal "
        "objects; repeatable; all: every one.",
    )(func)


OUTPUT_HELP = {
    "text": "for people (tables, lines)",
    "wide": "a table with more columns",
    "yaml": "YAML",
    "json": "JSON",
    "name": "kind/name lines",
    "markdown": "Markdown (a pull-request comment)",
    "github": "GitHub workflow-command annotations",
}


class OutputChoice(click.Choice[str]):
    """``-o``'s choices; ``table``, the name some commands used before, still means ``text``."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if value == "table" and "text" in self.choices:
            value = "text"
        return str(super().convert(value, param, ctx))


def output_option(*formats: str, default: str = "text") -> Callable[[F], F]:
    """``-o/--output FORMAT``, one vocabulary for every command (text, wide, yaml, json, name, ...)."""
    unknown = [f for f in formats if f not in OUTPUT_HELP]
    assert not unknown, f"formats outside the shared vocabulary: {unknown}"
    described = "; ".join(f"{f}: {OUTPUT_HELP[f]}" for f in formats)

    def decorate(func: F) -> F:
        return click.option(
            "-o",
            "--output",
            "output_format",
            type=OutputChoice(list(formats)),
            default=default,
            show_default=True,
            help=described + ".",
        )(func)

    return decorate


def parse_now(value: str, param_hint: str = "--now") -> datetime:
    """An RFC 3339 time given on the command line, with its time zone."""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise click.BadParameter(f"{value!r} is not an RFC 3339 time", param_hint=param_hint) from None
    if moment.tzinfo is None:
        raise click.BadParameter(f"{value!r} has no time zone (add Z or an offset)", param_hint=param_hint)
    return moment
