"""Collecting member clusters for a fleet commit and recording them: what ``collect`` and the daemon share.

``collect`` reads one cluster (or takes a snapshot prepared elsewhere) and records one commit
(``collect_and_record``); the daemon's collect loop reads every configured cluster each interval and records
one commit per round (``record_round``), with only the snapshots that need recording
(``core.observed.member_status.needs_recording``), and in remote mode pushes the status branch with a lease on
the remote's tip. The fleet commit gives the inventory (which clusters exist) and each cluster's folder (which
objects to list); reading it is the expensive part, so a ``FleetForCollect`` is read once per commit and keeps
each cluster's object list.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from loguru import logger
from pydantic import ValidationError

from gitops_karmada import __version__
from gitops_karmada.adapters.cluster_reader import KUBECTL_MARGIN_SECONDS, Cancellation, collect_cluster
from gitops_karmada.adapters.repository import read_commit
from gitops_karmada.adapters.status_store import fetch_status_branch, read_snapshot, record_snapshots
from gitops_karmada.core.codecs.yaml_input import YamlSyntaxError, load_yaml_documents
from gitops_karmada.core.layout import CLUSTER_SCOPED_FOLDER, RepoLayout, branch_ref
from gitops_karmada.core.observed.member_status import (
    NOT_FOUND,
    READY,
    carry_over,
    needs_recording,
    parse_snapshot,
)
from gitops_karmada.core.observed.resource_names import crd_plurals, resource_plural
from gitops_karmada.model.config import StatusConfig
from gitops_karmada.model.diagnostics import SourceRef
from gitops_karmada.model.errors import GitError, GitopsKarmadaError, InputError, UsageError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime
    from pathlib import Path

    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.model.config import ToolConfig
    from gitops_karmada.model.status import ClusterStatusSnapshot

Identity = tuple[str, str, str, str]
"""(apiVersion, kind, namespace, name) of a manifest in a cluster's folder."""

PUSH_ATTEMPTS = 5
"""Pushes of one round's status commit; each rejection records the round again on the remote's new tip."""


class CollectInputError(GitopsKarmadaError):
    """The cluster to collect is not in the fleet, or the options name nothing usable (exit 1)."""


@dataclass(frozen=True, slots=True)
class Member:
    """A member cluster and how to reach it: a kubeconfig and, optionally, one of its contexts."""

    name: str
    kubeconfig: Path
    context: str | None = None


@dataclass(frozen=True, slots=True)
class ClusterObjects:
    """What the work status controller reads of one cluster: the manifests of its folder."""

    identities: tuple[Identity, ...]
    plurals: Mapping[tuple[str, str], str]
    """(apiVersion, kind) → the resource listed."""


@dataclass(frozen=True, slots=True)
class FleetForCollect:
    """What collecting needs of one fleet commit (its configuration, inventory and templates)."""

    commit: str
    config: ToolConfig
    clusters: frozenset[str]
    template_bodies: tuple[Mapping[str, Any], ...]
    """For CustomResourceDefinitions among the inputs (their plurals)."""
    _objects: dict[str, ClusterObjects] = field(default_factory=dict, compare=False, repr=False)

    @property
    def status_branch(self) -> str:
        return self.config.status.branch

    @property
    def grace_seconds(self) -> float:
        return self.config.failover.cluster_monitor_grace_period_seconds


def read_fleet_for_collect(store: GitStore, rev: str) -> FleetForCollect:
    """The configuration, inventory and templates of the fleet at ``rev``."""
    sha = store.resolve(rev)
    request = read_commit(store, sha, signals=False).request
    inputs = request.snapshot.load().inputs
    return FleetForCollect(
        commit=sha,
        config=request.config,
        clusters=frozenset(c.name for c in inputs.clusters),
        template_bodies=tuple(t.body for t in inputs.templates),
    )


