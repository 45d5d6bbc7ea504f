"""``gitops-karmada simulate``: what failover and rescheduling would do if the clusters reported X.

Nothing is written. The use case (``usecases.simulate``) runs the scenario from the commit's time to
``--after`` later; this verb prints ``diff``'s report of the fleet now against the fleet at the end, then
the failover timeline.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click
from loguru import logger

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.cli.completion import complete_cluster, complete_cluster_prefixed, complete_unhealthy
from gitops_karmada.cli.diff import EXIT_CHANGES, EXIT_ERROR, EXIT_GUARDRAIL, EXIT_NO_CHANGE
from gitops_karmada.cli.logs import colour_wanted
from gitops_karmada.cli.options import output_option, repo_option
from gitops_karmada.core.diff import Budget, Unit, render_json, render_markdown, render_text
from gitops_karmada.core.failover.what_if import ScenarioError
from gitops_karmada.model.errors import GitopsKarmadaError, UsageError
from gitops_karmada.usecases.simulate import Scenario, TimelineEntry, UnrenderableCommitError, simulate

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path


@click.command("simulate")
@repo_option
@click.option("--rev", default="HEAD", show_default=True, help="The commit whose fleet is simulated.")
@click.option(
    "--cluster-down",
    "down",
    multiple=True,
    metavar="CLUSTER",
    help="The cluster reports Ready=False.",
    shell_complete=complete_cluster,
)
@click.option(
    "--taint",
    "taints",
    multiple=True,
    metavar="CLUSTER:KEY[=VALUE]:EFFECT",
    help="The cluster gets a taint.",
    shell_complete=complete_cluster_prefixed,
)
@click.option(
    "--capacity",
    "capacities",
    multiple=True,
    metavar="CLUSTER:RESOURCE=QUANTITY[,...]",
    help="The cluster reports this allocatable capacity (scheduling uses it with status.useResourceSummary).",
    shell_complete=complete_cluster_prefixed,
)
@click.option(
    "--unhealthy",
    multiple=True,
    metavar="KIND[.GROUP]/NAMESPACE/NAME@CLUSTER",
    help="The workload reports unhealthy on the cluster (application failover).",
    shell_complete=complete_unhealthy,
)
@click.option(
    "--after",
    default="0s",
    show_default=True,
    metavar="DURATION",
    help="How long the scenario lasts (90s, 5m, 1h30m): tolerations, grace periods and the eviction queue "
    "run their course within it.",
)
@click.option(
    "--applied",
    is_flag=True,
    help="The clusters apply what each run writes for the templates a RolloutPolicy governs and report it "
    "healthy (but --unhealthy ones): their rollouts run forward.",
)
@output_option("text", "markdown", "json")
@click.option(
    "--exit-code",
    type=click.BOOL,
    default=True,
    show_default=True,
    help="Exit 1 when something would move; false: exit 0 (errors stay 2).",
)
def simulate_command(
    repo: Path,
    rev: str,
    down: tuple[str, ...],
    taints: tuple[str, ...],
    capacities: tuple[str, ...],
    unhealthy: tuple[str, ...],
    after: str,
    applied: bool,
    output_format: str,
    exit_code: bool,
) -> None:
    """Show what failover and rescheduling would do if the member clusters reported a scenario."""
    scenario = Scenario(down, taints, capacities, unhealthy, after, applied)
    try:
        simulation = simulate(GitStore.open(repo), rev, scenario)
    except ScenarioError as err:
        raise click.BadParameter(str(err)) from err
    except UsageError:
        raise  # an unknown cluster or template: one line, exit 2
    except GitopsKarmadaError as err:
        log = logger.bind(logger="simulate")
        for problem in err.diagnostics if isinstance(err, UnrenderableCommitError) else ():
            log.error("{}", problem)  # the input errors first, then what they mean here
        log.error("{}", err)
        raise click.exceptions.Exit(EXIT_ERROR) from err
    plan, timeline = simulation.plan, simulation.timeline
    logger.bind(logger="simulate", runs=simulation.runs).debug(
        "simulated {} run(s), and {} past the end", simulation.runs, simulation.lookahead_runs
    )
    quiet = simulation.not_evicted
    if output_format == "json":
        document = json.loads(render_json(plan))
        document["timeline"] = [entry.to_dict() for entry in timeline]
        document["notEvicted"] = list(quiet)
        click.echo(json.dumps(document, indent=2, sort_keys=True))
    elif output_format == "markdown":
        click.echo(render_markdown(plan, Budget(65_536, Unit.CHARACTERS)), nl=False)
        click.echo(_timeline_text(timeline, quiet, markdown=True), nl=False)
    else:
        colour = colour_wanted(sys.stdout)
        click.echo(render_text(plan, colour=colour), nl=False, color=colour)
        click.echo(_timeline_text(timeline, quiet, markdown=False), nl=False)
    if plan.failed:
        raise click.exceptions.Exit(EXIT_ERROR)
    if plan.violations:
        raise click.exceptions.Exit(EXIT_GUARDRAIL)
    raise click.exceptions.Exit(EXIT_CHANGES if plan.has_changes and exit_code else EXIT_NO_CHANGE)


def _timeline_text(timeline: Sequence[TimelineEntry], quiet: Sequence[str], *, markdown: bool) -> str:
    """The timeline, then why the parts of the scenario that evicted nothing did not."""
    bullet = "- " if markdown else "  "
    why = "".join(f"{bullet}{reason}\n" for reason in quiet)
    if not timeline:
        if not quiet:
            return "\nFailover timeline: nothing is evicted.\n"
        head = (
            "\n### Failover timeline: nothing is evicted\n\n"
            if markdown
            else "\nFailover timeline: nothing is evicted:\n"
        )
        return head + why
    head = "\n### Failover timeline\n\n" if markdown else "\nFailover timeline:\n"
    lines = "".join(f"{bullet}{e.at}  {e.template}  {e.action} {e.cluster}: {e.message}\n" for e in timeline)
    if quiet:
        lines += ("\n### Not evicted\n\n" if markdown else "\nNot evicted:\n") + why
    return head + lines
