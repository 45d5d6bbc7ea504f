"""``gitops-karmada trace PATH``: a rendered manifest's template, policy, overrides and source commit."""

from __future__ import annotations

from pathlib import Path

import click

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.cli.options import output_option, repo_option
from gitops_karmada.cli.output import to_json
from gitops_karmada.usecases.trace import CommitRef, FileTrace, trace_file


def repository_path(store: GitStore, path: str) -> str:
    """``path`` relative to the repository root: absolute paths must be inside the work tree."""
    given = Path(path)
    if given.is_absolute():
        if store.work_tree is None or not given.is_relative_to(store.work_tree):
            raise click.UsageError(f"{path} is not inside the repository's work tree")
        return given.relative_to(store.work_tree).as_posix()
    return given.as_posix().removeprefix("./")


def _commit_line(ref: CommitRef | None) -> str:
    if ref is None:
        return "-"
    return " ".join(part for part in (ref.commit[:12], ref.date, ref.subject) if part)


def print_trace(trace: FileTrace) -> None:
    lines = [
        ("cluster", trace.cluster),
        ("written by", "gitops-karmada" if trace.written_by_tool else "not managed by gitops-karmada"),
        ("template", f"{trace.template or '-'} from {trace.source or '-'}"),
        ("policy", trace.policy or "-"),
        ("overrides", "\n".join(str(o) for o in trace.overrides) or "-"),
        ("record", trace.record or "-"),
        ("last changed", _commit_line(trace.last_change)),
        ("source commit", _commit_line(trace.source_commit)),
    ]
    click.echo(trace.path)
    if trace.header:
        click.echo(f"  {trace.header}")
    for label, value in lines:
        first, *rest = value.split("\n")
        click.echo(f"  {label + ':':<15} {first}")
        for more in rest:
            click.echo(f"  {'':<15} {more}")
    for note in trace.notes:
        click.echo(f"  note: {note}")


@click.command("trace")
@click.argument("path")
@repo_option
@click.option("--rev", default="HEAD", show_default=True, help="The commit to read.")
@output_option("text", "json")
def trace_command(path: str, repo: Path, rev: str, output_format: str) -> None:
    """Show where the rendered manifest PATH came from: template, policy, overrides, source commit.

    PATH is relative to the repository root (or absolute inside its work tree); the file is read from REV.
    """
    store = GitStore.open(repo)
    trace = trace_file(store, rev, repository_path(store, path))
    if output_format == "json":
        click.echo(to_json(trace.to_dict()), nl=False)
    else:
        print_trace(trace)
