"""``--fail-on`` guardrails: parse the conditions and find the changes that meet them.

Conditions (comma-separated or repeated): ``cluster-emptied`` (a cluster folder loses every object),
``replicas-moved>N%`` (more than N % of a workload's replicas change cluster; ``replicas-moved=N`` is the
same), ``workload-removed`` (a template's manifests are deleted from every cluster; a release under
preserveResourcesOnDeletion is not a removal), ``namespace-removed`` (a Namespace leaves a cluster folder,
which makes Flux or Argo CD delete everything in it), ``max-deleted=N`` (more than N manifests deleted),
``unschedulable``, ``quota-blocked`` and ``failed`` (a template the change leaves unschedulable, blocked by a
FederatedResourceQuota, or failing to render; problems the base side already had do not count).

The same conditions guard the write paths (``reconcile``, ``rollback``, ``reschedule``), from the
``guardrails:`` list of ``gitops-karmada.yaml``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.core.diff.model import ChangeKind, GuardrailViolation, ProblemKind
from gitops_karmada.core.diff.wording import percent
from gitops_karmada.core.layout import CLUSTER_SCOPED_FOLDER, is_bucket_of
from gitops_karmada.model.guardrails import Guardrail, GuardrailKind

if TYPE_CHECKING:
    from collections.abc import Iterable

    from gitops_karmada.core.diff.model import PlanDiff


_PROBLEM_KINDS = {
    GuardrailKind.UNSCHEDULABLE: ProblemKind.UNSCHEDULABLE,
    GuardrailKind.QUOTA_BLOCKED: ProblemKind.QUOTA_BLOCKED,
    GuardrailKind.FAILED: ProblemKind.FAILED,
    GuardrailKind.SCHEMA: ProblemKind.SCHEMA,
}


def check_guardrails(diff: PlanDiff, guardrails: Iterable[Guardrail]) -> tuple[GuardrailViolation, ...]:
    """Every (guardrail, subject) the change violates, in guardrail order then subject order."""
    violations: list[GuardrailViolation] = []
    for guardrail in guardrails:
        name = str(guardrail)
        if guardrail.kind is GuardrailKind.CLUSTER_EMPTIED:
            violations.extend(
                GuardrailViolation(
                    guardrail=name,
                    subject=c.cluster,
                    detail=f"cluster {c.cluster} is emptied: {c.objects_before} object(s) → 0",
                )
                for c in diff.clusters
                if c.emptied
            )
        elif guardrail.kind is GuardrailKind.REPLICAS_MOVED:
            assert guardrail.threshold is not None
            for workload in diff.workloads:
                fraction = workload.moved_fraction
                if fraction is not None and fraction * 100 > guardrail.threshold:
                    violations.append(
                        GuardrailViolation(
                            guardrail=name,
                            subject=workload.template,
                            detail=(
                                f"{workload.template} moves {workload.moved} of {workload.replicas_before} "
                                f"replica(s) ({percent(fraction)}), more than {guardrail.threshold} %"
                            ),
                        )
                    )
        elif guardrail.kind is GuardrailKind.WORKLOAD_REMOVED:
            violations.extend(
                GuardrailViolation(
                    guardrail=name,
                    subject=w.template,
                    detail=f"{w.template} is removed from {', '.join(w.lost) or 'every cluster'}",
                )
                for w in diff.workloads
                if w.change is ChangeKind.REMOVED
            )
        elif guardrail.kind is GuardrailKind.NAMESPACE_REMOVED:
            violations.extend(
                GuardrailViolation(
                    guardrail=name,
                    subject=o.path,
                    detail=f"Namespace {_file_name(o.path)} leaves cluster {o.cluster} "
                    "(its sync engine would delete everything in it)",
                )
                for o in diff.objects
                if o.change is ChangeKind.REMOVED and _is_namespace(o.path)
            )
        elif guardrail.kind is GuardrailKind.MAX_DELETED:
            assert guardrail.threshold is not None
            deleted = sum(1 for o in diff.objects if o.change is ChangeKind.REMOVED)
            if deleted > guardrail.threshold:
                violations.append(
                    GuardrailViolation(
                        guardrail=name,
                        subject=f"{deleted} manifests",
                        detail=(
                            f"{deleted} manifest(s) deleted from the cluster folders, "
                            f"more than {guardrail.threshold}"
                        ),
                    )
                )
        else:
            kind = _PROBLEM_KINDS[guardrail.kind]
            violations.extend(
                GuardrailViolation(
                    guardrail=name,
                    subject=p.template,
                    detail=f"{p.template} is {kind.value}: {p.message or p.reason}",
                )
                for p in diff.problems
                if p.kind is kind and p.new
            )
    return tuple(violations)


def _is_namespace(path: str) -> bool:
    """A core Namespace in a cluster folder (``<clusters>/<cluster>/_cluster/namespace/<name>.yaml``, or in
    a bucket folder ``…/namespace/<bucket>/<name>.yaml``)."""
    parts = path.split("/")
    if len(parts) >= 4 and parts[-3] == CLUSTER_SCOPED_FOLDER and parts[-2] == "namespace":
        return True
    return (
        len(parts) >= 5
        and parts[-4] == CLUSTER_SCOPED_FOLDER
        and parts[-3] == "namespace"
        and is_bucket_of(parts[-2], _file_name(path))
    )


def _file_name(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".yaml")
