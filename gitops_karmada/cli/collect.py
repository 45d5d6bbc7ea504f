"""``gitops-karmada collect``: record what one member cluster reports on the status branch.

With ``--kubeconfig`` the cluster is read through kubectl: its health, version, nodes and pods (what
Karmada's cluster status controller reads) and each object rendered into its folder at REV (what the work
status controller reads). With ``--snapshot`` a snapshot prepared elsewhere is recorded (air-gapped
fleets, tests). Either way one commit goes to the status branch (``usecases.collect``); the fleet branch
never changes. An unreachable cluster is recorded as Karmada records it (Ready=False), and the command
exits 1: a wrong kubeconfig must not pass for an outage that the failover controllers will act on.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click
from loguru import logger

from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.cli.completion import complete_cluster
from gitops_karmada.cli.options import output_option, parse_now, repo_option
from gitops_karmada.cli.output import to_json
from gitops_karmada.cli.run_report import REPORT_API_VERSION
from gitops_karmada.core.observed.member_status import CLUSTER_NOT_REACHABLE, snapshot_document
from gitops_karmada.usecases.collect import (
    Collected,
    Member,
    StatusBranchError,
    collect_and_record,
    object_counts,
    ready_of,
)


def _parse_now(value: str | None) -> datetime:
    return datetime.now(UTC) if value is None else parse_now(value)


@click.command("collect")
@repo_option
@click.option(
    "--cluster",
    required=True,
    metavar="NAME",
    help="The member cluster: a Cluster of the fleet's inventory.",
    shell_complete=complete_cluster,
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
    as Karmada would, and the command exits 1. With --snapshot, a prepared snapshot is validated and
    recorded. Exit 1 also: the cluster is not in the fleet's inventory, the input is invalid, kubectl cannot
    use the kubeconfig, or the status branch could not be updated. -o json: one CollectReport document.
    See docs/status.md.
    """
    if (kubeconfig is None) == (snapshot_file is None):
        raise click.UsageError("give either --kubeconfig (read the cluster) or --snapshot (record a file)")
    if snapshot_file is not None and context is not None:
        raise click.UsageError("--context goes with --kubeconfig")
    moment = _parse_now(now)
    if snapshot_file is not None:
        source: Member | Path = snapshot_file
    else:
        assert kubeconfig is not None
        source = Member(cluster, kubeconfig, context)
    try:
        done = collect_and_record(
            GitStore.open(repo),
            rev,
            cluster,
            source,
            status_branch=status_branch,
            now=moment,
            timeout=timeout,
        )
    except StatusBranchError as err:
        raise click.BadParameter(str(err), param_hint="--status-branch") from None
    _report(done, output_format=output_format)


def _report(done: Collected, *, output_format: str) -> None:
    snapshot, commit = done.snapshot, done.commit
    ready, counts = ready_of(snapshot), object_counts(snapshot)
    log = logger.bind(logger="collect")
    unreachable = ready["reason"] == CLUSTER_NOT_REACHABLE
    if unreachable:
        log.error(
            "{} could not be reached ({}): recorded as not ready, as Karmada would; if the kubeconfig or "
            "its server is wrong, fix it now: with the Failover gate on, the cluster's workloads are evicted "
            "once the not-ready toleration runs out (`gitops-karmada simulate --cluster-down {}` shows what "
            "would move)",
            snapshot.cluster,
            ready["message"],
            snapshot.cluster,
        )
    elif ready["status"] != "True":
        log.warning(
            "{} is not ready: {} ({}); recorded as observed",
            snapshot.cluster,
            ready["reason"],
            ready["message"],
        )
    recorded = f"recorded {commit[:12]}" if commit else f"unchanged at {(done.tip or '')[:12]}"
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
        done.branch,
    )
    if output_format == "json":
        document = {
            "apiVersion": REPORT_API_VERSION,
            "kind": "CollectReport",
            "exitCode": 1 if unreachable else 0,
            "cluster": snapshot.cluster,
            "collectedAt": snapshot.collected_at,
            "ready": ready,
            "objects": counts,
            "fleetCommit": done.fleet_commit,
            "statusBranch": done.branch,
            "statusCommit": done.tip,
            "recorded": commit is not None,
            "snapshot": snapshot_document(snapshot),
        }
        click.echo(to_json(document), nl=False)
    if unreachable:
        raise click.exceptions.Exit(1)
