"""Which templates a change of input files can touch: the dependency index of a scoped run.

A template's output is a function of what its fingerprint hashes (``core.incremental.fingerprint``): a part
shared by every template (engine, configuration, inventory, snapshots, ClusterOverridePolicies: the run
digest), and parts of its own. When the run digest is the one the previous run recorded in its state index
(the caller checks), the templates whose fingerprint can differ are found from the documents of the changed
files, before and after, without judging the others:

* the templates of a changed file (their body, or their place in the file, changed);
* for a changed (Cluster)PropagationPolicy, as it was and as it is: every template it is indexed under (the
  kind and name of its selectors: exactly what matching reads of it, ``PolicyIndex.read_for``). The
  templates it claimed are among them: a claim the previous run kept was one its selectors still made;
* for a changed OverridePolicy: every template of its namespace;
* for a changed ResourceInterpreterCustomization: every template of its target kind;
* for a changed RolloutPolicy: every template of its namespace;
* always: every template whose previous result was not settled (it is redone whatever changed), every
  template bound without a claim of its own (a dependency that followed a workload), and every template
  Kustomize or Helm renders (a remote base can change what they give with no file changing).

``reconcile`` adds the templates that cannot stand unjudged whatever changed (``_not_standing``: without
an index entry, of a quota's namespace, required by others, edited since) and those requiring any of them.
A change a scope cannot follow gives no scope, and every template is judged: a FederatedResourceQuota (its
static assignments are files of no template), a CustomResourceDefinition or a Namespace template, a file
Kustomize or Helm may read, a template deleted (its files go, or are released: a run-wide output), an
OverridePolicy added or removed (a policy's dependentOverrides wait on names). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from gitops_karmada.core.detector import selector_keys
from gitops_karmada.core.inputs.external_sources import CHART_FILE, KUSTOMIZATION_FILES

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence

    from gitops_karmada.core.incremental.state_index import StateIndex
    from gitops_karmada.core.inputs.external_sources import SourcePlan
    from gitops_karmada.model.inputs import Inputs, KarmadaObject
    from gitops_karmada.model.policies import AnyPropagationPolicy

Identity = tuple[str, str, str, str]
_Object = TypeVar("_Object", bound="KarmadaObject")

_UNSCOPED_KINDS = frozenset({"FederatedResourceQuota"})
_WHOLE_FLEET_TEMPLATE_KINDS = frozenset({"CustomResourceDefinition", "Namespace"})
"""A CRD gives its kind a schema (every template of the kind); a Namespace is synced everywhere."""


@dataclass(frozen=True, slots=True)
class ChangedInputs:
    """The input files changed since the previous run, and what they held then."""

    paths: frozenset[str]
    """Input paths whose content changed, were added or were deleted."""
    before: Inputs
    """The documents of ``paths`` as the previous run read them (only those files, loaded alone)."""
    asked: frozenset[str] = field(default_factory=frozenset)
    """Templates (``str(key)``) the caller reads the outcome of: in the scope whatever changed."""


def touched_templates(
    changed: ChangedInputs, after: Inputs, index: StateIndex, sources: SourcePlan | None = None
) -> frozenset[Identity] | None:
    """The templates whose outcome ``changed`` can change, from ``after`` (every input now), the previous
    run's ``index`` and the Kustomize and Helm ``sources`` among the inputs now; None when the change is not
    one a scope can follow (see the module)."""
    before = changed.before
    if sources is not None and any(_read_by_sources(path, sources) for path in changed.paths):
        return None
    # the objects (by kind, namespace, name) that come from a changed file: most runs change templates only
    changed_keys = {key for key, source in after.sources.items() if source.path in changed.paths}
    if before.quotas or any(kind in _UNSCOPED_KINDS for kind, _, _ in changed_keys):
        return None
    found = [t for t in after.templates if t.source.path in changed.paths]
    now = {t.key.identity for t in after.templates}
    if any(t.key.identity not in now for t in before.templates):
        return None
    if any(t.key.kind in _WHOLE_FLEET_TEMPLATE_KINDS for t in (*found, *before.templates)):
        return None
    overrides = {(p.namespace, p.name) for p in before.override_policies}
    if overrides != {(p.namespace, p.name) for p in _changed(after.override_policies, changed_keys)}:
        return None
    overridden = {namespace for namespace, _ in overrides}
    # a RolloutPolicy governs the templates of its namespace (as an OverridePolicy, by its selectors)
    overridden.update(
        r.namespace for r in (*before.rollout_policies, *_changed(after.rollout_policies, changed_keys))
    )
    interpreted = {
        (c.spec.target.api_version, c.spec.target.kind)
        for c in (*before.customizations, *_changed(after.customizations, changed_keys))
    }
    touched: set[Identity] = {t.key.identity for t in (*found, *before.templates)}
    touched.update(
        t.key.identity
        for t in after.templates
        if t.key.namespace in overridden or (t.key.api_version, t.key.kind) in interpreted
    )
    policies: list[AnyPropagationPolicy] = [
        *before.propagation_policies,
        *before.cluster_propagation_policies,
        *_changed(after.propagation_policies, changed_keys),
        *_changed(after.cluster_propagation_policies, changed_keys),
    ]
    touched.update(_indexed_under(policies, after))
    touched.update(i for i, entry in index.entries.items() if not entry.settled or entry.claim is None)
    if sources is not None and sources.rendered:
        # what Kustomize or Helm renders may change with nothing in the repository changing (a remote base)
        rendered = set(sources.rendered)
        touched.update(t.key.identity for t in after.templates if t.source.path in rendered)
    if changed.asked:
        touched.update(t.key.identity for t in after.templates if str(t.key) in changed.asked)
    return frozenset(touched)


def _read_by_sources(path: str, sources: SourcePlan) -> bool:
    """Whether Kustomize or Helm may read ``path``: a kustomization or chart file, or any file under the
    folder of one. (Kustomize's default load restrictions keep a kustomization to its folder and to the
    bases it names, which are kustomization folders themselves.)"""
    name = path.rpartition("/")[2]
    roots = (*sources.kustomize_roots, *sources.chart_roots)
    return name in KUSTOMIZATION_FILES or name == CHART_FILE or any(path.startswith(r) for r in roots)


def _changed(objects: Sequence[_Object], keys: Collection[tuple[str, str, str]]) -> list[_Object]:
    """The ``objects`` (all of one kind) whose (kind, namespace, name) is one of ``keys``."""
    if not objects or not any(kind == objects[0].kind for kind, _, _ in keys):
        return []
    return [obj for obj in objects if (obj.kind, obj.metadata.namespace or "", obj.metadata.name) in keys]


def _indexed_under(policies: Iterable[AnyPropagationPolicy], inputs: Inputs) -> set[Identity]:
    """The templates of ``inputs`` that ``PolicyIndex`` files any of ``policies`` under: the same namespace
    (for a PropagationPolicy), a selector's apiVersion and kind, and its name when it has one."""
    keys: set[tuple[str | None, str, str, str]] = set()
    for policy in policies:
        namespace = policy.namespace if policy.kind == "PropagationPolicy" else None
        keys.update((namespace, *key) for key in selector_keys(policy))
    found: set[Identity] = set()
    if not keys:
        return found
    for template in inputs.templates:
        key = template.key
        for namespace in (key.namespace, None) if key.namespace else (None,):
            kind = (namespace, key.api_version, key.kind)
            if (*kind, "") in keys or (*kind, key.name) in keys:
                found.add(key.identity)
    return found
