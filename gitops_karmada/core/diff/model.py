"""The values of a pull-request diff: the two sides compared and the ``PlanDiff`` they produce.

Plain frozen data; ``PlanDiff.to_dict()`` is the ``-o json`` document (camelCase keys, sorted content).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.layout import RepoLayout

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from gitops_karmada.core.diff.bound import BoundPlacement
    from gitops_karmada.core.diff.removals import RemovalGroup
    from gitops_karmada.core.diff.rollout_plan import RolloutPlan
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.inputs import Inputs


class ChangeKind(enum.StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    MODIFIED = "modified"
    RELEASED = "released"
    """A workload whose template was deleted under preserveResourcesOnDeletion: its files stay, unmanaged."""


OBJECT_CHANGES = (ChangeKind.ADDED, ChangeKind.REMOVED, ChangeKind.MODIFIED)
"""What can happen to one manifest file (a released one is modified: its header and claim go)."""


class ProblemKind(enum.StrEnum):
    UNSCHEDULABLE = "unschedulable"
    """The binding's Scheduled condition is False for lack of fitting clusters or capacity."""
    QUOTA_BLOCKED = "quota-blocked"
    """Scheduled=False with reason QuotaExceeded: a FederatedResourceQuota refused the placement."""
    FAILED = "failed"
    """The template could not be interpreted or rendered; it keeps its previous files."""
    SCHEMA = "schema-invalid"
    """A rendered manifest fails its cluster's Kubernetes schema (or its CRD's): it is not written."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffSide:
    """One side of the comparison: the fleet as it would be rendered at one revision."""

    revision: str
    """How the side is named in reports (``main (1a2b3c4d5e6f)``, a path)."""
    tree: Mapping[str, bytes]
    """The managed tree of the side (rendered manifests and binding records) by path: complete, unless
    ``blobs`` is given (then only what was rendered; the rest is read through ``read`` when it differs)."""
    bindings: tuple[ResourceBinding, ...]
    """The side's bindings: all of them, or (with ``placements``) those of templates the side redid."""
    blobs: Mapping[str, str] | None = None
    """Every managed file of the side: path → blob id (so only files that differ are ever read)."""
    read: Callable[[Sequence[str]], Mapping[str, bytes]] | None = None
    """Reads managed files of the side that are not in ``tree``."""
    placements: Mapping[tuple[str, str, str, str], BoundPlacement] | None = None
    """Every template's placement (from the state index), when ``bindings`` holds only the redone ones."""
    layout: RepoLayout = field(default_factory=RepoLayout.default)
    """Where the side's folders are."""
    inputs: Inputs | None = None
    """The loaded input (policies, clusters, templates); None when it did not load."""
    diagnostics: tuple[Diagnostic, ...] = ()
    unmatched: tuple[str, ...] = ()
    """Templates no propagation policy selects (propagated nowhere)."""
    cluster_counts: Mapping[str, int] | None = None
    """Managed files per cluster folder, when the adapter counted them without listing ``blobs``."""

    def files(self, paths: Sequence[str]) -> dict[str, bytes]:
        """The content of ``paths`` (those the side has)."""
        found = {p: self.tree[p] for p in paths if p in self.tree}
        missing = [p for p in paths if p not in found and (self.blobs is None or p in self.blobs)]
        if missing and self.read is not None:
            found.update(self.read(missing))
        return found

    @property
    def input_errors(self) -> tuple[Diagnostic, ...]:
        """Errors that stopped the whole side from rendering (the input does not load)."""
        if self.inputs is not None:
            return ()
        return tuple(d for d in self.diagnostics if d.is_error)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlacementCell:
    """One workload on one cluster: replicas before and after (None: not placed there)."""

    cluster: str
    before: int | None
    after: int | None
    tier_before: str = ""
    tier_after: str = ""
    """The overflow tier the replicas are in on each side, by name (empty: no overflow affinities)."""

    @property
    def changed(self) -> bool:
        return self.before != self.after


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkloadPlacement:
    """How one template's placement changes: per-cluster replicas, clusters gained and lost, moves."""

    template: str
    change: ChangeKind
    policy_before: str
    policy_after: str
    has_replicas: bool
    """False for objects without replicas (ConfigMaps, Services): cells then only say placed or not."""
    replicas_before: int
    replicas_after: int
    cells: tuple[PlacementCell, ...]
    """Every cluster the template is on at either side, sorted by name."""

    @property
    def gained(self) -> tuple[str, ...]:
        return tuple(c.cluster for c in self.cells if c.before is None and c.after is not None)

    @property
    def lost(self) -> tuple[str, ...]:
        return tuple(c.cluster for c in self.cells if c.before is not None and c.after is None)

    @property
    def moved(self) -> int:
        """Replicas that leave one cluster for another: the smaller of the replicas taken and added.

        A scale-up or scale-down alone moves nothing; 4/2/2 → 3/3/2 moves one replica.
        """
        if not self.has_replicas or self.change is not ChangeKind.MODIFIED:
            return 0
        taken = sum(max(0, (c.before or 0) - (c.after or 0)) for c in self.cells)
        added = sum(max(0, (c.after or 0) - (c.before or 0)) for c in self.cells)
        return min(taken, added)

    @property
    def moved_fraction(self) -> Fraction | None:
        """``moved`` over the replicas before (None when there were none)."""
        if not self.has_replicas or self.replicas_before <= 0:
            return None
        return Fraction(self.moved, self.replicas_before)

    def to_dict(self) -> dict[str, Any]:
        fraction = self.moved_fraction
        return {
            "template": self.template,
            "change": self.change.value,
            "policyBefore": self.policy_before,
            "policyAfter": self.policy_after,
            "hasReplicas": self.has_replicas,
            "replicasBefore": self.replicas_before,
            "replicasAfter": self.replicas_after,
            "clusters": [{"name": c.cluster, "before": c.before, "after": c.after} for c in self.cells],
            "gained": list(self.gained),
            "lost": list(self.lost),
            "moved": self.moved,
            "movedPercent": None if fraction is None else float(round(fraction * 100, 2)),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterChange:
    """One member cluster's folder: objects and replicas before and after, and what changed in it."""

    cluster: str
    objects_before: int
    objects_after: int
    replicas_before: int
    replicas_after: int
    added: int
    removed: int
    modified: int

    @property
    def emptied(self) -> bool:
        return self.objects_before > 0 and self.objects_after == 0

    @property
    def gained(self) -> bool:
        """The cluster had nothing and now receives objects."""
        return self.objects_before == 0 and self.objects_after > 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "objectsBefore": self.objects_before,
            "objectsAfter": self.objects_after,
            "replicasBefore": self.replicas_before,
            "replicasAfter": self.replicas_after,
            "added": self.added,
            "removed": self.removed,
            "modified": self.modified,
            "emptied": self.emptied,
            "gained": self.gained,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class TemplateProblem:
    """A template that cannot be (re)placed at the head side, with Karmada's reason."""

    template: str
    kind: ProblemKind
    reason: str
    message: str
    new: bool = True
    """False when the base side had the same problem already."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "template": self.template,
            "kind": self.kind.value,
            "reason": self.reason,
            "message": self.message,
            "new": self.new,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class InputChange:
    """A changed placement input (a policy, an override policy, a Cluster, the configuration).

    ``templates`` are the templates it selects (at either side) whose rendered output changes;
    ``clusters`` the clusters those changes land in.
    """

    kind: str
    namespace: str
    name: str
    change: ChangeKind
    templates: tuple[str, ...] = ()
    clusters: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
            "change": self.change.value,
            "templates": list(self.templates),
            "clusters": list(self.clusters),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class SecretKeys:
    """Which keys of a Secret's ``data``/``stringData`` changed: names only, never values."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"added": list(self.added), "removed": list(self.removed), "changed": list(self.changed)}


@dataclass(frozen=True, slots=True, kw_only=True)
class ObjectDiff:
    """One rendered manifest that differs: where, what, and a unified diff of its YAML."""

    cluster: str
    path: str
    title: str
    """``Deployment.apps shop/frontend`` (from the binding records; the path when none names it)."""
    template: str | None
    change: ChangeKind
    diff: str
    """Unified diff lines without file headers; Secret values masked. Empty when only order changed."""
    secret_keys: SecretKeys | None = None
    note: str = ""
    fields: tuple[str, ...] = ()
    """Changed fields of a modified object (``spec.replicas: 4 → 6``), from deepdiff; none for Secrets."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "path": self.path,
            "title": self.title,
            "template": self.template,
            "change": self.change.value,
            "diff": self.diff,
            "secretKeys": None if self.secret_keys is None else self.secret_keys.to_dict(),
            "note": self.note,
            "fields": list(self.fields),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class GuardrailViolation:
    """A ``--fail-on`` condition that the change meets."""

    guardrail: str
    subject: str
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"guardrail": self.guardrail, "subject": self.subject, "detail": self.detail}


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanDiff:
    """What merging head into base does to the fleet: placement first, then inputs, then manifests."""

    base: str
    head: str
    workloads: tuple[WorkloadPlacement, ...] = ()
    """Templates whose placement changes, in template order."""
    clusters: tuple[ClusterChange, ...] = ()
    """Clusters whose folder changes, by name."""
    problems: tuple[TemplateProblem, ...] = ()
    resolved: tuple[TemplateProblem, ...] = ()
    """Problems of the base side that the head side no longer has."""
    inputs: tuple[InputChange, ...] = ()
    objects: tuple[ObjectDiff, ...] = ()
    """Changed manifests by cluster, then path."""
    violations: tuple[GuardrailViolation, ...] = ()
    unmatched: tuple[str, ...] = ()
    """Templates of the head side no propagation policy selects that the base side propagated or lacked."""
    base_errors: tuple[str, ...] = ()
    head_errors: tuple[str, ...] = ()
    fail_on: tuple[str, ...] = field(default=())
    """The guardrails that were checked (canonical spelling)."""
    removals: tuple[RemovalGroup, ...] = ()
    """The files that leave cluster folders, grouped by cause and the input change behind it."""
    notes: tuple[str, ...] = ()
    """What the change does not do and a reader may expect (a workload kept on a changed cluster)."""
    rollouts: tuple[RolloutPlan, ...] = ()
    """The wave plans of the templates whose rollout the change starts or moves (RolloutPolicy)."""

    @property
    def has_changes(self) -> bool:
        """Whether the rendered fleet changes (placement or manifests)."""
        return bool(self.workloads or self.objects)

    @property
    def failed(self) -> bool:
        """A side could not be rendered at all: the comparison is incomplete."""
        return bool(self.base_errors or self.head_errors)

    @property
    def changed_clusters(self) -> tuple[str, ...]:
        return tuple(c.cluster for c in self.clusters)

    def to_dict(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "head": self.head,
            "hasChanges": self.has_changes,
            "changedClusters": list(self.changed_clusters),
            "summary": {
                "workloads": len(self.workloads),
                "clusters": len(self.clusters),
                "objects": {
                    kind.value: sum(1 for o in self.objects if o.change is kind) for kind in OBJECT_CHANGES
                },
                "problems": len(self.problems),
                "inputs": len(self.inputs),
            },
            "guardrails": {
                "checked": list(self.fail_on),
                "violations": [v.to_dict() for v in self.violations],
            },
            "removals": [g.to_dict() for g in self.removals],
            "notes": list(self.notes),
            "errors": {"base": list(self.base_errors), "head": list(self.head_errors)},
            "placement": [w.to_dict() for w in self.workloads],
            "clusters": [c.to_dict() for c in self.clusters],
            "problems": [p.to_dict() for p in self.problems],
            "unmatched": list(self.unmatched),
            "resolved": [p.to_dict() for p in self.resolved],
            "inputs": [i.to_dict() for i in self.inputs],
            "manifests": [o.to_dict() for o in self.objects],
        }
