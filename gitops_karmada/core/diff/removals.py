"""Why each file leaves a cluster folder: its cause, the input change behind it, and whether that change says
so itself.

Flux and Argo CD prune what disappears from a cluster folder, so a file the tool drops is an object deleted
from a cluster. A removal is *deliberate* when the change names it: the template (or its document) was
deleted, a policy was deleted or its selectors or placement edited, a cluster was deleted from the
inventory, or the failover controllers evicted the workload (named with their trigger). Every other cause —
a template that changed identity or left a cluster by its own edit, a Cluster whose labels or fields changed,
a CRD removed while objects of its kind are still rendered there, a dependency no workload needs any more,
a configuration change, anything the tool cannot trace — is refused by the write paths unless allowed
(``reconcile.guard``). Pure: both sides' inputs and records in, the causes out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.binding import SOURCE_ANNOTATION, TEMPLATE_HASH_ANNOTATION, applied_clusters
from gitops_karmada.core.diff.bound import binding_key, claimed_policy
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.core.rollout.state import RolloutPhase, read_state
from gitops_karmada.core.selectors import cluster_matches
from gitops_karmada.model.diagnostics import SourceRef
from gitops_karmada.model.guardrails import DELIBERATE, RemovalCause
from gitops_karmada.model.inputs import Inputs

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.manifest import Manifest

Identity = tuple[str, str, str, str]
PolicyKey = tuple[str, str, str]
"""(kind, namespace, name) of a policy."""

CRD_KIND = ("apiextensions.k8s.io", "CustomResourceDefinition")


@dataclass(frozen=True, slots=True, kw_only=True)
class Removal:
    """One file that leaves a cluster folder, and why."""

    path: str
    cluster: str
    owner: str
    """What the file was rendered from: a template (``Deployment.apps/shop/cart``) or a quota."""
    cause: RemovalCause
    change: str
    """The input change that caused it, in a phrase naming the document."""

    @property
    def deliberate(self) -> bool:
        return self.cause in DELIBERATE

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "cluster": self.cluster,
            "owner": self.owner,
            "cause": self.cause.value,
            "change": self.change,
            "deliberate": self.deliberate,
        }


@dataclass(frozen=True, slots=True)
class InputHistory:
    """What changed in the inputs since the tool's last commit: the changed input files, what they held then
    (loaded alone), and whether gitops-karmada.yaml changed."""

    paths: frozenset[str]
    before: Inputs
    config_changed: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class RemovalFacts:
    """What attributing removals reads of the two sides."""

    before: Inputs
    """The inputs the removed files were rendered from (the last reconcile's, or the base's)."""
    after: Inputs
    previous: Mapping[Identity, ResourceBinding]
    """The records before, of (at least) every template whose files may go."""
    current: Mapping[Identity, ResourceBinding]
    """The records after, of those templates (a template with none is claimed by nobody now)."""
    rendered: Mapping[str, Mapping[tuple[str, str], tuple[str, ...]]] = field(default_factory=dict)
    """Cluster → (group, kind) → the objects of that kind rendered there after the change."""
    evictions: Mapping[tuple[Identity, str], str] = field(default_factory=dict)
    """(template, cluster) → the failover controllers' trigger, for the workloads they evicted."""
    quota_owners: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """Cluster-folder path → (namespace, name) of the FederatedResourceQuota that assigned it statically."""
    config_changed: bool = False
    rescheduled: frozenset[Identity] = frozenset()
    """Templates divided afresh on request (``reschedule``)."""
    rolled_back_to: str | None = None
    """The revision a rollback restores (its removals are what the user asked for)."""
    had: frozenset[Identity] = frozenset()
    """Every template that had a record before (a template without one is new)."""
    owners: Mapping[str, Identity] | None = None
    """Cluster-folder path → the template that rendered it, when ``previous`` does not hold every record
    (a diff side that stands on its state index); None: from ``previous``."""
    layout: RepoLayout = field(default_factory=RepoLayout.default)