def fleet_at(store: GitStore, commit: str, known: FleetForCollect | None) -> FleetForCollect:
    """The fleet at ``commit``, reusing ``known`` (read at an earlier commit) when the commits differ in the
    managed folders only, as a reconcile commit does: then only the object lists of the clusters whose
    folder changed are read again. A daemon moves to a new fleet commit with every reconcile."""
    if known is not None and known.commit == commit:
        return known
    if known is None:
        return read_fleet_for_collect(store, commit)
    layout = RepoLayout.of(known.config)
    changed = [change.path for change in store.diff(known.commit, commit)]
    if any(not path.startswith(layout.watched_prefixes) for path in changed):
        # the configuration, the inventory or a template may have changed
        return read_fleet_for_collect(store, commit)
    moved = {cluster for path in changed if (cluster := layout.cluster_of(path)) is not None}
    kept = {name: objects for name, objects in known._objects.items() if name not in moved}
    return replace(known, commit=commit, _objects=kept)


def require_member(fleet: FleetForCollect, cluster: str, rev: str) -> None:
    """CollectInputError unless ``cluster`` is in the fleet's inventory (``rev`` names the fleet)."""
    if cluster not in fleet.clusters:
        listed = ", ".join(sorted(fleet.clusters)) or "none"
        raise CollectInputError(
            f"no cluster {cluster!r} in the fleet's inventory at {rev} (clusters: {listed})"
        )


def rendered_objects(
    store: GitStore, sha: str, layout: RepoLayout, cluster: str
) -> tuple[list[Identity], list[Mapping[str, Any]]]:
    """The identities of the manifests in the cluster's folder at ``sha``, and their bodies."""
    folder = layout.cluster_folder(cluster)
    entries = [
        e
        for e in store.list_entries(sha, [folder])
        if e.is_regular_file and e.path.endswith((".yaml", ".yml"))
    ]
    blobs = store.read_blobs(sorted({e.oid for e in entries}))
    identities: list[Identity] = []
    bodies: list[Mapping[str, Any]] = []
    for entry in sorted(entries, key=lambda e: e.path):
        try:
            documents = [d.body for d in load_yaml_documents(blobs[entry.oid]) if d.body is not None]
        except YamlSyntaxError as err:
            logger.bind(logger="collect", file=entry.path).warning("{}: {}; not read", entry.path, err)
            continue
        # the folder under the cluster's names the namespace when a manifest leaves it out
        folder_namespace = entry.path.removeprefix(folder + "/").partition("/")[0]
        for body in documents:
            metadata = body.get("metadata") if isinstance(body, dict) else None
            if not isinstance(metadata, dict) or not all(
                isinstance(v, str) and v
                for v in (body.get("apiVersion"), body.get("kind"), metadata.get("name"))
            ):
                logger.bind(logger="collect", file=entry.path).warning(
                    "{}: not a Kubernetes object (apiVersion, kind, metadata.name); not read", entry.path
                )
                continue
            namespace = metadata.get("namespace") or (
                "" if folder_namespace == CLUSTER_SCOPED_FOLDER else folder_namespace
            )
            identities.append((body["apiVersion"], body["kind"], str(namespace), metadata["name"]))
            bodies.append(body)
    return identities, bodies


def cluster_objects(store: GitStore, fleet: FleetForCollect, cluster: str) -> ClusterObjects:
    """The objects of ``cluster``'s folder and their resources; read once per fleet commit and cluster."""
    known = fleet._objects.get(cluster)
    if known is not None:
        return known
    identities, bodies = rendered_objects(store, fleet.commit, RepoLayout.of(fleet.config), cluster)
    crds = crd_plurals([*fleet.template_bodies, *bodies])
    plurals = {(av, kind): resource_plural(av, kind, crds) for av, kind, _, _ in identities}
    found = ClusterObjects(tuple(identities), plurals)
    fleet._objects[cluster] = found
    return found


