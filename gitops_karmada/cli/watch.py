"""``gitops-karmada watch``: the long-lived reconciler daemon, started from its options.

This verb parses the options into a ``daemon.settings.DaemonSettings`` and runs ``daemon.main.run_daemon``:
local mode watches the branch's ref and reconciles each new tip in the repository; remote mode fetches
``--remote`` on an interval (and on a push webhook), reconciles and pushes. One run at a time, coalescing;
backoff on temporary failures; SIGTERM finishes the run in progress and exits 0; SIGHUP starts a run at
once. With ``--collect`` a collect loop records the member clusters' status on the status branch every
``--collect-interval``. See docs/daemon.md.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from gitops_karmada.adapters.gc_tuning import keep_collecting
from gitops_karmada.adapters.git_fetch import RemoteAccess
from gitops_karmada.cli.logs import use_timestamps
from gitops_karmada.cli.options import allow_option, repo_option
from gitops_karmada.daemon.main import run_daemon
from gitops_karmada.daemon.push_gate import DEFAULT_PUSH_INTERVAL
from gitops_karmada.daemon.settings import DaemonSettings, HttpAccess, HttpLimits
from gitops_karmada.model.base import is_dns1123_label
from gitops_karmada.model.errors import UsageError
from gitops_karmada.usecases.collect import Member

if TYPE_CHECKING:
    from collections.abc import Sequence

SECRET_ENV = "GITOPS_KARMADA_WEBHOOK_SECRET"


def _listen_address(value: str) -> tuple[str, int] | None:
    if value == "off":
        return None
    host, colon, port = value.rpartition(":")
    if not colon or not port.isdigit() or int(port) > 65535:
        raise UsageError(f"--listen {value!r} is not HOST:PORT (or 'off')")
    return host or "127.0.0.1", int(port)


def _webhook_secret(path: Path | None) -> bytes | None:
    """The webhook's shared secret; None: no secret given (the webhook is off, and the log says so). A
    secret given but empty is refused: it would turn the webhook off without a word."""
    if path is not None:
        try:
            secret = path.read_bytes().strip()
        except OSError as err:
            raise UsageError(f"--webhook-secret-file {path}: cannot read it: {err.strerror}") from None
        if not secret:
            raise UsageError(
                f"--webhook-secret-file {path} is empty: put the shared secret in it (or leave the option "
                "out to run without the webhook)"
            )
        return secret
    raw = os.environ.get(SECRET_ENV, "")
    if raw and not raw.strip():
        raise UsageError(f"{SECRET_ENV} holds only whitespace: set the shared secret (or unset it)")
    return raw.strip().encode() or None


def _token(path: Path | None) -> bytes | None:
    """The bearer token of the page and ``/explain``; an empty file is refused (it would open them)."""
    if path is None:
        return None
    try:
        token = path.read_bytes().strip()
    except OSError as err:
        raise UsageError(f"--token-file {path}: cannot read it: {err.strerror}") from None
    if not token or any(c <= 32 or c >= 127 for c in token):
        raise UsageError(f"--token-file {path}: put one token in it (printable ASCII, no spaces)")
    return token


def _member(value: str) -> Member:
    """``NAME=KUBECONFIG`` or ``NAME=KUBECONFIG@CONTEXT`` (a kubeconfig whose own path holds ``@`` is taken
    whole when that file exists)."""
    name, equals, rest = value.partition("=")
    if not equals or not name or not rest:
        raise UsageError(f"--collect {value!r} is not NAME=KUBECONFIG[@CONTEXT]")
    if not is_dns1123_label(name):
        raise UsageError(f"--collect {value!r}: {name!r} is not a cluster name (a DNS-1123 label)")
    path, context = Path(rest), None
    if not path.is_file() and "@" in rest:
        file, _, context = rest.rpartition("@")
        path = Path(file)
    if not path.is_file():
        raise UsageError(f"--collect {value!r}: the kubeconfig of {name}, {str(path)!r}, is not a file")
    return Member(name, path, context or None)


def _members(_ctx: click.Context, _param: click.Parameter, values: Sequence[str]) -> tuple[Member, ...]:
    members = tuple(_member(value) for value in values)
    names = [m.name for m in members]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"--collect: cluster {twice[0]!r} is given more than once")
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
    "--push-interval",
    type=click.FloatRange(min=0),
    default=DEFAULT_PUSH_INTERVAL,
    show_default=True,
    metavar="SECONDS",
    help="At most one push to the remote per this many seconds: a run sooner commits and its push is held "
    "back, then made with the newest commit when the interval is over; 0: push after every run.",
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
    "--token-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A bearer token (the file's content) that the status page and /explain ask for "
    "(Authorization: Bearer TOKEN); the probes stay open.",
)
@click.option("--token-for-metrics", is_flag=True, help="/metrics asks for the --token-file token too.")
@click.option(
    "--http-read-timeout",
    type=click.FloatRange(min=0.1),
    default=10.0,
    show_default=True,
    metavar="SECONDS",
    help="Seconds a client has to send a request's line and headers (and its body); then it is dropped.",
)
@click.option(
    "--http-max-connections",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    help="HTTP connections served at once; the next waits 2 s for a slot, then is answered 503.",
)
@click.option(
    "--webhook-rate",
    type=click.FloatRange(min=0.01),
    default=10.0,
    show_default=True,
    metavar="PER_SECOND",
    help="Webhook deliveries accepted a second (twice as many at once); beyond that: 429.",
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
    push_interval: float,
    listen: str,
    webhook_secret_file: Path | None,
    token_file: Path | None,
    token_for_metrics: bool,
    http_read_timeout: float,
    http_max_connections: int,
    webhook_rate: float,
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
    use_timestamps()  # a daemon's lines are read later, next to other logs: each says when
    keep_collecting()  # its runs come and go: their cycles must be freed (a one-shot command does not)
    address = _listen_address(listen)
    secret = _webhook_secret(webhook_secret_file)
    if address is None and secret is not None:
        raise UsageError("a webhook secret is given but --listen is off: nothing would receive the webhook")
    token = _token(token_file)
    if token is None and token_for_metrics:
        raise UsageError("--token-for-metrics needs --token-file")
    limits = HttpLimits(
        max_connections=http_max_connections,
        read_timeout=http_read_timeout,
        webhooks_per_second=webhook_rate,
        webhook_burst=max(int(webhook_rate * 2), 1),
    )
    settings = DaemonSettings(
        repo=repo,
        branch=branch,
        remote=remote,
        push=push,
        interval=interval,
        push_interval=push_interval,
        listen=address,
        webhook_secret=secret,
        retry_budget=retry_budget,
        http=limits,
        http_access=HttpAccess(token=token, metrics=token_for_metrics),
        access=RemoteAccess(ssh_key=ssh_key, ssh_command=ssh_command, askpass=askpass),
        members=members,
        collect_interval=collect_interval,
        collect_timeout=collect_timeout,
        allow=frozenset(allow),
    )
    code = run_daemon(settings)  # a SettingsError (a UsageError) is one line and exit 2, like these above
    if code:
        raise click.exceptions.Exit(code)