def attribute_removals(removed: Iterable[str], facts: RemovalFacts) -> tuple[Removal, ...]:
    """Every removed path of a cluster folder with its cause, in path order (a path nothing owned — a hand-
    written file the tool never deletes — is left out)."""
    owners = facts.owners if facts.owners is not None else _template_owners(facts)
    context = _Context(facts)
    found: list[Removal] = []
    for path in sorted(removed):
        cluster = facts.layout.cluster_of(path) or ""
        if path in owners:
            identity = owners[path]
            cause, change = context.template_cause(identity, cluster)
            owner = _label(identity)
        elif path in facts.quota_owners:
            namespace, name = facts.quota_owners[path]
            cause, change = context.quota_cause(namespace, name, cluster)
            owner = f"FederatedResourceQuota {namespace}/{name}"
        else:
            continue
        found.append(Removal(path=path, cluster=cluster, owner=owner, cause=cause, change=change))
    return tuple(found)


@dataclass(frozen=True, slots=True, kw_only=True)
class RemovalGroup:
    """The files one input change removes: what a report shows, and a guardrail names."""

    cause: RemovalCause
    change: str
    owners: tuple[str, ...]
    """The templates (or quotas) whose files go, in order."""
    paths: tuple[str, ...]
    clusters: tuple[str, ...]

    @property
    def deliberate(self) -> bool:
        return self.cause in DELIBERATE

    def to_dict(self) -> dict[str, Any]:
        return {
            "cause": self.cause.value,
            "deliberate": self.deliberate,
            "change": self.change,
            "owners": list(self.owners),
            "clusters": list(self.clusters),
            "paths": list(self.paths),
        }


def group_removals(removals: Iterable[Removal]) -> tuple[RemovalGroup, ...]:
    """Removals by cause (in the vocabulary's order), then the input change, each with its owners and
    clusters."""
    groups: dict[tuple[RemovalCause, str], list[Removal]] = {}
    for removal in removals:
        groups.setdefault((removal.cause, removal.change), []).append(removal)
    order = list(RemovalCause)
    return tuple(
        RemovalGroup(
            cause=cause,
            change=change,
            owners=tuple(sorted({r.owner for r in items})),
            paths=tuple(r.path for r in items),
            clusters=tuple(sorted({r.cluster for r in items})),
        )
        for (cause, change), items in sorted(groups.items(), key=lambda g: (order.index(g[0][0]), g[0][1]))
    )


def inputs_before(after: Inputs, changed_paths: frozenset[str], before_part: Inputs) -> Inputs:
    """The inputs as they were before a change of ``changed_paths``: ``after``'s objects from the other files,
    and ``before_part`` (the changed files as they were, loaded alone)."""

    def keep(objects: Sequence[Any], earlier: Sequence[Any]) -> tuple[Any, ...]:
        return (*(o for o in objects if _path_of(after, o) not in changed_paths), *earlier)

    return Inputs(
        config=after.config,
        templates=keep(after.templates, before_part.templates),
        propagation_policies=keep(after.propagation_policies, before_part.propagation_policies),
        cluster_propagation_policies=keep(
            after.cluster_propagation_policies, before_part.cluster_propagation_policies
        ),
        override_policies=keep(after.override_policies, before_part.override_policies),
        cluster_override_policies=keep(
            after.cluster_override_policies, before_part.cluster_override_policies
        ),
        clusters=keep(after.clusters, before_part.clusters),
        quotas=keep(after.quotas, before_part.quotas),
        customizations=keep(after.customizations, before_part.customizations),
        taint_policies=keep(after.taint_policies, before_part.taint_policies),
        sources={
            **{k: s for k, s in after.sources.items() if s.path not in changed_paths},
            **before_part.sources,
        },
    )


def _path_of(inputs: Inputs, obj: Any) -> str | None:
    source = getattr(obj, "source", None)  # templates carry theirs; Karmada objects are in ``sources``
    if source is None:
        namespace = "" if obj.kind == "Cluster" else (obj.metadata.namespace or "")
        source = inputs.sources.get((obj.kind, namespace, obj.metadata.name))
    return source.path if source is not None else None


