"""``gitops-karmada diff``: what a change does to the fleet's placement, before it merges.

The use case (``usecases.diff``) renders both sides in memory (two commits of one repository, or two
checkouts; the work tree is never written) and compares placement, changed inputs and rendered manifests;
this verb parses the options, prints the plan and writes the reports. Exit codes, like ``argocd app
diff``: 0 no change, 1 changes found (0 with ``--exit-code=false``), 2 error (usage or runtime, or a side
whose input does not load), 3 a ``--fail-on`` guardrail is violated.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from loguru import logger

from gitops_karmada.cli.logs import colour_wanted
from gitops_karmada.cli.options import output_option
from gitops_karmada.core.diff import (
    COMMENT_LIMIT,
    STEP_SUMMARY_LIMIT,
    Budget,
    GuardrailSyntaxError,
    PlanDiff,
    Unit,
    parse_guardrails,
    render_json,
    render_markdown,
    render_text,
)
from gitops_karmada.model.errors import GitopsKarmadaError
from gitops_karmada.usecases.diff import NoUpstreamError, compare_sides

EXIT_NO_CHANGE = 0
EXIT_CHANGES = 1
EXIT_ERROR = 2
EXIT_GUARDRAIL = 3
MIN_BUDGET = 10_000
"""The summary is never cut: a budget must leave room for it (error banners are capped at 10 lines)."""


@click.command("diff")
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path(),
    show_default=True,
    help="The fleet repository (for --base/--head).",
)
@click.option(
    "--base",
    "base_rev",
    help="Base revision [default: the merge-base of HEAD and its upstream branch, else origin/HEAD].",
)
@click.option("--head", "head_rev", help="Head revision [default: HEAD].")
@click.option(
    "--base-path",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Read the base side from the files of this checkout instead of a commit.",
)
@click.option(
    "--head-path",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Read the head side from the files of this checkout instead of a commit.",
)
@output_option("text", "markdown", "json")
@click.option(
    "--exit-code",
    type=click.BOOL,
    default=True,
    show_default=True,
    help="Exit 1 when changes are found; false: exit 0 (errors stay 2, guardrails 3).",
)
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    metavar="CONDITION",
    help="Exit 3 when the change meets CONDITION: cluster-emptied, replicas-moved>N%, unschedulable, "
    "quota-blocked, failed (repeat or comma-separate).",
)
@click.option(
    "--max-chars",
    type=click.IntRange(min=MIN_BUDGET),
    default=COMMENT_LIMIT,
    show_default=True,
    help="Size budget of -o markdown (GitHub's comment limit); manifest diffs are cut at object boundaries.",
)
@click.option(
    "--report-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the full markdown report (no size limit) to this file.",
)
@click.option(
    "--summary-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help='Append the markdown report, cut to 1 MiB, to this file (e.g. "$GITHUB_STEP_SUMMARY").',
)
@click.option(
    "--json-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the JSON report to this file.",
)
@click.option(
    "--full",
    is_flag=True,
    help="Judge and render every template of both sides (by default, the state index of the last reconcile "
    "stands for the templates the change cannot touch).",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour of -o text (auto: when stdout is a terminal and NO_COLOR is unset).",
)
def diff_command(
    repo: Path,
    base_rev: str | None,
    head_rev: str | None,
    base_path: Path | None,
    head_path: Path | None,
    output_format: str,
    exit_code: bool,
    fail_on: tuple[str, ...],
    max_chars: int,
    report_file: Path | None,
    summary_file: Path | None,
    json_file: Path | None,
    full: bool,
    color: str,
) -> None:
    """Compare the fleet rendered at BASE and at HEAD: placement, changed inputs, manifests."""
    if base_rev is not None and base_path is not None:
        raise click.UsageError("--base and --base-path exclude each other")
    if head_rev is not None and head_path is not None:
        raise click.UsageError("--head and --head-path exclude each other")
    try:
        guardrails = parse_guardrails(fail_on)
    except GuardrailSyntaxError as err:
        raise click.BadParameter(str(err), param_hint="--fail-on") from err
    try:
        plan = compare_sides(repo, base_rev, head_rev, base_path, head_path, guardrails, full=full)
        write_reports(plan, report_file=report_file, summary_file=summary_file, json_file=json_file)
    except NoUpstreamError as err:
        raise click.UsageError(str(err)) from None
    except (GitopsKarmadaError, OSError) as err:
        logger.bind(logger="diff").error("{}", err)
        raise click.exceptions.Exit(EXIT_ERROR) from err
    if output_format == "json":
        click.echo(render_json(plan), nl=False)
    elif output_format == "markdown":
        click.echo(render_markdown(plan, Budget(max_chars, Unit.CHARACTERS)), nl=False)
    else:
        colour = color == "always" or (color == "auto" and colour_wanted(sys.stdout))
        click.echo(render_text(plan, colour=colour), nl=False, color=colour)
    for side, errors in (("base", plan.base_errors), ("head", plan.head_errors)):
        if errors:
            logger.bind(logger="diff").error(
                "the {} revision does not render: {} input error(s)", side, len(errors)
            )
    raise click.exceptions.Exit(exit_status(plan, exit_code=exit_code))


def exit_status(plan: PlanDiff, *, exit_code: bool) -> int:
    if plan.failed:
        return EXIT_ERROR
    if plan.violations:
        return EXIT_GUARDRAIL
    return EXIT_CHANGES if plan.has_changes and exit_code else EXIT_NO_CHANGE


def write_reports(
    plan: PlanDiff, *, report_file: Path | None, summary_file: Path | None, json_file: Path | None
) -> None:
    if report_file is not None:
        report_file.write_text(render_markdown(plan), encoding="utf-8")
    if summary_file is not None:
        with summary_file.open("a", encoding="utf-8") as handle:
            handle.write(render_markdown(plan, Budget(STEP_SUMMARY_LIMIT, Unit.BYTES)))
    if json_file is not None:
        json_file.write_text(render_json(plan), encoding="utf-8")
