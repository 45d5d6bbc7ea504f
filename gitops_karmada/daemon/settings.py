"""The daemon's settings as frozen values: the whole daemon's, its worker's and its collect loop's.

``watch`` parses its options into a ``DaemonSettings`` and hands it to ``daemon.main.run_daemon``; the
daemon derives the worker's and the collect loop's settings from it once it has read the repository.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.adapters.cluster_reader import KUBECTL_MARGIN_SECONDS
from gitops_karmada.adapters.git_fetch import RemoteAccess
from gitops_karmada.daemon.push_gate import DEFAULT_PUSH_INTERVAL
from gitops_karmada.model.errors import UsageError

if TYPE_CHECKING:
    from pathlib import Path

    from gitops_karmada.usecases.collect import Member


class SettingsError(UsageError):
    """The settings do not fit the repository (a detached HEAD and no branch, a remote that is not the
    branch's upstream): nothing was started."""


@dataclass(frozen=True, slots=True)
class HttpLimits:
    """What one client can make the HTTP server hold (see docs/security.md)."""

    max_connections: int = 64
    """Connections served at once; the next waits for a slot (2 s), then is answered 503."""
    read_timeout: float = 10.0
    """Seconds a client has to send a request's line and headers (and, separately, its body)."""
    header_bytes: int = 64 * 1024
    """The request line and headers together; beyond: 431."""
    webhooks_per_second: float = 10.0
    """Webhook deliveries accepted a second (``webhook_burst`` at once); beyond: 429."""
    webhook_burst: int = 20


@dataclass(frozen=True, slots=True)
class HttpAccess:
    """Who may read what: a bearer token for the status page and ``/explain`` (and optionally ``/metrics``);
    the probes always answer (the kubelet sends no token)."""

    token: bytes | None = None
    """None: everything is open (the default, on loopback)."""
    metrics: bool = False
    """``/metrics`` needs the token too."""

    @property
    def protected(self) -> frozenset[str]:
        """The paths that need the token."""
        if self.token is None:
            return frozenset()
        return frozenset({"/", "/explain", "/metrics"} if self.metrics else {"/", "/explain"})


@dataclass(frozen=True, slots=True)
class DaemonSettings:
    repo: Path
    """The fleet repository, as given (logged so)."""
    branch: str | None = None
    """The short branch name to keep reconciled; None: the checked-out branch."""
    remote: str | None = None
    """Remote mode: fetch this remote's branch every ``interval`` (and on webhooks), reconcile, push."""
    push: bool = False
    """Local mode: push each reconcile commit to the branch's upstream (remote mode always pushes)."""
    interval: float = 30.0
    listen: tuple[str, int] | None = ("127.0.0.1", 8080)
    """Where the HTTP endpoints are served; None: nowhere."""
    webhook_secret: bytes | None = None
    """The shared secret of ``POST /hooks/git``; None: the webhook endpoint is off."""
    retry_budget: float = 600.0
    push_interval: float = DEFAULT_PUSH_INTERVAL
    """At most one push to the remote per this many seconds (``daemon.push_gate``); 0: no holding back."""
    http: HttpLimits = field(default_factory=HttpLimits)
    """What one client can make the HTTP server hold."""
    http_access: HttpAccess = field(default_factory=HttpAccess)
    """The bearer token of the page and ``/explain``, if any."""
    access: RemoteAccess = field(default_factory=RemoteAccess)
    """How git authenticates to the remote (fetch and push)."""
    members: tuple[Member, ...] = ()
    """The member clusters to collect; none: no collect loop."""
    collect_interval: float = 20.0
    collect_timeout: float = 10.0
    allow: frozenset[str] = frozenset()
    """Guardrails lifted, by name, as for ``reconcile --allow``."""

    @property
    def mode(self) -> str:
        return "remote" if self.remote is not None else "local"


PACK_LIMIT = 50
"""Git's ``gc.autoPackLimit`` default: past it ``git gc --auto`` merges the packs."""
LOOSE_LIMIT = 6700
"""Git's ``gc.auto`` default: past this many loose objects ``git gc --auto`` packs them."""


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    branch: str
    """The short branch name (``main``)."""
    remote: str | None
    """Remote mode: fetch this remote's ``branch`` every ``interval`` and push the result."""
    push: bool
    interval: float
    allow: frozenset[str] = frozenset()
    debounce: float = 0.2
    backoff: float = 1.0
    """First retry delay after a temporary failure; doubles each time up to ``max_backoff``."""
    max_backoff: float = 300.0
    retry_budget: float = 600.0
    """How long failures may last before ``/readyz`` says not ready."""
    push_interval: float = DEFAULT_PUSH_INTERVAL
    """At most one push to the remote per this many seconds; 0: every run pushes at once."""
    pack_limit: int = PACK_LIMIT
    """Packs in the clone past which the worker packs them between runs."""
    loose_limit: int = LOOSE_LIMIT
    """Loose objects in the clone past which the worker packs them between runs."""

    @property
    def ref(self) -> str:
        return f"refs/heads/{self.branch}"


@dataclass(frozen=True, slots=True)
class CollectLoopSettings:
    members: tuple[Member, ...]
    interval: float = 20.0
    """Seconds from the start of one round to the start of the next."""
    timeout: float = 10.0
    """Seconds one request to a cluster may take."""
    margin: float = KUBECTL_MARGIN_SECONDS
    """Beyond ``timeout``: kubectl's start and a credential plugin's run, before a call is killed."""

    @property
    def stop_bound(self) -> float:
        """How long a request in flight could keep the collect loop from stopping (kubectl's own bound; the
        calls in flight are killed when it stops, so this is only the last resort of ``join``)."""
        return self.timeout + self.margin