def observe_member(
    store: GitStore,
    fleet: FleetForCollect,
    member: Member,
    *,
    now: datetime,
    timeout: float,
    margin: float = KUBECTL_MARGIN_SECONDS,
    cancellation: Cancellation | None = None,
) -> ClusterStatusSnapshot:
    """What ``member`` reports at ``now``, as read (nothing carried over). CollectInputError when it is not
    in the fleet's inventory; CollectError when kubectl cannot be run or use the kubeconfig."""
    require_member(fleet, member.name, fleet.commit[:12])
    objects = cluster_objects(store, fleet, member.name)
    return collect_cluster(
        member.name,
        kubeconfig=member.kubeconfig,
        context=member.context,
        objects=objects.identities,
        plurals=objects.plurals,
        now=now,
        timeout=timeout,
        margin=margin,
        cancellation=cancellation,
    )


MAX_READERS = 8
"""Member clusters read at once by ``observe_members``."""


@dataclass(frozen=True, slots=True)
class Observation:
    """One member's part of a round: its snapshot as read, or why there is none."""

    member: Member
    snapshot: ClusterStatusSnapshot | None
    error: Exception | None
    seconds: float
    """How long reading it took."""


def observe_members(
    store: GitStore,
    fleet: FleetForCollect,
    members: Sequence[Member],
    *,
    now: datetime,
    timeout: float,
    margin: float = KUBECTL_MARGIN_SECONDS,
    cancellation: Cancellation | None = None,
) -> list[Observation]:
    """``observe_member`` for each of ``members``, in their order. The object lists are read from git first,
    in turn (the store is not shared between threads); the clusters are then read at once, up to
    ``MAX_READERS`` of them, so a hung cluster costs the round one kubectl bound, not one per cluster. One
    member's failure is its ``Observation``'s error and never stops the others."""
    prepared: list[ClusterObjects | Exception] = []
    for member in members:
        try:
            require_member(fleet, member.name, fleet.commit[:12])
            prepared.append(cluster_objects(store, fleet, member.name))
        except Exception as err:  # one member's problem is reported with its observation
            prepared.append(err)

    def read(member: Member, objects: ClusterObjects | Exception) -> Observation:
        if isinstance(objects, Exception):
            return Observation(member, None, objects, 0.0)
        started = time.monotonic()
        try:
            snapshot = collect_cluster(
                member.name,
                kubeconfig=member.kubeconfig,
                context=member.context,
                objects=objects.identities,
                plurals=objects.plurals,
                now=now,
                timeout=timeout,
                margin=margin,
                cancellation=cancellation,
            )
        except Exception as err:  # reported by the caller, per member
            return Observation(member, None, err, time.monotonic() - started)
        return Observation(member, snapshot, None, time.monotonic() - started)

    if not members:
        return []
    workers = min(MAX_READERS, len(members))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="collect") as pool:
        return list(pool.map(read, members, prepared))


def previous_snapshot(store: GitStore, branch: str, cluster: str) -> ClusterStatusSnapshot | None:
    """The cluster's snapshot at the tip of ``branch``; None (and a warning) when it is malformed."""
    try:
        return read_snapshot(store, branch, cluster)
    except InputError as err:
        logger.bind(logger="collect", cluster=cluster).warning("{}; nothing of it is carried over", err)
        return None


def collect_member(
    store: GitStore, fleet: FleetForCollect, member: Member, *, branch: str, now: datetime, timeout: float
) -> ClusterStatusSnapshot:
    """``observe_member``, then carried over from the snapshot recorded on ``branch`` (Karmada keeps what a
    cluster last reported while it is not ready)."""
    observed = observe_member(store, fleet, member, now=now, timeout=timeout)
    return carry_over(previous_snapshot(store, branch, member.name), observed)


# -- the collect command: one cluster, one commit ----------------------------------------------------------


class StatusBranchError(UsageError):
    """The status branch asked for cannot hold status: not a branch name, or the fleet's own branch."""


@dataclass(frozen=True, slots=True)
class Collected:
    """What one ``collect`` recorded."""

    snapshot: ClusterStatusSnapshot
    """As recorded (carried over from the branch when read from the cluster)."""
    branch: str
    commit: str | None
    """The status commit made; None when the branch already held this snapshot."""
    tip: str | None
    """The status branch's tip afterwards."""
    fleet_commit: str


