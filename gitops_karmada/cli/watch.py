"""``gitops-karmada watch``: the long-lived reconciler daemon.

Local mode watches the branch's ref (watchdog) and reconciles each new tip in the repository; remote mode
fetches ``--remote`` on an interval (and on a push webhook), reconciles and pushes with the existing
fetch–re-render–retry loop. One run at a time, coalescing; backoff on temporary failures; SIGTERM finishes
the run in progress and exits 0; SIGHUP starts a run at once. With ``--collect`` a collector thread records
the member clusters' status on the status branch every ``--collect-interval``. See docs/daemon.md.
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
from gitops_karmada.daemon.collect_loop import Collector, CollectSettings
from gitops_karmada.daemon.metrics import DaemonMetrics
from gitops_karmada.daemon.refs import RefWatcher
from gitops_karmada.daemon.server import App, HttpServer
from gitops_karmada.daemon.status import DaemonStatus, Snapshot
from gitops_karmada.daemon.worker import WatchSettings, Worker
from gitops_karmada.model.base import is_dns1123_label
from gitops_karmada.usecases.collect import Member

if TYPE_CHECKING:
    from collections.abc import Sequence
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


def _member(value: str) -> Member:
    """``NAME=KUBECONFIG`` or ``NAME=KUBECONFIG@CONTEXT`` (a kubeconfig whose own path holds ``@`` is taken
    whole when that file exists)."""
    name, equals, rest = value.partition("=")
    if not equals or not name or not rest:
        raise click.BadParameter(f"{value!r} is not NAME=KUBECONFIG[@CONTEXT]", param_hint="--collect")
    if not is_dns1123_label(name):
        raise click.BadParameter(f"{name!r} is not a cluster name (a DNS-1123 label)", param_hint="--collect")
    path, context = Path(rest), None
    if not path.is_file() and "@" in rest:
        file, _, context = rest.rpartition("@")
        path = Path(file)
    if not path.is_file():
        raise click.BadParameter(
            f"the kubeconfig of {name}, {str(path)!r}, is not a file", param_hint="--collect"
        )
    return Member(name, path, context or None)


def _members(_ctx: click.Context, _param: click.Parameter, values: Sequence[str]) -> tuple[Member, ...]:
    members = tuple(_member(value) for value in values)
    names = [m.name for m in members]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise click.BadParameter(f"cluster {twice[0]!r} is given more than once", param_hint="--collect")
    return members


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
@click.option(
    "--collect",
    "members",
    multiple=True,
    metavar="NAME=KUBECONFIG[@CONTEXT]",
    callback=_members,
    help="Collect member cluster NAME through this kubeconfig (and context) every --collect-interval and "
    "record its status on the status branch (pushed in remote mode); repeat for each cluster.",
)
@click.option(
    "--collect-interval",
    type=click.FloatRange(min=0.05),
    default=20.0,
    show_default=True,
    metavar="SECONDS",
    help="Seconds between collection rounds; keep it below failover.clusterMonitorGracePeriodSeconds "
    "(default 40) or healthy clusters turn Ready=Unknown.",
)
@click.option(
    "--collect-timeout",
    type=click.FloatRange(min=0.1, max=600),
    default=10.0,
    show_default=True,
    metavar="SECONDS",
    help="Seconds one request to a member cluster may take; no answer in time: not reachable.",
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
    members: tuple[Member, ...],
    collect_interval: float,
    collect_timeout: float,
    allow: tuple[str, ...],
) -> None:
    """Keep BRANCH reconciled: on every new commit, render and commit (and push) like `reconcile`.

    With --collect, also read those member clusters every --collect-interval and record their status on the
    status branch (one commit per round, only when something changed or the heartbeat is half the monitor
    grace period old); each status commit starts a run. See docs/daemon.md.
    """
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
    collector = None
    if members:
        collect = CollectSettings(members, interval=collect_interval, timeout=collect_timeout)
        collector = Collector(store, collect, settings, status, metrics, lambda: worker.trigger("collect"))
    watched = (branch, worker.status_branch(store.resolve(settings.ref)))
    watcher = RefWatcher(store.git_dir, watched, lambda: worker.trigger("ref")) if remote is None else None

    def stop(signum: int, _frame: FrameType | None) -> None:
        logger.bind(logger="watch").info(
            "{}: finishing the run in progress, then stopping", signal.Signals(signum).name
        )
        worker.stop()
        if collector is not None:
            collector.stop()

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
    if collector is not None:
        collector.start()
        logger.bind(logger="watch", collect=[m.name for m in members]).info(
            "collecting {} every {:g} s", ", ".join(m.name for m in members), collect_interval
        )
    logger.bind(logger="watch", mode=mode, branch=branch, listen=server.address if server else "off").info(
        "watching {} of {} ({} mode){}", branch, repo, mode, f"; serving {server.address}" if server else ""
    )
    try:
        worker.serve()
    finally:
        if collector is not None:
            collector.stop()
            collector.join()
        if watcher is not None:
            watcher.stop()
        if server is not None:
            server.stop()
    logger.bind(logger="watch").info("stopped")