def _template_owners(facts: RemovalFacts) -> dict[str, Identity]:
    owners: dict[str, Identity] = {}
    for identity, binding in facts.previous.items():
        key = binding_key(binding)
        for cluster in applied_clusters(binding):
            owners[facts.layout.manifest_path(cluster, key)] = identity
    return owners


class _Context:
    """The two sides indexed for attribution."""

    def __init__(self, facts: RemovalFacts) -> None:
        self.facts = facts
        self.templates_before = {t.key.identity: t for t in facts.before.templates}
        self.templates_after = {t.key.identity: t for t in facts.after.templates}
        self.policies_before = _policies(facts.before)
        self.policies_after = _policies(facts.after)
        self.clusters_before = {c.name: c for c in facts.before.clusters}
        self.clusters_after = {c.name: c for c in facts.after.clusters}
        self._cluster_changes: dict[str, str | None] = {}

    # -- a template's file -------------------------------------------------------------------------------

    def template_cause(self, identity: Identity, cluster: str) -> tuple[RemovalCause, str]:
        crd = self._crd_in_use(identity, cluster)
        if crd is not None:
            return RemovalCause.CRD_IN_USE, crd
        cause, change = self._template_cause(identity, cluster)
        rolled_back = self.facts.rolled_back_to
        if rolled_back is not None and cause is not RemovalCause.EVICTED:
            return RemovalCause.ROLLED_BACK, f"rollback to {rolled_back} ({change})"
        return cause, change

    def _template_cause(self, identity: Identity, cluster: str) -> tuple[RemovalCause, str]:
        if cluster not in self.clusters_after:
            return RemovalCause.CLUSTER_DELETED, f"Cluster {cluster} was deleted from the inventory"
        evicted = self.facts.evictions.get((identity, cluster))
        if evicted is not None:
            return RemovalCause.EVICTED, f"evicted by the failover controllers: {evicted}"
        if identity in self.facts.rescheduled:
            return RemovalCause.RESCHEDULED, "divided afresh on request (reschedule)"
        after = self.facts.current.get(identity)
        rollout = read_state(after.metadata.annotations) if after is not None else None
        if rollout is not None and rollout.phase is RolloutPhase.ROLLED_BACK:
            return RemovalCause.ROLLOUT_FAILED, f"RolloutPolicy {rollout.policy} {rollout.message}"
        if identity not in self.templates_after:
            return self._gone(identity)
        before = self.facts.previous.get(identity)
        if before is None:
            # no record to read (a side that stands on its index): only what the inputs say
            if self._template_changed(identity):
                source = self.templates_after[identity].source
                return RemovalCause.TEMPLATE_EDITED, f"its own edit ({source}) moved it off {cluster}"
            changed = self.cluster_change(cluster)
            if changed is not None:
                return RemovalCause.CLUSTER_CHANGED, changed
            return RemovalCause.UNEXPLAINED, f"no input change says why it left {cluster}"
        if before.spec.required_by and claimed_policy(before) is None:
            return self._dependency(identity, cluster)
        after = self.facts.current.get(identity)
        if after is None or claimed_policy(after) is None:
            return self._unclaimed(identity, before)
        return self._moved(identity, cluster, before, after)

    def _crd_in_use(self, identity: Identity, cluster: str) -> str | None:
        """A CRD leaving ``cluster`` while objects of its kind are still rendered there."""
        if (identity[0], identity[1]) != CRD_KIND:
            return None
        template = self.templates_before.get(identity)
        defined = _crd_kind(template) if template is not None else None
        if defined is None:
            return None
        objects = self.facts.rendered.get(cluster, {}).get(defined, ())
        if not objects:
            return None
        shown = ", ".join(objects[:3]) + (f" and {len(objects) - 3} more" if len(objects) > 3 else "")
        return (
            f"CustomResourceDefinition {identity[3]} goes while {len(objects)} {defined[1]} object(s) are "
            f"still rendered on {cluster} ({shown}): the API server would delete them with it"
        )

    def _gone(self, identity: Identity) -> tuple[RemovalCause, str]:
        """The template is no longer in the repository: deleted, or it changed identity (a new template of
        the document it came from; its record names that document whatever the history says)."""
        old = self.templates_before.get(identity)
        source = old.source if old is not None else self._recorded_source(identity)
        name = identity[3]
        successor = self._successor(source, name) if source is not None else None
        if successor is not None:
            return (
                RemovalCause.TEMPLATE_EDITED,
                f"an edit of {successor.source} made it {successor.key} (its kind, namespace or name "
                "changed)",
            )
        if old is None and self.facts.config_changed:
            return RemovalCause.CONFIG_CHANGED, "no longer an input since gitops-karmada.yaml changed"
        if source is None:
            return RemovalCause.TEMPLATE_DELETED, "no longer in the repository"
        return RemovalCause.TEMPLATE_DELETED, f"deleted from {source.path}"

    def _recorded_source(self, identity: Identity) -> SourceRef | None:
        """The document the template's record says it was rendered from (``file[index]``)."""
        binding = self.facts.previous.get(identity)
        recorded = binding.metadata.annotations.get(SOURCE_ANNOTATION) if binding is not None else None
        path, _, index = (recorded or "").rpartition("[")
        if not path or not index.endswith("]") or not index[:-1].isdigit():
            return None
        return SourceRef(path, int(index[:-1]))

    def _successor(self, source: SourceRef, name: str) -> Manifest | None:
        """The template the one rendered from ``source`` turned into: a template of the same file that had
        no record before, at the same document or with the same name."""
        new = [
            t
            for identity, t in self.templates_after.items()
            if identity not in self.facts.had and t.source.path == source.path
        ]
        same_place = [t for t in new if t.source.doc_index == source.doc_index]
        same_name = [t for t in new if t.key.name == name]
        found = same_place or same_name
        return found[0] if len(found) == 1 else None

    def _dependency(self, identity: Identity, cluster: str) -> tuple[RemovalCause, str]:
        """An attached dependency (propagateDeps) leaves with the workloads that required it."""
        before = self.facts.previous[identity]
        requirers = sorted({_snapshot_label(s.namespace, s.name) for s in before.spec.required_by})
        after = self.facts.current.get(identity)
        still = {_snapshot_label(s.namespace, s.name) for s in after.spec.required_by} if after else set()
        shown = ", ".join(requirers)
        if still:
            return RemovalCause.DEPENDENCY_DROPPED, f"the workloads requiring it left {cluster} ({shown})"
        if all(not self._binding_still_there(r) for r in requirers):
            return RemovalCause.TEMPLATE_DELETED, f"the workloads that required it were deleted ({shown})"
        stopped = self._stopped_propagating(requirers)
        if stopped is not None:
            return RemovalCause.POLICY_CHANGED, stopped
        return (
            RemovalCause.DEPENDENCY_DROPPED,
            f"no workload requires it any more (it was required by {shown})",
        )

    def _stopped_propagating(self, requirers: Sequence[str]) -> str | None:
        """The policy edit that stopped propagating the requirers' dependencies (propagateDeps off, or the
        policy deleted), when one did."""
        for label in requirers:
            binding = next(
                (
                    b
                    for b in (*self.facts.current.values(), *self.facts.previous.values())
                    if _snapshot_label(b.metadata.namespace or "", b.metadata.name) == label
                ),
                None,
            )
            policy = claimed_policy(binding) if binding is not None else None
            if policy is None:
                continue
            old, new = self.policies_before.get(policy), self.policies_after.get(policy)
            if new is None:
                return f"{_policy_label(policy)}, which propagated the dependencies of {label}, was deleted"
            if old is not None and old.spec.propagate_deps and not new.spec.propagate_deps:
                return f"{_policy_label(policy)} no longer propagates dependencies (propagateDeps)"
        return None

    def _binding_still_there(self, label: str) -> bool:
        """Whether the template whose binding is ``namespace/name`` is still in the repository."""
        for identity, binding in self.facts.previous.items():
            if _snapshot_label(binding.metadata.namespace or "", binding.metadata.name) == label:
                return identity in self.templates_after
        return True

    def _unclaimed(self, identity: Identity, before: ResourceBinding) -> tuple[RemovalCause, str]:
        """The template stays, but no policy claims it any more."""
        policy = claimed_policy(before)
        if policy is not None:
            if policy not in self.policies_after:
                return RemovalCause.POLICY_CHANGED, f"{_policy_label(policy)}, which claimed it, was deleted"
            old, new = self.policies_before.get(policy), self.policies_after[policy]
            if old is not None and _spec(old) != _spec(new):
                return (
                    RemovalCause.POLICY_CHANGED,
                    f"{_policy_label(policy)} was edited and no longer selects it",
                )
        if self._template_changed(identity):
            source = self.templates_after[identity].source
            return RemovalCause.TEMPLATE_EDITED, f"its own edit ({source}) left it selected by no policy"
        if self.facts.config_changed:
            return RemovalCause.CONFIG_CHANGED, "claimed by no policy since gitops-karmada.yaml changed"
        return RemovalCause.UNEXPLAINED, "claimed by no policy any more, and no input change says why"

    def _moved(
        self, identity: Identity, cluster: str, before: ResourceBinding, after: ResourceBinding
    ) -> tuple[RemovalCause, str]:
        """The template is still placed, but no longer on ``cluster``."""
        old_policy, new_policy = claimed_policy(before), claimed_policy(after)
        if old_policy != new_policy:
            return (
                RemovalCause.POLICY_CHANGED,
                f"now claimed by {_policy_label(new_policy)} (was {_policy_label(old_policy)})",
            )
        if new_policy is not None:
            if before.spec.placement != after.spec.placement:
                # the records say so whatever the history: a Lazy policy's edit applies with its template's
                return RemovalCause.POLICY_CHANGED, f"the placement of {_policy_label(new_policy)} changed"
            old, new = self.policies_before.get(new_policy), self.policies_after.get(new_policy)
            if old is not None and new is not None and _spec(old) != _spec(new):
                return RemovalCause.POLICY_CHANGED, f"{_policy_label(new_policy)} was edited"
        changed = self.cluster_change(cluster)
        if changed is not None:
            return RemovalCause.CLUSTER_CHANGED, changed
        if self._template_changed(identity):
            source = self.templates_after[identity].source
            return RemovalCause.TEMPLATE_EDITED, f"its own edit ({source}) moved it off {cluster}"
        if self.facts.config_changed:
            return RemovalCause.CONFIG_CHANGED, "gitops-karmada.yaml changed"
        return RemovalCause.UNEXPLAINED, f"no input change says why it left {cluster}"

    def _template_changed(self, identity: Identity) -> bool:
        """Whether the template's document changed: by the history, or by the hash its records carry."""
        old, new = self.templates_before.get(identity), self.templates_after.get(identity)
        if old is not None and new is not None and (old.body != new.body or old.source != new.source):
            return True
        before, after = self.facts.previous.get(identity), self.facts.current.get(identity)
        if before is None or after is None:
            return False
        recorded = before.metadata.annotations.get(TEMPLATE_HASH_ANNOTATION)
        return recorded is not None and recorded != after.metadata.annotations.get(TEMPLATE_HASH_ANNOTATION)

    def cluster_change(self, name: str) -> str | None:
        """What changed in Cluster ``name``'s document, when something did (worked out once per cluster)."""
        if name not in self._cluster_changes:
            old, new = self.clusters_before.get(name), self.clusters_after.get(name)
            changed = None if old is None or new is None else describe_cluster_change(old, new)
            self._cluster_changes[name] = changed
        return self._cluster_changes[name]

    # -- a quota's file ----------------------------------------------------------------------------------

    def quota_cause(self, namespace: str, name: str, cluster: str) -> tuple[RemovalCause, str]:
        if self.facts.rolled_back_to is not None:
            return RemovalCause.ROLLED_BACK, f"rollback to {self.facts.rolled_back_to}"
        if cluster not in self.clusters_after:
            return RemovalCause.CLUSTER_DELETED, f"Cluster {cluster} was deleted from the inventory"
        quotas = {(q.namespace, q.name) for q in self.facts.after.quotas}
        label = f"FederatedResourceQuota {namespace}/{name}"
        if (namespace, name) not in quotas:
            return RemovalCause.POLICY_CHANGED, f"{label} was deleted"
        return RemovalCause.POLICY_CHANGED, f"{label}'s staticAssignments no longer name {cluster}"