def collect_and_record(
    store: GitStore,
    rev: str,
    cluster: str,
    source: Member | Path,
    *,
    status_branch: str | None = None,
    now: datetime,
    timeout: float,
) -> Collected:
    """Read ``cluster`` (``source``: how to reach it, or a snapshot file prepared elsewhere) for the fleet
    at ``rev`` and record it on ``status_branch`` (None: the one the fleet's configuration names)."""
    fleet = read_fleet_for_collect(store, rev)
    branch = checked_status_branch(store, rev, status_branch or fleet.status_branch)
    require_member(fleet, cluster, rev)
    if isinstance(source, Member):
        snapshot = collect_member(store, fleet, source, branch=branch, now=now, timeout=timeout)
    else:
        snapshot = prepared_snapshot(source, cluster)
    commit = record_snapshots(store, branch, [snapshot], status_message([snapshot], fleet.commit))
    return Collected(snapshot, branch, commit, store.try_resolve(branch_ref(branch)), fleet.commit)


def checked_status_branch(store: GitStore, rev: str, branch: str) -> str:
    """``branch`` when it can hold status: a branch name that is not the fleet's (``rev``) branch."""
    try:
        branch = StatusConfig(branch=branch).branch
    except ValidationError:
        raise StatusBranchError(f"{branch!r} is not a branch name") from None
    if branch_ref(branch) in {store.head_ref(), rev, f"refs/heads/{rev}"}:
        raise StatusBranchError(f"{branch} is the fleet branch; status goes to a branch of its own")
    return branch


def prepared_snapshot(path: Path, cluster: str) -> ClusterStatusSnapshot:
    """The snapshot of ``cluster`` in the file ``path`` (prepared elsewhere: air-gapped fleets, tests)."""
    source = SourceRef(str(path), 0)
    snapshot = parse_snapshot(path.read_bytes(), source, "given with --snapshot")
    if snapshot.cluster != cluster:
        raise InputError(
            f"names cluster {snapshot.cluster!r}, not --cluster {cluster!r}", source, "metadata.name"
        )
    return snapshot


# -- what a snapshot says, for messages and reports --------------------------------------------------------


def object_counts(snapshot: ClusterStatusSnapshot) -> dict[str, int]:
    objects = snapshot.objects
    found = sum(1 for o in objects if o.observed is not None)
    missing = sum(1 for o in objects if o.observed is None and o.error == NOT_FOUND)
    return {
        "total": len(objects),
        "found": found,
        "missing": missing,
        "unreadable": len(objects) - found - missing,
    }


def ready_of(snapshot: ClusterStatusSnapshot) -> dict[str, str]:
    condition = next((c for c in snapshot.status.conditions if c.type == READY), None)
    if condition is None:
        return {"status": "Unknown", "reason": "", "message": "the snapshot has no Ready condition"}
    return {"status": condition.status, "reason": condition.reason, "message": condition.message}


def _ready_line(snapshot: ClusterStatusSnapshot) -> str:
    ready = ready_of(snapshot)
    return f"Ready {ready['status']} ({ready['reason'] or 'no reason'})"


def _counts_line(snapshot: ClusterStatusSnapshot) -> str:
    counts = object_counts(snapshot)
    return (
        f"{counts['total']} object(s): {counts['found']} found, {counts['missing']} missing, "
        f"{counts['unreadable']} unreadable"
    )


def status_message(snapshots: Sequence[ClusterStatusSnapshot], fleet_commit: str) -> str:
    """The status commit's message: one cluster as ``collect`` has always written it; several (a daemon's
    round) with a line per cluster and a ``Cluster`` trailer each."""
    trailers = f"Fleet-Commit: {fleet_commit}\nCollected-By: gitops-karmada {__version__}\n"
    if len(snapshots) == 1:
        (one,) = snapshots
        return (
            f"collect {one.cluster}: {_ready_line(one)}\n\n{_counts_line(one)}\n\n"
            f"Cluster: {one.cluster}\nCollected-At: {one.collected_at}\n{trailers}"
        )
    ordered = sorted(snapshots, key=lambda s: s.cluster)
    subject = ", ".join(f"{s.cluster} Ready {ready_of(s)['status']}" for s in ordered)
    lines = "".join(f"{s.cluster}: {_ready_line(s)}; {_counts_line(s)}\n" for s in ordered)
    clusters = "".join(f"Cluster: {s.cluster}\n" for s in ordered)
    newest = max(s.collected_at for s in ordered)
    return (
        f"collect {len(ordered)} clusters: {subject}\n\n{lines}\n{clusters}Collected-At: {newest}\n{trailers}"
    )


