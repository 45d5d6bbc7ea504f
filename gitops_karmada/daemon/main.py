"""Starting and stopping the daemon: its parts assembled from ``DaemonSettings``, signals, one serve loop.

Local mode watches the branch's ref (watchdog) and reconciles each new tip in the repository; remote mode
fetches the remote on an interval (and on a push webhook), reconciles and pushes with the existing
fetch–re-render–retry loop. SIGTERM and SIGINT finish the run in progress and stop; SIGHUP starts a run at
once; SIGUSR1 prints every thread's stack. See docs/daemon.md.
"""

from __future__ import annotations

import faulthandler
import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING

from loguru import logger

from gitops_karmada.adapters.git_fetch import abandon_fetches
from gitops_karmada.adapters.git_remote import abandon_remote_calls
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.daemon.collect_loop import CollectLoop
from gitops_karmada.daemon.metrics import DaemonMetrics
from gitops_karmada.daemon.refs import RefWatcher
from gitops_karmada.daemon.server import App, HttpServer
from gitops_karmada.daemon.settings import CollectLoopSettings, SettingsError, WorkerSettings
from gitops_karmada.daemon.status import DaemonStatus, Snapshot
from gitops_karmada.daemon.worker import Worker

if TYPE_CHECKING:
    from types import FrameType

    from gitops_karmada.daemon.settings import DaemonSettings


@dataclass(frozen=True, slots=True)
class Daemon:
    """The daemon's threads, built and not yet started."""

    worker: Worker
    server: HttpServer | None
    """None: ``--listen off``."""
    collect_loop: CollectLoop | None
    """None: no member cluster to collect."""
    watcher: RefWatcher | None
    """None in remote mode (the worker fetches instead)."""


def run_daemon(settings: DaemonSettings) -> int:
    """Keep the branch reconciled until a signal stops the daemon; the exit code (0: stopped as asked).
    ``SettingsError``: the settings do not fit the repository, and nothing was started."""
    store = GitStore.open(settings.repo, remote_access=settings.access)
    daemon = assemble(store, settings, worker_settings(store, settings))
    handle_signals(daemon)
    start(daemon, settings)
    try:
        daemon.worker.serve()
    finally:
        stop(daemon)
    logger.bind(logger="watch").info("stopped")
    return 0


def worker_settings(store: GitStore, settings: DaemonSettings) -> WorkerSettings:
    """The worker's settings, once the branch is known to exist (and, in remote mode, to track the
    remote): a mistake is an error now, not at the first run."""
    branch = settings.branch
    if branch is None:
        head = store.head_ref()
        if head is None or not head.startswith("refs/heads/"):
            raise SettingsError("HEAD is detached: name the branch with --branch")
        branch = head.removeprefix("refs/heads/")
    worker = WorkerSettings(
        branch=branch,
        remote=settings.remote,
        push=settings.push or settings.remote is not None,
        interval=settings.interval,
        allow=settings.allow,
        retry_budget=settings.retry_budget,
        push_interval=settings.push_interval,
    )
    if store.try_resolve(worker.ref) is None:
        named = "--branch" if settings.branch is not None else "the checked-out branch"
        raise SettingsError(f"{named} {branch}: {settings.repo} has no commit on it")
    remote = settings.remote
    if remote is not None and remote not in (known := store.remotes()):
        # the upstream hint below would name a remote that does not exist
        listed = f"its remotes are {', '.join(known)}" if known else "it has no remote"
        raise SettingsError(
            f"--remote {remote}: {settings.repo} has no such remote ({listed}); "
            f"add it with git remote add {remote} URL, or name another"
        )
    if remote is not None and store.upstream(worker.ref) != (remote, branch):
        raise SettingsError(
            f"remote mode pushes {worker.ref} to its upstream, which must be {remote}/{branch}: "
            f"git branch --set-upstream-to={remote}/{branch} {branch}"
        )
    return worker