def describe_cluster_change(old: Cluster, new: Cluster) -> str | None:
    """``Cluster X's labels changed (env: prod → prd)``, or its other fields; None when its document is the
    same."""
    if old.to_api() == new.to_api():
        return None
    changes = []
    for key in sorted(old.labels.keys() | new.labels.keys()):
        before, after = old.labels.get(key), new.labels.get(key)
        if before != after:
            changes.append(f"{key}: {_value(before)} → {_value(after)}")
    if changes:
        return f"Cluster {new.name}'s labels changed ({', '.join(changes)})"
    return f"Cluster {new.name}'s spec changed"


def kept_on_changed_clusters(
    facts: RemovalFacts, kept: Mapping[Identity, tuple[str, ...]]
) -> tuple[str, ...]:
    """Why workloads stay on a cluster whose labels or fields changed though their policy would no longer
    choose it: Karmada keeps a Divided workload's result until its placement or replicas change, or a
    ``reschedule`` (``kept``: the templates whose previous result was kept, with their clusters). One line
    per (workload, cluster)."""
    context = _Context(facts)
    notes: list[str] = []
    for identity, clusters in sorted(kept.items()):
        binding = facts.current.get(identity)
        policy_key = claimed_policy(binding) if binding is not None else None
        policy = context.policies_after.get(policy_key) if policy_key is not None else None
        affinity = policy.spec.placement.cluster_affinity if policy is not None else None
        if affinity is None:
            continue
        for name in clusters:
            cluster = context.clusters_after.get(name)
            if cluster is None or cluster_matches(cluster, affinity):
                continue
            changed = context.cluster_change(name)
            if changed is not None:
                notes.append(
                    f"{_label(identity)} stays on {name} though {_policy_label(policy_key)} would no longer "
                    f"choose it ({changed}): Karmada does not move a Divided workload for a cluster change; "
                    "it moves at its next scheduling trigger, or with `gitops-karmada reschedule`"
                )
    return tuple(notes)


