"""Explain: why a template is placed where it is, step by step, as data and as text.

The policies that matched and why the winner won, how the interpreter read the workload, each
cluster's filter verdict, the capacity estimates, every Webster seat of the replica division, and per
cluster the fields the override policies changed (override provenance). Karmada keeps this as
transient scheduler state; here it is computed offline from the repository.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gitops_karmada.adapters.repository import read_commit
from gitops_karmada.core.binding import applied_clusters, render_notes
from gitops_karmada.core.overrides import describe_override_result
from gitops_karmada.model.errors import NotFoundError, UsageError
from gitops_karmada.reconcile import reconcile
from gitops_karmada.usecases.source import read_source

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.model.keys import ObjectKey
    from gitops_karmada.reconcile import ReconcileRequest, RenderResult, TemplateOutcome


def parse_reference(reference: str) -> tuple[str, str, str, str]:
    """``Kind[.group]/namespace/name`` or ``Kind[.group]/name`` → (kind, group or "", namespace, name)."""
    parts = reference.split("/")
    if len(parts) not in (2, 3) or not all(parts):
        raise UsageError(
            f"{reference!r}: expected KIND/NAMESPACE/NAME (or KIND/NAME for cluster-scoped objects)"
        )
    kind, _, group = parts[0].partition(".")
    namespace, name = (parts[1], parts[2]) if len(parts) == 3 else ("", parts[1])
    return kind, group, namespace, name


def refers_to(reference: str) -> Callable[[ObjectKey], bool]:
    """Whether a template key is the one ``KIND[.group]/NAMESPACE/NAME`` names."""
    kind, group, namespace, name = parse_reference(reference)

    def matches(key: ObjectKey) -> bool:
        return (
            key.kind.lower() == kind.lower()
            and (not group or key.group == group.lower())
            and key.namespace == namespace
            and key.name == name
        )

    return matches


def find_outcome(result: RenderResult, reference: str) -> TemplateOutcome:
    _, _, _, name = parse_reference(reference)
    wanted = refers_to(reference)
    matches = [o for o in result.outcomes if wanted(o.key)]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        groups = ", ".join(sorted(f"{m.key.kind}.{m.key.group}" for m in matches))
        raise UsageError(f"{reference!r} is ambiguous ({groups}): add the API group, e.g. Job.batch/ns/name")
    templates = result.inputs.templates if result.inputs is not None else ()
    known = sorted(str(t.key) for t in templates if t.key.name == name)
    hint = f"; templates named {name!r}: {', '.join(known)}" if known else ""
    raise NotFoundError(f"no template {reference!r} in the repository{hint}")


def explanation(outcome: TemplateOutcome) -> dict[str, Any]:
    """Everything known about one template's placement, as JSON-ready data."""
    match = outcome.match
    binding = outcome.binding
    policy = match.policy
    data: dict[str, Any] = {
        "template": str(outcome.key),
        "apiVersion": outcome.key.api_version,
        "policy": {
            "decision": match.state.value,
            "policy": f"{policy.kind}/{policy.namespace + '/' if policy.namespace else ''}{policy.name}"
            if policy
            else None,
            "reason": match.reason,
            "candidates": [
                {
                    "policy": str(c.policy),
                    "explicitPriority": c.explicit_priority,
                    "implicitPriority": c.implicit_priority.name,
                }
                for c in match.candidates
            ],
            **({"releasedClaim": match.released_claim} if match.released_claim else {}),
            **({"lazyHold": "a Lazy policy changed; the template did not"} if outcome.lazy_hold else {}),
        },
    }
    if binding is not None:
        spec = binding.spec
        data["interpretation"] = {
            "answeredBy": outcome.interpreted_by or "none (no replicas)",
            "replicas": spec.replicas,
            **(
                {"replicaRequirements": spec.replica_requirements.to_api()}
                if spec.replica_requirements
                else {}
            ),
            **({"components": [c.to_api() for c in spec.components]} if spec.components else {}),
        }
        scheduled = binding.condition("Scheduled")
        data["scheduling"] = {
            "ran": outcome.scheduling_reason is not None,
            "why": outcome.scheduling_reason
            or ("Karmada keeps a Divided workload's result while its placement and replicas are unchanged"
                if match.policy is not None else "no policy: the previous placement is kept"),
            **({"condition": scheduled.to_api()} if scheduled else {}),
            **({"schedulePriority": spec.schedule_priority.priority} if spec.schedule_priority else {}),
            **({"workloadAffinityGroups": spec.workload_affinity_groups.to_api()}
               if spec.workload_affinity_groups else {}),
            **({"explanation": outcome.schedule.explanation.to_dict()} if outcome.schedule else {}),
        }  # fmt: skip
        rendered = set(applied_clusters(binding))
        notes = render_notes(binding)
        data["clusters"] = [
            {
                "name": target.name,
                "replicas": target.replicas,
                **({"tier": outcome.tiers[target.name]} if target.name in outcome.tiers else {}),
                **({"path": outcome.paths[target.name]} if target.name in outcome.paths else {}),
                "rendered": target.name in rendered,
                **({"message": notes[target.name]} if target.name in notes else {}),
                **(
                    {"overrides": outcome.overrides[target.name].to_dict()}
                    if target.name in outcome.overrides
                    else {}
                ),
            }
            for target in spec.clusters
        ]
    data["diagnostics"] = [str(d) for d in outcome.diagnostics]
    return data