# -- a round: several clusters, one commit, pushed with a lease ---------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    snapshots: tuple[ClusterStatusSnapshot, ...]
    """Every observed cluster's snapshot as carried over from the branch (recorded or not)."""
    recorded: tuple[str, ...] = ()
    """The clusters whose snapshots went into ``commit``."""
    commit: str | None = None
    """The status commit made; None when no snapshot needed recording."""
    pushed: bool = False
    rejected: int = 0
    """Pushes rejected because the remote status branch had moved on (each recorded the round again)."""


def record_round(
    store: GitStore,
    branch: str,
    observed: Sequence[ClusterStatusSnapshot],
    *,
    fleet_commit: str,
    grace_seconds: float,
    interval_seconds: float,
    remote: str | None = None,
) -> RoundOutcome:
    """Record ``observed`` (snapshots as read, nothing carried over) on ``branch`` as one commit, leaving out
    those ``needs_recording`` skips (``interval_seconds``: until the collector's next round); no commit when
    none is left. With ``remote``: the remote's status branch is fetched first and the commit pushed with a
    lease on the tip fetched; a rejection fetches again and records the round on the new tip, up to
    ``PUSH_ATTEMPTS`` times."""
    rejected = 0
    for attempt in range(1, PUSH_ATTEMPTS + 1):
        expected = _from_remote(store, remote, branch) if remote is not None else None
        carried, due = _due(store, branch, observed, grace_seconds, interval_seconds)
        outcome = RoundOutcome(carried, rejected=rejected)
        if not due:
            return outcome
        commit = record_snapshots(store, branch, due, status_message(due, fleet_commit))
        if commit is None:
            return outcome
        recorded = tuple(s.cluster for s in due)
        if remote is None:
            return RoundOutcome(carried, recorded, commit)
        try:
            store.push_with_lease(remote, commit, branch, expected)
        except GitError as err:
            if not err.temporary or attempt == PUSH_ATTEMPTS:
                raise
            rejected += 1
            logger.bind(logger="collect", attempt=attempt).info(
                "status push rejected, recording the round again on {}'s tip: {}", remote, err.detail
            )
            continue
        return RoundOutcome(carried, recorded, commit, pushed=True, rejected=rejected)
    raise AssertionError("unreachable")  # pragma: no cover


def _from_remote(store: GitStore, remote: str, branch: str) -> str | None:
    """Move the local ``branch`` to the remote's (dropping it when the remote has none: it then holds only
    rounds whose push failed, which must not keep a heartbeat off the remote); the remote's tip."""
    expected = fetch_status_branch(store, remote, branch)
    if expected is None:
        ref = branch_ref(branch)
        store.runner.run(["update-ref", "-d", ref], operation="update-ref", what=f"deleting {ref}")
    return expected


def _due(
    store: GitStore,
    branch: str,
    observed: Sequence[ClusterStatusSnapshot],
    grace_seconds: float,
    interval_seconds: float,
) -> tuple[tuple[ClusterStatusSnapshot, ...], list[ClusterStatusSnapshot]]:
    """Each observation carried over from the branch's tip, and those of them that need recording."""
    carried: list[ClusterStatusSnapshot] = []
    due: list[ClusterStatusSnapshot] = []
    for snapshot in observed:
        previous = previous_snapshot(store, branch, snapshot.cluster)
        current = carry_over(previous, snapshot)
        carried.append(current)
        if needs_recording(previous, current, grace_seconds=grace_seconds, interval_seconds=interval_seconds):
            due.append(current)
    return tuple(carried), due