def _snapshot_label(namespace: str, name: str) -> str:
    return f"{namespace}/{name}" if namespace else name


def _value(label: str | None) -> str:
    return label if label is not None else "(none)"


def _policies(inputs: Inputs) -> dict[PolicyKey, Any]:
    found: dict[PolicyKey, Any] = {}
    for policy in inputs.propagation_policies:
        found[("PropagationPolicy", policy.namespace, policy.name)] = policy
    for cpp in inputs.cluster_propagation_policies:
        found[("ClusterPropagationPolicy", "", cpp.name)] = cpp
    return found


def _spec(policy: Any) -> Any:
    return policy.spec.to_api()


def _crd_kind(template: Manifest) -> tuple[str, str] | None:
    spec = template.body.get("spec")
    if not isinstance(spec, Mapping):
        return None
    names = spec.get("names")
    group, kind = spec.get("group"), names.get("kind") if isinstance(names, Mapping) else None
    return (group, kind) if isinstance(group, str) and isinstance(kind, str) else None


def _label(identity: Identity) -> str:
    group, kind, namespace, name = identity
    kind = f"{kind}.{group}" if group else kind
    return f"{kind}/{namespace}/{name}" if namespace else f"{kind}/{name}"


def _policy_label(policy: PolicyKey | None) -> str:
    if policy is None:
        return "no policy"
    kind, namespace, name = policy
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"
