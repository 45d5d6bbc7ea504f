"""``gitops-karmada watch``: the long-lived reconciler daemon.

Local mode watches the branch's ref (watchdog) and reconciles each new tip in the repository; remote mode
fetches ``--remote`` on an interval (and on a push webhook), reconciles and pushes with the existing
fetch–re-render–retry loop. One run at a time, coalescing; backoff on temporary failures; SIGTERM finishes
the run in progress and exits 0; SIGHUP starts a run at once. See docs/daemon.md.
"""

from __future__ import annotations

import faulthandler
import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING

import click
from loguru import logger

from gitops_karmada.adapters.git_fetch import RemoteAccess
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.cli.options import allow_option, repo_option
from gitops_karmada.cli.watch.metrics import DaemonMetrics
from gitops_karmada.cli.watch.refs import RefWatcher
from gitops_karmada.cli.watch.server import App, HttpServer
from gitops_karmada.cli.watch.status import DaemonStatus, Snapshot
from gitops_karmada.cli.watch.worker import WatchSettings, Worker

if TYPE_CHECKING:
    from types import FrameType

SECRET_ENV = "GITOPS_KARMADA_WEBHOOK_SECRET"


def _listen_address(value: str) -> tuple[str, int] | None:
    if value == "off":
        return None
    host, colon, port = value.rpartition(":")
    if not colon or not port.isdigit() or int(port) > 65535:
        raise click.BadParameter(f"{value!r} is not HOST:PORT (or 'off')", param_hint="--listen")
    return host or "127.0.0.1", int(port)


def _webhook_secret(path: Path | None) -> bytes | None:
    if path is not None:
        secret = path.read_bytes().strip()
    else:
        secret = os.environ.get(SECRET_ENV, "").strip().encode()
    return secret or None


@click.command("watch")
@repo_option
@click.option("--branch", help="The branch to keep reconciled [default: the checked-out branch].")
@click.option(
    "--remote",
    help="Remote mode: fetch this remote's branch every --interval (and on webhooks), reconcile, push.",
)
@click.option("--push", is_flag=True, help="Local mode: push each reconcile commit to the branch's upstream.")
@click.option(
    "--interval",
    type=click.FloatRange(min=0.05),
    default=30.0,
    show_default=True,
    help="Seconds between polls of the branch (remote: fetches) when no event arrives.",
)
@click.option(
    "--listen",
    default="127.0.0.1:8080",
    show_default=True,
    help="HOST:PORT of /healthz, /readyz, /metrics, the status page and the webhook; port 0 picks a free "
    "port; 'off' serves nothing.",
)
@click.option(
    "--webhook-secret-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help=f"Shared secret of POST /hooks/git (GitHub signature or GitLab token); or set {SECRET_ENV}. "
    "Without one the webhook endpoint is off.",
)
@click.option(
    "--retry-budget",
    type=click.FloatRange(min=0),
    default=600.0,
    show_default=True,
    help="Seconds of consecutive failures after which /readyz reports not ready.",
)
@click.option(
    "--ssh-key",
    type=click.Path(exists=True, dir_okay=False),
    help="Private key for SSH remotes (a deploy key): fetch and push run ssh -i KEY -o IdentitiesOnly=yes.",
)
@click.option(
    "--ssh-command", help="The whole SSH command for fetch and push (GIT_SSH_COMMAND); wins over --ssh-key."
)
@click.option(
    "--askpass",
    type=click.Path(exists=True, dir_okay=False),
    help="A program git runs for HTTPS usernames and passwords (GIT_ASKPASS), e.g. one that prints a token.",
)
@allow_option
def watch_command(
    repo: Path,
    branch: str | None,
    remote: str | None,
    push: bool,
    interval: float,
    listen: str,
    webhook_secret_file: Path | None,
    retry_budget: float,
    ssh_key: str | None,
    ssh_command: str | None,
    askpass: str | None,
    allow: tuple[str, ...],
) -> None:
    """Keep BRANCH reconciled: on every new commit, render and commit (and push) like `reconcile`."""
    address = _listen_address(listen)
    access = RemoteAccess(ssh_key=ssh_key, ssh_command=ssh_command, askpass=askpass)
    store = GitStore.open(repo, remote_access=access)
    if branch is None:
        head = store.head_ref()
        if head is None or not head.startswith("refs/heads/"):
            raise click.UsageError("HEAD is detached: name the branch with --branch")
        branch = head.removeprefix("refs/heads/")
    settings = WatchSettings(
        branch=branch,
        remote=remote,
        push=push or remote is not None,
        interval=interval,
        allow=frozenset(allow),
        retry_budget=retry_budget,
    )
    store.resolve(settings.ref)  # a missing branch is an error now, not at the first run
    if remote is not None and store.upstream(settings.ref) != (remote, branch):
        raise click.UsageError(
            f"remote mode pushes {settings.ref} to its upstream, which must be {remote}/{branch}: "
            f"git branch --set-upstream-to={remote}/{branch} {branch}"
        )
    mode = "remote" if remote is not None else "local"
    status = DaemonStatus(Snapshot(repository=str(repo.resolve()), branch=branch, mode=mode))
    metrics = DaemonMetrics()
    worker = Worker(store, settings, status, metrics)
    server = (
        HttpServer(App(worker, status, metrics, _webhook_secret(webhook_secret_file)), *address)
        if address is not None
        else None
    )
    watched = (branch, worker.status_branch(store.resolve(settings.ref)))
    watcher = RefWatcher(store.git_dir, watched, lambda: worker.trigger("ref")) if remote is None else None

    def stop(signum: int, _frame: FrameType | None) -> None:
        logger.bind(logger="watch").info(
            "{}: finishing the run in progress, then stopping", signal.Signals(signum).name
        )
        worker.stop()

    def reload(_signum: int, _frame: FrameType | None) -> None:
        # the configuration lives in the repository and is read afresh by every run: run now
        logger.bind(logger="watch").info("SIGHUP: reconciling now with the configuration as committed")
        worker.trigger("SIGHUP")

    faulthandler.register(signal.SIGUSR1, all_threads=True)  # a stuck daemon shows its threads' stacks
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, reload)
    if server is not None:
        server.start()
    if watcher is not None:
        watcher.start()
    logger.bind(logger="watch", mode=mode, branch=branch, listen=server.address if server else "off").info(
        "watching {} of {} ({} mode){}", branch, repo, mode, f"; serving {server.address}" if server else ""
    )
    try:
        worker.serve()
    finally:
        if watcher is not None:
            watcher.stop()
        if server is not None:
            server.stop()
    logger.bind(logger="watch").info("stopped")
