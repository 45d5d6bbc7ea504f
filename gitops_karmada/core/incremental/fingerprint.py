"""The fingerprint of everything one template's output depends on, so an unchanged template is not redone.

A template's binding record and rendered files are a function of: the tool (engine version), the
repository configuration, the template document (content and where it is), the policy that claims it
(its spec and identity), the cluster inventory, the cluster snapshots, the override policies in its scope
(every ClusterOverridePolicy, the OverridePolicies of its namespace), the interpreter customizations of
its kind, the FederatedResourceQuotas of its namespace, the CustomResourceDefinition that gives its
kind a schema (when the repository has one), the repository's PriorityClasses (a binding records the value
of the one its policy names; they are in the run-wide part), and — for a dependency propagated by
``propagateDeps`` — the bindings that require it. The fingerprint hashes exactly those; it is recorded in
the binding (``gitops-karmada.io/inputs-fingerprint``) and in the state index, and a later run reuses the
recorded output when it computes the same value (``reconcile`` then neither schedules nor renders it).

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

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from gitops_karmada.core.detector import PolicyMatch
    from gitops_karmada.core.observed.fold import ObservedStatus
    from gitops_karmada.model.base import ApiModel
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.model.manifest import Manifest


def model_digest(model: ApiModel) -> str:
    return digest(model.model_dump(mode="json", by_alias=True, exclude_none=True))


@dataclass(slots=True)
class FingerprintContext:
    """The run-wide parts of every fingerprint, each hashed once, and per-scope parts hashed on first use."""

    inputs: Inputs
    snapshots: Mapping[str, bytes]
    observed: ObservedStatus | None = None
    """Member clusters' status snapshots: what they report of a template shapes its record."""
    memo: RunMemo = field(default_factory=RunMemo)
    """Digests of the same objects computed by earlier runs of the process."""
    _global: str = ""
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
        self._global = digest(
            {
                "engine": ENGINE_VERSION,
                "config": config,
                "clusters": [self._model_digest(c) for c in self.inputs.clusters],
                "snapshots": {
                    path: hashlib.sha256(raw).hexdigest() for path, raw in sorted(self.snapshots.items())
                },
                "clusterOverrides": [
                    self._model_digest(p) for p in _sorted(self.inputs.cluster_override_policies)
                ],
                **({"priorityClasses": dict(sorted(classes.items()))} if classes else {}),
            }
        )

    @property
    def run_digest(self) -> str:
        """The part shared by every template: engine, configuration, inventory, snapshots, COPs."""
        return self._global

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

    def template(
        self, template: Manifest, match: PolicyMatch, requirers: Iterable[Any] = (), failover: Any = ()
    ) -> str:
        """The fingerprint of one template's inputs (``requirers``: what the bindings requiring it say;
        ``failover``: the eviction tasks and memory the failover controllers keep in its binding)."""
        key = template.key
        requirers = list(requirers)
        parts = (
            self._global,
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
            run, claim, overrides, customizations, quotas, schema, observed, rollouts = parts
            return digest(
                {
                    "run": run,
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


def _claim_kind(match: PolicyMatch) -> str:
    """The match as far as it shapes the output: how a policy came to claim the template (fresh, sticky,
    preempted) does not, only which policy it is."""
    return "claimed" if match.policy is not None and match.state.value in _CLAIMED else match.state.value


_CLAIMED = frozenset({"fresh", "sticky", "preempted"})


def _sorted(models: Iterable[Any]) -> list[Any]:
    return sorted(models, key=lambda m: (m.namespace, m.name))