def explanation_text(outcome: TemplateOutcome) -> str:
    data = explanation(outcome)
    lines = [f"{data['template']} ({data['apiVersion']})", ""]
    policy = data["policy"]
    lines.append(f"Policy: {policy['policy'] or '-'} [{policy['decision']}]")
    lines.append(f"  why: {policy['reason']}")
    for candidate in policy["candidates"]:
        lines.append(
            f"  candidate {candidate['policy']}: explicit priority {candidate['explicitPriority']}, "
            f"implicit {candidate['implicitPriority'].lower()}"
        )
    for extra in ("releasedClaim", "lazyHold"):
        if extra in policy:
            lines.append(f"  note: {policy[extra]}")
    if "interpretation" in data:
        interpretation = data["interpretation"]
        lines += [
            "",
            f"Interpretation ({interpretation['answeredBy']}): {interpretation['replicas']} replica(s)",
        ]
        request = interpretation.get("replicaRequirements", {}).get("resourceRequest")
        if request:
            lines.append("  per replica: " + ", ".join(f"{k}={v}" for k, v in request.items()))
        for component in interpretation.get("components", []):
            need = component.get("replicaRequirements", {}).get("resourceRequest", {})
            lines.append(
                f"  component {component['name']}: {component['replicas']} x "
                + (", ".join(f"{k}={v}" for k, v in need.items()) or "no requests")
            )
        scheduling = data["scheduling"]
        verdict = "ran" if scheduling["ran"] else "kept the previous result; re-evaluated here to explain it"
        lines += ["", f"Scheduling: {verdict} ({scheduling['why']})"]
        if "schedulePriority" in scheduling:
            lines.append(
                f"  schedulePriority {scheduling['schedulePriority']}: scheduled before the templates of "
                "lower priority (docs/architecture.md, the scheduling order)"
            )
        for term, group in sorted(scheduling.get("workloadAffinityGroups", {}).items()):
            if group:
                lines.append(f"  {term}: {group}")
        if outcome.schedule is not None:
            lines += ["  " + line for line in outcome.schedule.explanation.to_text().splitlines()]
        elif "condition" in scheduling:
            condition = scheduling["condition"]
            lines.append(f"  {condition['type']}={condition['status']} {condition.get('reason', '')}: "
                         f"{condition.get('message', '')}")  # fmt: skip
        lines += ["", "Clusters:"]
        for cluster in data["clusters"]:
            state = "" if cluster.get("applied", True) else f"  NOT APPLIED: {cluster.get('message')}"
            tier = f" in overflow tier {cluster['tier']}" if "tier" in cluster else ""
            path = cluster.get("path", "-")
            lines.append(f"  {cluster['name']}: {cluster['replicas']} replica(s){tier} -> {path}{state}")
            if cluster["name"] in outcome.overrides:
                described = describe_override_result(outcome.overrides[cluster["name"]])
                lines += ["    " + line for line in described.splitlines()]
    if data["diagnostics"]:
        lines += ["", "Diagnostics:"] + [f"  {d}" for d in data["diagnostics"]]
    return "\n".join(lines) + "\n"


def explained(request: ReconcileRequest, reference: str, *, fresh: bool = False) -> RenderResult:
    """The run that explains ``reference`` (``fresh``: the Fresh division ``reschedule`` would make)."""
    # only the template explained is redone (and what it needs); the rest of the fleet is taken as recorded
    request = request.with_mode(explain=True, focus=refers_to(reference), materialize=False)
    result = reconcile(request)
    if fresh and result.input_ok:
        identity = find_outcome(result, reference).key.identity
        result = reconcile(request.with_mode(reschedule=frozenset({identity})))
    return result


def explain_source(
    repo: Path, rev: str, worktree: bool, reference: str, *, fresh: bool = False
) -> RenderResult:
    """``explained`` at ``rev`` of ``repo`` (``worktree``: its files on disk), as ``explain`` reads it."""
    return explained(read_source(repo, rev, worktree).request, reference, fresh=fresh)


def explain_commit(store: GitStore, commit: str, reference: str) -> RenderResult:
    """``explained`` at ``commit``, reading only what the explanation needs (the daemon's ``/explain``)."""
    return explained(read_commit(store, commit, materialize=False).request, reference)


def all_explanations(result: RenderResult) -> dict[str, Any]:
    """``render -o json --explain``: one Explanation object per template, in the bindings' order."""
    items = [
        {
            "apiVersion": "gitops-karmada.io/v1alpha1",
            "kind": "Explanation",
            "metadata": {"name": str(outcome.key)},
            **explanation(outcome),
        }
        for outcome in sorted(result.outcomes, key=lambda o: (o.key.namespace, o.key.kind, o.key.name))
    ]
    return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items}
