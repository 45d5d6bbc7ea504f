"""``reconcile -o json`` and ``rollback -o json``: what a run did, as one JSON document on stdout.

The document is written whatever the outcome (committed, up to date, refused by a guardrail, invalid
input), with the exit code the command ends with, so a script reads one thing; the log still goes to
stderr.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gitops_karmada.core.diff.bound import bound_placement

if TYPE_CHECKING:
    from gitops_karmada.reconcile import RenderResult
    from gitops_karmada.usecases.reconcile import ReconcileOutcome
    from gitops_karmada.usecases.rollback import RollbackPlan

REPORT_API_VERSION = "gitops-karmada.io/v1alpha1"


def outcome_word(outcome: ReconcileOutcome, *, dry_run: bool) -> str:
    """committed | up-to-date | dry-run | refused | invalid."""
    if outcome.up_to_date is not None:
        return "up-to-date"
    assert outcome.result is not None
    if not outcome.result.input_ok:
        return "invalid"
    if outcome.refused:
        return "refused"
    if dry_run:
        return "dry-run"
    return "committed" if outcome.commit else "up-to-date"


def exit_code_of(outcome: ReconcileOutcome) -> int:
    """0 done; 1 invalid input or a failed template; 3 a guardrail refused the commit."""
    if outcome.up_to_date is not None:
        return 0
    assert outcome.result is not None
    if not outcome.result.input_ok:
        return 1
    if outcome.refused:
        return 3
    return 1 if outcome.result.failed_templates else 0


def _placements(result: RenderResult) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for outcome in result.outcomes:
        if outcome.reused:
            continue
        entry: dict[str, Any] = {"template": str(outcome.key)}
        if outcome.binding is None:
            entry["status"] = (
                ("released" if outcome.released else "removed")
                if outcome.removed
                else outcome.match.state.value
            )
        else:
            placement = bound_placement(outcome.binding)
            entry["policy"] = placement.policy or None
            # null for objects without replicas (a Service, a ConfigMap): present, nothing to count
            shown = {
                c: (n if placement.has_replicas else None) for c, n in sorted(placement.replicas.items())
            }
            entry["clusters"] = shown
            entry["status"] = outcome.status
            if outcome.rollout is not None:
                state = outcome.rollout.state
                entry["rollout"] = {
                    "policy": state.policy,
                    "phase": state.phase.value,
                    "reached": list(state.reached),
                    "message": state.message,
                }
        rows.append(entry)
    return rows


def reconcile_document(outcome: ReconcileOutcome, *, dry_run: bool) -> dict[str, Any]:
    """The JSON report of one reconcile."""
    document: dict[str, Any] = {
        "apiVersion": REPORT_API_VERSION,
        "kind": "ReconcileReport",
        "outcome": outcome_word(outcome, dry_run=dry_run),
        "exitCode": exit_code_of(outcome),
        "source": outcome.source,
        "commit": outcome.commit,
        "pushed": outcome.pushed,
        "dryRun": dry_run,
    }
    if outcome.up_to_date is not None:
        document["reconciled"] = outcome.up_to_date.reconciled
        document["changes"] = []
        document["violations"] = []
        return document
    result = outcome.result
    assert result is not None
    document["changes"] = [
        {"path": path, "action": "delete" if content is None else "write"}
        for path, content in sorted(outcome.changes.items())
    ]
    document["reverted"] = list(outcome.reverted)
    document["violations"] = [v.to_dict() for v in outcome.guard.violations] if outcome.guard else []
    document["removals"] = [g.to_dict() for g in outcome.guard.removals] if outcome.guard else []
    document["notes"] = list(outcome.guard.notes) if outcome.guard else []
    document["pendingEvictions"] = (
        [p.to_dict() for p in result.failover.pending] if result.failover is not None else []
    )
    bindings = sum(1 for o in result.outcomes if (o.binding is not None or o.reused) and not o.removed)
    document["bindings"] = {
        "total": bindings,
        "reused": sum(1 for o in result.outcomes if o.reused),
        "failed": len(result.failed_templates),
    }
    document["placement"] = _placements(result)
    document["diagnostics"] = [
        *(d.to_dict() for d in result.diagnostics),
        *(finding.to_diagnostic().to_dict() for finding in outcome.host_limits),
    ]
    return document


def rollback_document(
    plan: RollbackPlan, commit: str | None, reconcile: ReconcileOutcome | None, *, dry_run: bool
) -> dict[str, Any]:
    """The JSON report of one rollback (and the reconcile after it)."""
    refused = plan.refused
    document: dict[str, Any] = {
        "apiVersion": REPORT_API_VERSION,
        "kind": "RollbackReport",
        "outcome": "refused"
        if refused
        else ("dry-run" if dry_run else ("committed" if commit else "up-to-date")),
        "exitCode": 3 if refused else (exit_code_of(reconcile) if reconcile is not None else 0),
        "branch": plan.ref,
        "target": plan.target,
        "outputFrom": None
        if plan.output is None
        else {"commit": plan.output.commit, "reason": plan.output.reason},
        "commit": commit,
        "dryRun": dry_run,
        "changes": [
            {"path": path, "action": "delete" if content is None else "write", "role": plan.roles[path].value}
            for path, content in sorted(plan.changes.items())
        ],
        "kept": {"handWritten": list(plan.hand_written), "released": list(plan.released)},
        "violations": [v.to_dict() for v in plan.guard.violations] if plan.guard else [],
    }
    if reconcile is not None:
        document["reconcile"] = reconcile_document(reconcile, dry_run=False)
    return document
