"""The ``gitops-karmada`` command line: a click group; one module per verb; exit codes per error class.

Exit codes: 0 ok, 1 input or domain error (a ``GitopsKarmadaError``), 2 usage error (click's own).
"""

from __future__ import annotations

import sys

import click
from loguru import logger

from gitops_karmada import __version__
from gitops_karmada.adapters.gc_tuning import tune_garbage_collector
from gitops_karmada.cli.collect import collect_command
from gitops_karmada.cli.completion import completion_command
from gitops_karmada.cli.demo import demo
from gitops_karmada.cli.describe import describe_command
from gitops_karmada.cli.diff import diff_command
from gitops_karmada.cli.explain import explain
from gitops_karmada.cli.get import get_command
from gitops_karmada.cli.history import history_command
from gitops_karmada.cli.interpret import interpret
from gitops_karmada.cli.logs import configure_logging, logging_format
from gitops_karmada.cli.reconcile import reconcile_command
from gitops_karmada.cli.render import render
from gitops_karmada.cli.reschedule import reschedule
from gitops_karmada.cli.rollback import rollback_command
from gitops_karmada.cli.simulate import simulate_command
from gitops_karmada.cli.trace import trace_command
from gitops_karmada.cli.validate import validate
from gitops_karmada.cli.verify import verify_command
from gitops_karmada.cli.watch import watch_command
from gitops_karmada.model.errors import GitopsKarmadaError


@click.group(context_settings={"help_option_names": ["-h", "--help"], "auto_envvar_prefix": "GITOPS_KARMADA"})
@click.version_option(__version__, prog_name="gitops-karmada")
@click.option(
    "--log-level",
    default="info",
    show_default=True,
    type=click.Choice(["debug", "info", "warning", "error"], case_sensitive=False),
)
@click.option(
    "--logging-format",
    "logging_format",
    default="text",
    show_default=True,
    type=click.Choice(["text", "json"]),
    help="json: one JSON object a line (ts, logger, level, msg, ...)",
)
def cli(log_level: str, logging_format: str) -> None:
    """Karmada's multi-cluster placement, reconciled over a Git repository."""
    configure_logging(log_level, logging_format)


cli.add_command(validate)
cli.add_command(render)
cli.add_command(reconcile_command)
cli.add_command(demo)
cli.add_command(diff_command)
cli.add_command(rollback_command)
cli.add_command(history_command)
cli.add_command(verify_command)
cli.add_command(trace_command)
cli.add_command(explain)
cli.add_command(reschedule)
cli.add_command(interpret)
cli.add_command(watch_command)
cli.add_command(completion_command)
cli.add_command(get_command)
cli.add_command(describe_command)
cli.add_command(simulate_command)
cli.add_command(collect_command)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: domain errors become one line on stderr and exit code 1."""
    tune_garbage_collector()
    try:
        # without standalone mode click returns the code of a ctx.exit()/Exit(n) instead of exiting
        code = cli.main(args=argv, prog_name="gitops-karmada", standalone_mode=False)
    except click.exceptions.Abort:
        logger.bind(logger="cli").error("aborted")
        sys.exit(1)
    except click.ClickException as err:
        if logging_format() == "json":
            # usage help is for people; a log collector gets the one message
            logger.bind(logger="cli", exitCode=err.exit_code).error("{}", err.format_message())
        else:
            err.show()
        sys.exit(err.exit_code)
    except click.exceptions.Exit as err:
        sys.exit(err.exit_code)
    except GitopsKarmadaError as err:
        logger.bind(logger="cli").error("{}", err)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
