"""The ``gitops-karmada`` command line: a click group; one module per verb; exit codes per error class.

Exit codes: 0 ok, 1 input or domain error (a ``GitopsKarmadaError``; also what the system refused, and a
bug), 2 usage error (click's own, or a ``UsageError``), 3 a guardrail refused. Every failure is one line
on stderr, never a traceback (``--log-level debug`` adds it).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import TYPE_CHECKING, NoReturn

import click

from gitops_karmada import __version__
from gitops_karmada.adapters.gc_tuning import freeze_imports, tune_garbage_collector
from gitops_karmada.cli.completion import COMPLETE_VAR, complete
from gitops_karmada.cli.lazy_group import LazyGroup
from gitops_karmada.model.errors import GitopsKarmadaError, UsageError

if TYPE_CHECKING:
    from loguru import Logger

VERBS = {
    "approve": "gitops_karmada.cli.approve:approve_command",
    "collect": "gitops_karmada.cli.collect:collect_command",
    "completion": "gitops_karmada.cli.completion:completion_command",
    "demo": "gitops_karmada.cli.demo:demo",
    "describe": "gitops_karmada.cli.describe:describe_command",
    "diff": "gitops_karmada.cli.diff:diff_command",
    "explain": "gitops_karmada.cli.explain:explain",
    "get": "gitops_karmada.cli.get:get_command",
    "history": "gitops_karmada.cli.history:history_command",
    "interpret": "gitops_karmada.cli.interpret:interpret",
    "reconcile": "gitops_karmada.cli.reconcile:reconcile_command",
    "render": "gitops_karmada.cli.render:render",
    "reschedule": "gitops_karmada.cli.reschedule:reschedule",
    "rollback": "gitops_karmada.cli.rollback:rollback_command",
    "simulate": "gitops_karmada.cli.simulate:simulate_command",
    "trace": "gitops_karmada.cli.trace:trace_command",
    "validate": "gitops_karmada.cli.validate:validate",
    "verify": "gitops_karmada.cli.verify:verify_command",
    "watch": "gitops_karmada.cli.watch:watch_command",
}
"""Verb → the command object; a verb's module is imported only when it runs (see ``lazy_group``)."""


@click.group(
    cls=LazyGroup,
    verbs=VERBS,
    imported=freeze_imports,
    context_settings={"help_option_names": ["-h", "--help"], "auto_envvar_prefix": "GITOPS_KARMADA"},
)
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
    from gitops_karmada.cli.logs import configure_logging  # loguru: not for a TAB, which never gets here

    configure_logging(log_level, logging_format)


def _log() -> Logger:
    """The CLI's logger (loguru is imported by the first command that logs, never by a TAB)."""
    from loguru import logger

    return logger.bind(logger="cli")


def run() -> NoReturn:
    """The console script and ``python -m gitops_karmada``: ``main``, then out of the process without
    freeing its heap object by object. A run at fleet XL holds millions of objects, and CPython's teardown
    freed them for 0.14 s of a 4 s one-template change. The exit handlers still run (temporary folders,
    log sinks) and the streams are flushed; with a thread still running that is not a daemon thread, the
    process exits as usual, which waits for it."""
    try:
        main()
        code = 0
    except SystemExit as done:
        code = _exit_code(done.code)
    if any(not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away (``| head``), or a stream closed
            code = code or 1
    os._exit(code)


def _exit_code(code: object) -> int:
    """What ``sys.exit(code)`` exits with: 0 for None, a number as it is, else 1 with the message logged."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    _log().error("{}", code)
    return 1


def main(argv: list[str] | None = None) -> None:
    """The commands, run in this process: domain errors become one line on stderr and exit code 1."""
    if os.environ.get(COMPLETE_VAR):
        complete()  # a TAB: answered from the verbs' shapes, without importing them; exits
    tune_garbage_collector()
    try:
        # without standalone mode click returns the code of a ctx.exit()/Exit(n) instead of exiting
        code = cli.main(args=argv, prog_name="gitops-karmada", standalone_mode=False)
    except click.exceptions.Abort:
        _log().error("aborted")
        sys.exit(1)
    except click.ClickException as err:
        from gitops_karmada.cli.logs import logging_format

        if logging_format() == "json":
            # usage help is for people; a log collector gets the one message
            _log().bind(exitCode=err.exit_code).error("{}", err.format_message())
        else:
            err.show()
        sys.exit(err.exit_code)
    except click.exceptions.Exit as err:
        sys.exit(err.exit_code)
    except UsageError as err:
        _log().bind(exitCode=2).error("{}", err)
        sys.exit(2)
    except GitopsKarmadaError as err:
        _log().error("{}", err)
        sys.exit(1)
    except OSError as err:  # the system refused (a file, a socket, a process): one line, never a traceback
        log = _log()
        log.opt(exception=err).debug("where the error below was raised")
        where = f": {err.filename}" if err.filename else ""
        log.error("{}{}", err.strerror or err, where)
        sys.exit(1)
    except Exception as err:  # a bug: one line; --log-level debug shows where
        log = _log()
        log.opt(exception=err).debug("where the error below was raised")
        log.error(
            "internal error (a bug; please report it): {}: {} (--log-level debug shows the traceback)",
            type(err).__name__,
            err,
        )
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
