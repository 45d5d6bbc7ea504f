"""The fingerprint of everything one template's output depends on, so an unchanged template is not redone.

A template's binding record and rendered files are a function of: the tool (engine version), the
repository configuration, the template document (content and where it is), the policy that claims it
(its spec and identity), the cluster inventory as written, the state of the clusters it can be placed on
(below), the cluster snapshots, the override policies in its scope
(every ClusterOverridePolicy, the OverridePolicies of its namespace), the interpreter customizations of
its kind, the FederatedResourceQuotas of its namespace, the CustomResourceDefinition that gives its
kind a schema (when the repository has one), the repository's PriorityClasses (a binding records the value
of the one its policy names; they are in the run-wide part), and — for a dependency propagated by
``propagateDeps`` — the bindings that require it. The fingerprint hashes exactly those; it is recorded in
the binding (``gitops-karmada.io/inputs-fingerprint``) and in the state index, and a later run reuses the
recorded output when it computes the same value (``reconcile`` then neither schedules nor renders it).

A cluster's state is its document as the scheduler sees it: what its status reports fold in (conditions,
resource summary, version, API enablements) and the taints that follow (its conditions, ClusterTaintPolicies,
a ``simulate`` scenario). A template's part of it is that of its relevant clusters only: those its policy's
cluster affinity can select (every term and overflow tier; every cluster without an affinity or a policy)
and those that report its objects. Karmada's scheduler chooses among the clusters the affinity selects, a
result kept outside them (a Divided workload stays on a cluster whose labels changed) is not scheduled
again, and what the failover controllers do on such a cluster is a part of its own; so a cluster going
NotReady, or reporting a new summary, redoes only the templates it can concern. The part is a function of
the inputs, never of the previous record, so a run stays idempotent on its own output. The run digest (the
state index's, deciding whether a change-scoped run may stand on the index) still covers every cluster's
state.

The previous binding is deliberately not an input: the pipeline is idempotent on its own output (a
binding recomputed from unchanged inputs and its own record is that record), which the stateful
incremental == full property test checks. Pure.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.codecs.digest import digest
from gitops_karmada.core.incremental.engine_version import ENGINE_VERSION
from gitops_karmada.core.run_memo import RunMemo
from gitops_karmada.core.scheduler.priority import priority_classes
from gitops_karmada.core.schema_check import crd_schemas
from gitops_karmada.core.selectors import ZoneMatching, cluster_matches

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from gitops_karmada.core.detector import PolicyMatch
    from gitops_karmada.core.observed.fold import ObservedStatus
    from gitops_karmada.model.base import ApiModel
    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.model.policies import ClusterAffinity, Placement


def model_digest(model: ApiModel) -> str:
    return digest(model.model_dump(mode="json", by_alias=True, exclude_none=True))


@dataclass(slots=True)
class FingerprintContext:
    """The run-wide parts of every fingerprint, each hashed once, and per-scope parts hashed on first use."""

    inputs: Inputs
    """The inputs as the run reads them (``inputs.clusters``: each cluster's state, as scheduling sees it)."""
    snapshots: Mapping[str, bytes]
    observed: ObservedStatus | None = None
    """Member clusters' status snapshots: what they report of a template shapes its record."""
    memo: RunMemo = field(default_factory=RunMemo)
    """Digests of the same objects computed by earlier runs of the process."""
    inventory: Sequence[Cluster] | None = None
    """The clusters as the inventory writes them (None: ``inputs.clusters`` are)."""
    _global: str = ""
    _run: str = ""
    _states: dict[str, str] = field(default_factory=dict)
    """Cluster name → digest of its state."""
    _reach: dict[tuple[str, str, str], frozenset[str]] = field(default_factory=dict)
    """Policy → the clusters its cluster affinity can select."""
    _reach_of: dict[tuple[str, ...], frozenset[str]] = field(default_factory=dict)
    """The same by the affinities themselves (a fleet's policies mostly share a few)."""
    _relevant: dict[frozenset[str], str] = field(default_factory=dict)
    _policies: dict[tuple[str, str, str], str] = field(default_factory=dict)
    _overrides: dict[str, str] = field(default_factory=dict)
    _customizations: dict[tuple[str, str], str] = field(default_factory=dict)
    _quotas: dict[str, str] = field(default_factory=dict)
    _rollouts: dict[str, str] = field(default_factory=dict)
    _schemas: dict[tuple[str, str], str] = field(default_factory=dict)
    """(group, kind) → digest of the CRD schemas in the repository that define that kind."""

    def __post_init__(self) -> None:
        by_kind: dict[tuple[str, str], list[str]] = {}
        for (group, _version, kind), (_name, schema) in sorted(crd_schemas(self.inputs.templates).items()):
            by_kind.setdefault((group, kind), []).append(digest(schema))
        self._schemas = {kind: digest(parts) for kind, parts in by_kind.items()}
        # where the output is committed and what is warned of never changes what a template renders
        config = self.inputs.config.model_dump(
            mode="json",
            by_alias=True,
            exclude={
                "guardrails": True,
                "removals": True,
                "output": {"mode", "branch", "folder", "groups", "host_limits"},
            },
        )
        # a binding records its policy's PriorityClass value, and the run's order follows it
        classes = priority_classes(self.inputs.templates)
        self._states = {c.name: self._model_digest(c) for c in self.inputs.clusters}
        self._global = digest(
            {
                "engine": ENGINE_VERSION,
                "config": config,
                "clusters": [self._model_digest(c) for c in self._inventory()],
                "snapshots": {
                    path: hashlib.sha256(raw).hexdigest() for path, raw in sorted(self.snapshots.items())
                },
                "clusterOverrides": [
                    self._model_digest(p) for p in _sorted(self.inputs.cluster_override_policies)
                ],
                **({"priorityClasses": dict(sorted(classes.items()))} if classes else {}),
            }
        )
        self._run = digest({"shared": self._global, "states": sorted(self._states.items())})

    @property
    def run_digest(self) -> str:
        """What every template's fingerprint shares (engine, configuration, inventory as written, snapshots,
        COPs) and every cluster's state: equal to the previous run's, nothing run-wide changed."""
        return self._run

    def _model_digest(self, model: ApiModel) -> str:
        return self.memo.recall("model_digest", (model,), None, lambda: model_digest(model))

    def _memo(self, cache: dict[Any, str], key: Any, compute: Callable[[], str]) -> str:
        found = cache.get(key)
        if found is None:
            found = cache[key] = compute()
        return found

    def policy(self, match: PolicyMatch) -> str:
        policy = match.policy
        if policy is None:
            return ""
        key = (policy.kind, policy.namespace, policy.name)
        return self._memo(self._policies, key, lambda: self._model_digest(policy))

    def overrides(self, namespace: str) -> str:
        def compute() -> str:
            return digest(
                [
                    self._model_digest(p)
                    for p in _sorted(self.inputs.override_policies)
                    if p.namespace == namespace
                ]
            )

        return self._memo(self._overrides, namespace, compute)

    def customizations(self, api_version: str, kind: str) -> str:
        def compute() -> str:
            return digest(
                [
                    self._model_digest(c)
                    for c in self.inputs.customizations
                    if c.spec.target.api_version == api_version and c.spec.target.kind == kind
                ]
            )

        return self._memo(self._customizations, (api_version, kind), compute)

    def quotas(self, namespace: str) -> str:
        def compute() -> str:
            return digest([self._model_digest(q) for q in self.inputs.quotas if q.namespace == namespace])

        return self._memo(self._quotas, namespace, compute)

    def rollouts(self, namespace: str) -> str:
        """The RolloutPolicies of ``namespace`` (empty when there are none: fingerprints without them are
        what they were before the kind existed)."""

        def compute() -> str:
            found = [self._model_digest(r) for r in self.inputs.rollout_policies if r.namespace == namespace]
            return digest(found) if found else ""

        return self._memo(self._rollouts, namespace, compute)

    def reach(self, match: PolicyMatch) -> frozenset[str]:
        """The clusters the claiming policy's cluster affinity can select, whatever their state (every
        cluster without a policy or an affinity)."""
        policy = match.policy
        if policy is None:
            return frozenset(self._states)
        key = (policy.kind, policy.namespace, policy.name)
        found = self._reach.get(key)
        if found is None:
            affinities = _affinities(policy.spec.placement)
            shape = tuple(a.model_dump_json() for a in affinities)
            found = self._reach_of.get(shape)
            if found is None:
                found = self._reach_of[shape] = _reach(affinities, self._inventory())
            self._reach[key] = found
        return found

    def cluster_states(self, names: frozenset[str]) -> str:
        """The state of the clusters ``names`` (those not in the inventory left it: the inventory says so)."""
        found = self._relevant.get(names)
        if found is None:
            found = self._relevant[names] = digest([(n, self._states.get(n, "")) for n in sorted(names)])
        return found

    def _inventory(self) -> Sequence[Cluster]:
        return self.inventory if self.inventory is not None else self.inputs.clusters

    def template(
        self,
        template: Manifest,
        match: PolicyMatch,
        requirers: Iterable[Any] = (),
        failover: Any = (),
    ) -> str:
        """The fingerprint of one template's inputs (``requirers``: what the bindings requiring it say;
        ``failover``: the eviction tasks and memory the failover controllers keep in its binding)."""
        key = template.key
        requirers = list(requirers)
        relevant = self.reach(match)
        reported = self.observed.clusters_for(key.identity) if self.observed is not None else frozenset()
        if not reported <= relevant:  # most report where their policy can place them: the set stays shared
            relevant = relevant | reported
        parts = (
            self._global,
            self.cluster_states(relevant),
            (_claim_kind(match), match.permanent_id, self.policy(match)),
            self.overrides(key.namespace),
            self.customizations(key.api_version, key.kind),
            self.quotas(key.namespace),
            # the rendered manifests are checked against the CRD of their kind, when the repo has one
            self._schemas.get((key.group, key.kind), ""),
            self.observed.digest_for(key.identity) if self.observed is not None else None,
            self.rollouts(key.namespace),
        )

        def compute() -> str:
            run, states, claim, overrides, customizations, quotas, schema, observed, rollouts = parts
            return digest(
                {
                    "run": run,
                    "clusters": states,
                    "source": [template.source.path, template.source.doc_index],
                    "template": template.body,
                    "match": list(claim),
                    "overrides": overrides,
                    "customizations": customizations,
                    "quotas": quotas,
                    "schema": schema,
                    "requirers": requirers,
                    **({"observed": observed} if observed is not None else {}),
                    **({"rollouts": rollouts} if rollouts else {}),
                    **({"failover": failover} if failover else {}),
                }
            )

        if requirers or failover:
            return compute()  # rare, and not plain values to key on
        return self.memo.recall("fingerprint", (template,), parts, compute)


def _affinities(placement: Placement) -> list[ClusterAffinity]:
    """Every cluster affinity of ``placement``: its own, or each term's and its overflow tiers'."""
    found: list[ClusterAffinity] = []
    if placement.cluster_affinity is not None:
        found.append(placement.cluster_affinity)
    for term in placement.cluster_affinities:
        found.append(term)
        found.extend(term.overflow_affinities or ())
    return found


def _reach(affinities: Sequence[ClusterAffinity], clusters: Sequence[Cluster]) -> frozenset[str]:
    """The clusters any of ``affinities`` selects, under either reading of ``zone In``; every cluster
    when there is none."""
    if not affinities:
        return frozenset(c.name for c in clusters)
    return frozenset(
        c.name
        for c in clusters
        if any(cluster_matches(c, a, zones) for a in affinities for zones in ZoneMatching)
    )


def _claim_kind(match: PolicyMatch) -> str:
    """The match as far as it shapes the output: how a policy came to claim the template (fresh, sticky,
    preempted) does not, only which policy it is."""
    return "claimed" if match.policy is not None and match.state.value in _CLAIMED else match.state.value


_CLAIMED = frozenset({"fresh", "sticky", "preempted"})


def _sorted(models: Iterable[Any]) -> list[Any]:
    return sorted(models, key=lambda m: (m.namespace, m.name))
