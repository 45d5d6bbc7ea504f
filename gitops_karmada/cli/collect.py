"""``gitops-karmada collect``: record what one member cluster reports on the status branch.

With ``--kubeconfig`` the cluster is read through kubectl: its health, version, nodes and pods (what
Karmada's cluster status controller reads) and each object rendered into its folder at REV (what the work
status controller reads). With ``--snapshot`` a snapshot prepared elsewhere is recorded (air-gapped
fleets, tests). Either way one commit goes to the status branch; the fleet branch never changes. An
unreachable cluster is an observation like any other: recorded (Ready=False), exit 0.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click
from loguru import logger
from pydantic import ValidationError

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.status_store import branch_ref, record_snapshots
from gitops_karmada.cli.options import output_option, repo_option
from gitops_karmada.cli.output import to_json
from gitops_karmada.cli.run_report import REPORT_API_VERSION
from gitops_karmada.core.observed.member_status import parse_snapshot, snapshot_document
from gitops_karmada.model.config import StatusConfig
from gitops_karmada.model.diagnostics import SourceRef
from gitops_karmada.model.errors import InputError
from gitops_karmada.usecases.collect import (
    Member,
    collect_member,
    object_counts,
    read_fleet,
    ready_of,
    require_member,
    status_message,
)

if TYPE_CHECKING:
    from gitops_karmada.model.status import ClusterStatusSnapshot


def _parse_now(value: str | None) -> datetime:
    if value is None:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise click.BadParameter(f"{value!r} is not an RFC 3339 time", param_hint="--now") from None
    if moment.tzinfo is None:
        raise click.BadParameter(f"{value!r} has no time zone (add Z or an offset)", param_hint="--now")
    return moment


def _checked_branch(value: str) -> str:
    try:
        return StatusConfig(branch=value).branch
    except ValidationError:
        raise click.BadParameter(f"{value!r} is not a branch name", param_hint="--status-branch") from None


def _prepared_snapshot(path: Path, cluster: str) -> ClusterStatusSnapshot:
    source = SourceRef(str(path), 0)
    snapshot = parse_snapshot(path.read_bytes(), source, "given with --snapshot")
    if snapshot.cluster != cluster:
        raise InputError(
            f"names cluster {snapshot.cluster!r}, not --cluster {cluster!r}", source, "metadata.name"
        )
    return snapshot


@click.command("collect")
@repo_option
@click.option(
    "--cluster", required=True, metavar="NAME", help="The member cluster: a Cluster of the fleet's inventory."
)
@click.option(
    "--kubeconfig",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read the cluster through kubectl with this kubeconfig.",
)
@click.option(
    "--context", metavar="CONTEXT", help="The kubeconfig's context to use (default: its current context)."
)
@click.option(
    "--snapshot",
    "snapshot_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Record this ClusterStatusSnapshot YAML instead of reading the cluster (air-gapped fleets).",
)
@click.option(
    "--rev",
    default="HEAD",
    show_default=True,
    metavar="REV",
    help="The fleet commit: its inventory and the cluster's folder.",
)
@click.option(
    "--status-branch",
    metavar="BRANCH",
    help="The branch to record on (default: status.branch of gitops-karmada.yaml, gitops-karmada-status).",
)
@click.option("--now", metavar="TIME", help="The collection time, RFC 3339 (default: the wall clock).")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1, max=600),
    metavar="SECONDS",
    default=10.0,
    show_default=True,
    help="Seconds one request to the cluster may take; no answer in time: not reachable.",
)
@output_option("text", "json")
def collect_command(
    repo: Path,
    cluster: str,
    kubeconfig: Path | None,
    context: str | None,
    snapshot_file: Path | None,
    rev: str,
    status_branch: str | None,
    now: str | None,
    timeout: float,
    output_format: str,
) -> None:
    """Record what a member cluster reports on the status branch (the fleet branch is untouched).

    With --kubeconfig, kubectl reads /readyz (/healthz), /version, the nodes and the pods (Karmada's Ready
    condition, node and resource summaries) and lists the objects rendered into the cluster's folder at REV,
    with `kubectl get --raw` only. An unreachable cluster is recorded as Ready=False (ClusterNotReachable),
    exit 0. With --snapshot, a prepared snapshot is validated and recorded. Exit 1: the cluster is not in
    the fleet's inventory, the input is invalid, kubectl cannot use the kubeconfig, or the status branch
    could not be updated. -o json: one CollectReport document. See docs/status.md.
    """
    if (kubeconfig is None) == (snapshot_file is None):
        raise click.UsageError("give either --kubeconfig (read the cluster) or --snapshot (record a file)")
    if snapshot_file is not None and context is not None:
        raise click.UsageError("--context goes with --kubeconfig")
    moment = _parse_now(now)
    store = GitStore.open(repo)
    fleet = read_fleet(store, rev)
    branch = _checked_branch(status_branch or fleet.status_branch)
    if branch_ref(branch) in {store.head_ref(), rev, f"refs/heads/{rev}"}:
        raise click.BadParameter(
            f"{branch} is the fleet branch; status goes to a branch of its own", param_hint="--status-branch"
        )
    require_member(fleet, cluster, rev)
    if snapshot_file is not None:
        snapshot = _prepared_snapshot(snapshot_file, cluster)
    else:
        assert kubeconfig is not None
        member = Member(cluster, kubeconfig, context)
        snapshot = collect_member(store, fleet, member, branch=branch, now=moment, timeout=timeout)
    commit = record_snapshots(store, branch, [snapshot], status_message([snapshot], fleet.commit))
    tip = store.try_resolve(branch_ref(branch))
    _report(
        snapshot,
        branch=branch,
        commit=commit,
        tip=tip,
        fleet_commit=fleet.commit,
        output_format=output_format,
    )


def _report(
    snapshot: ClusterStatusSnapshot,
    *,
    branch: str,
    commit: str | None,
    tip: str | None,
    fleet_commit: str,
    output_format: str,
) -> None:
    ready, counts = ready_of(snapshot), object_counts(snapshot)
    log = logger.bind(logger="collect")
    if ready["status"] != "True":
        log.warning(
            "{} is not ready: {} ({}); recorded as observed",
            snapshot.cluster,
            ready["reason"],
            ready["message"],
        )
    recorded = f"recorded {commit[:12]}" if commit else f"unchanged at {(tip or '')[:12]}"
    log.info(
        "{}: Ready={} ({}) · {} object(s): {} found, {} missing, {} unreadable · {} on {}",
        snapshot.cluster,
        ready["status"],
        ready["reason"],
        counts["total"],
        counts["found"],
        counts["missing"],
        counts["unreadable"],
        recorded,
        branch,
    )
    if output_format == "json":
        document = {
            "apiVersion": REPORT_API_VERSION,
            "kind": "CollectReport",
            "exitCode": 0,
            "cluster": snapshot.cluster,
            "collectedAt": snapshot.collected_at,
            "ready": ready,
            "objects": counts,
            "fleetCommit": fleet_commit,
            "statusBranch": branch,
            "statusCommit": tip,
            "recorded": commit is not None,
            "snapshot": snapshot_document(snapshot),
        }
        click.echo(to_json(document), nl=False)