def assemble(store: GitStore, settings: DaemonSettings, worker_settings: WorkerSettings) -> Daemon:
    """The worker and the threads that wake it: the HTTP server (its port is bound here), the collect loop
    and, in local mode, the watcher of the fleet and status branches' refs."""
    snapshot = Snapshot(
        repository=str(settings.repo.resolve()), branch=worker_settings.branch, mode=settings.mode
    )
    status = DaemonStatus(snapshot)
    metrics = DaemonMetrics()
    worker = Worker(store, worker_settings, status, metrics)
    server = None
    if settings.listen is not None:
        app = App(worker, status, metrics, settings.webhook_secret, settings.http, settings.http_access)
        server = HttpServer(app, *settings.listen)
    collect_loop = None
    if settings.members:
        loop_settings = CollectLoopSettings(
            settings.members, interval=settings.collect_interval, timeout=settings.collect_timeout
        )
        collect_loop = CollectLoop(
            store, loop_settings, worker_settings, status, metrics, lambda: worker.trigger("collect")
        )
    watcher = None
    if settings.remote is None:
        watched = (worker_settings.branch, worker.status_branch(store.resolve(worker_settings.ref)))
        watcher = RefWatcher(store.git_dir, watched, lambda: worker.trigger("ref"))
    return Daemon(worker, server, collect_loop, watcher)


def handle_signals(daemon: Daemon) -> None:
    """SIGTERM and SIGINT stop after the run in progress; SIGHUP runs now; SIGUSR1 dumps the stacks."""

    def stop_after_run(signum: int, _frame: FrameType | None) -> None:
        logger.bind(logger="watch").info(
            "{}: finishing the run in progress, then stopping", signal.Signals(signum).name
        )
        daemon.worker.stop()
        if daemon.collect_loop is not None:
            daemon.collect_loop.stop()
        # a fetch, a push or an ls-remote can hang for its whole bound (10 minutes): stopping does not wait
        if abandon_fetches():
            logger.bind(logger="watch").info("abandoned the fetch in flight")
        if abandon_remote_calls():
            logger.bind(logger="watch").info("abandoned the push or ls-remote in flight")

    def run_now(_signum: int, _frame: FrameType | None) -> None:
        # the configuration lives in the repository and is read afresh by every run: run now
        logger.bind(logger="watch").info("SIGHUP: reconciling now with the configuration as committed")
        daemon.worker.trigger("SIGHUP")

    faulthandler.register(signal.SIGUSR1, all_threads=True)  # a stuck daemon shows its threads' stacks
    signal.signal(signal.SIGTERM, stop_after_run)
    signal.signal(signal.SIGINT, stop_after_run)
    signal.signal(signal.SIGHUP, run_now)


def start(daemon: Daemon, settings: DaemonSettings) -> None:
    """Start the threads around the worker (the worker runs in the caller's thread)."""
    server, members = daemon.server, settings.members
    if server is not None:
        server.start()
    if daemon.watcher is not None:
        daemon.watcher.start()
    if daemon.collect_loop is not None:
        daemon.collect_loop.start()
        logger.bind(logger="watch", collect=[m.name for m in members]).info(
            "collecting {} every {:g} s", ", ".join(m.name for m in members), settings.collect_interval
        )
    branch, mode = daemon.worker.settings.branch, settings.mode
    logger.bind(logger="watch", mode=mode, branch=branch, listen=server.address if server else "off").info(
        "watching {} of {} ({} mode){}",
        branch,
        settings.repo,
        mode,
        f"; serving {server.address}" if server else "",
    )
    if server is not None:
        log = logger.bind(logger="watch", webhook=settings.webhook_secret is not None)
        if settings.webhook_secret is not None:
            log.info("webhook on: POST {}/hooks/git (GitHub or GitLab push events)", server.address)
        else:
            log.info("webhook off: no secret given (--webhook-secret-file); POST /hooks/git answers 404")


def stop(daemon: Daemon) -> None:
    """Stop the threads around the worker once it has returned (the collect loop waits for at most one
    request's bound)."""
    if daemon.collect_loop is not None:
        daemon.collect_loop.stop()
        daemon.collect_loop.join()
    if daemon.watcher is not None:
        daemon.watcher.stop()
    if daemon.server is not None:
        daemon.server.stop()
