"""Cross-object warnings: what is valid on its own but almost certainly not what the author meant.

A policy that names a cluster the inventory does not have (``membr1``), a propagation policy whose
selectors select no template, a template that no policy selects: each would otherwise change placement by
omission without a word. They are warnings at the document concerned (``validate --strict`` turns them into
errors). Pure.
"""

from __future__ import annotations

import base64
import binascii
import difflib
import functools
import typing
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from gitops_karmada.core.detector import ref_of
from gitops_karmada.core.overrides import unused_override_policies
from gitops_karmada.core.ownership import binding_key
from gitops_karmada.core.scheduler.filters import find_untolerated_taint, taint_to_string
from gitops_karmada.core.schema_check import SCHEMA_CODE
from gitops_karmada.model.base import LabelSelector, TaintEffect
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.model.diagnostics import Diagnostic, error, warning
from gitops_karmada.model.overrides import ClusterOverridePolicy, OverridePolicy

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence

    from gitops_karmada.core.detector import PolicyIndex, PolicyRef
    from gitops_karmada.core.run_memo import RunMemo
    from gitops_karmada.core.schema_check import SchemaChecker
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.diagnostics import SourceRef
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.model.overrides import AnyOverridePolicy
    from gitops_karmada.model.policies import AnyPropagationPolicy, ClusterAffinity, PropagationSpec


def cross_object_warnings(
    inputs: Inputs, index: PolicyIndex, memo: RunMemo | None = None, claiming: Collection[PolicyRef] = ()
) -> list[Diagnostic]:
    """Unknown cluster names, and policies (propagation or override) whose selectors select nothing.

    ``memo``: a long-lived process's memo; what each policy says on its own is recalled while the policy,
    its source and the inventory's names are the same (a push changes one file, not 2,500). ``claiming``:
    policies known to claim a template (so to select one), which need no search."""
    found = list(invalid_label_selectors(inputs, memo))
    found.extend(unhonoured_fields(inputs))
    found.extend(unknown_cluster_names(inputs, memo))
    found.extend(_propagation_policies_selecting_nothing(inputs, index, claiming))
    found.extend(_override_policies_selecting_nothing(inputs))
    return found


UNMATCHED_MESSAGE = "no propagation policy selects {}: it is not propagated to any cluster"


def unmatched_templates(templates: Iterable[Manifest]) -> list[Diagnostic]:
    """One warning per template no policy selects (at its document), so nothing vanishes silently."""
    return [warning(UNMATCHED_MESSAGE.format(t.key), t.source) for t in templates]


def untolerated_no_execute(
    bindings: Iterable[ResourceBinding],
    clusters: Mapping[str, Cluster],
    sources: Mapping[tuple[str, str, str, str], SourceRef | None],
    *,
    failover: bool,
) -> list[Diagnostic]:
    """A warning per workload that stays on a cluster whose NoExecute taint it does not tolerate.

    Karmada's scheduler never moves a workload off a cluster it already runs on for a taint (the filter
    skips current targets); only the taint manager evicts, behind the Failover feature gate. Without it,
    saying nothing would look like the taint was ignored.
    """
    found: list[Diagnostic] = []
    if failover:
        return found  # the taint manager evicts it in its time (core.failover): nothing stays silently
    for binding in bindings:
        identity = binding_key(binding).identity
        placement = binding.spec.placement
        allowed = placement.cluster_tolerations if placement is not None else ()
        for target in binding.spec.clusters:
            cluster = clusters.get(target.name)
            if cluster is None:
                continue
            taints = [t for t in cluster.spec.taints if t.effect is TaintEffect.NO_EXECUTE]
            taint = find_untolerated_taint(taints, allowed)
            if taint is None:
                continue
            why = (
                "Karmada evicts only through its taint manager (feature gate Failover with "
                "failover.enableNoExecuteTaintEviction, off here)"
            )
            found.append(
                warning(
                    f"{binding_key(binding)} stays on cluster {target.name!r}, whose taint "
                    f"{{{taint_to_string(taint)}}} it does not tolerate: the scheduler keeps current "
                    f"clusters, and {why}",
                    sources.get(identity),
                )
            )
    return found


# -- cluster names -------------------------------------------------------------------------------------------


def unhonoured_fields(inputs: Inputs) -> Iterator[Diagnostic]:
    """A warning per field that is accepted (valid Karmada API) but does not affect placement in this
    repository: its feature gate is off."""
    policies: list[AnyPropagationPolicy] = [
        *inputs.propagation_policies,
        *inputs.cluster_propagation_policies,
    ]
    for policy in policies:
        source = inputs.sources.get((policy.kind, policy.namespace, policy.name))
        if policy.spec.placement.workload_affinity is not None and not inputs.config.gate(
            FeatureGate.WORKLOAD_AFFINITY
        ):
            yield warning(
                "workloadAffinity is validated but not applied: Karmada's scheduler honours it only with the "
                "feature gate WorkloadAffinity, which is off (featureGates in gitops-karmada.yaml)",
                source,
                "spec.placement.workloadAffinity",
            )
        if policy.spec.failover is not None and not inputs.config.gate(FeatureGate.FAILOVER):
            yield warning(
                "failover is recorded in the bindings but not performed: Karmada's failover controllers run "
                "only with the feature gate Failover, which is off (featureGates in gitops-karmada.yaml)",
                source,
                "spec.failover",
            )


def invalid_label_selectors(inputs: Inputs, memo: RunMemo | None = None) -> Iterator[Diagnostic]:
    """A warning per label selector ``metav1.LabelSelectorAsSelector`` refuses, in any policy.

    Karmada's admission accepts such a policy and its matchers treat the selector as matching nothing, so
    only what that selector would have chosen is affected; saying so at the field keeps it from looking
    like a scheduling mystery.
    """
    policies: list[AnyPropagationPolicy | AnyOverridePolicy] = [
        *inputs.propagation_policies,
        *inputs.cluster_propagation_policies,
        *inputs.override_policies,
        *inputs.cluster_override_policies,
    ]
    said = memo.table("lint_selectors", None) if memo is not None else None
    for policy in policies:
        source = inputs.sources.get((policy.kind, policy.namespace, policy.name))
        compute = functools.partial(_invalid_selectors_of, policy, source)
        yield from compute() if said is None else said.recall(policy, source, compute)


def _invalid_selectors_of(
    policy: AnyPropagationPolicy | AnyOverridePolicy, source: SourceRef | None
) -> tuple[Diagnostic, ...]:
    return tuple(
        warning(
            f"invalid label selector ({selector.problem}): it selects nothing, as in Karmada", source, field
        )
        for field, selector in _label_selectors(policy.spec, "spec")
    )


def _label_selectors(value: object, field: str) -> Iterator[tuple[str, LabelSelector]]:
    """The invalid label selectors anywhere in ``value`` with their field paths (camelCase)."""
    if isinstance(value, LabelSelector):
        if value.problem is not None:
            yield field, value
    elif isinstance(value, BaseModel):
        for name, alias in _selector_fields(type(value)):
            yield from _label_selectors(getattr(value, name), f"{field}.{alias}")
    elif isinstance(value, tuple | list):
        for i, item in enumerate(value):
            yield from _label_selectors(item, f"{field}[{i}]")


@functools.cache
def _selector_fields(model: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    """(attribute, camelCase name) of the fields of ``model`` whose type can hold a LabelSelector: every
    run walks every policy, and most fields (overriders, spread constraints, names) never hold one."""
    return tuple(
        (name, info.alias or name)
        for name, info in model.model_fields.items()
        if _reaches_selector(info.annotation)
    )


def _reaches_selector(annotation: object) -> bool:
    """Whether a value of type ``annotation`` can contain a LabelSelector (``Any``: it can)."""
    stack, seen = [annotation], set()
    while stack:
        kind = stack.pop()
        if kind is Any or kind is object or (isinstance(kind, type) and issubclass(kind, LabelSelector)):
            return True
        if id(kind) in seen:
            continue
        seen.add(id(kind))
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            stack.extend(info.annotation for info in kind.model_fields.values())
        else:
            stack.extend(typing.get_args(kind))
    return False


def unknown_cluster_names(inputs: Inputs, memo: RunMemo | None = None) -> Iterator[Diagnostic]:
    known = tuple(sorted(cluster.name for cluster in inputs.clusters))
    policies: list[AnyPropagationPolicy | AnyOverridePolicy] = [
        *inputs.propagation_policies,
        *inputs.cluster_propagation_policies,
        *inputs.cluster_override_policies,
        *inputs.override_policies,
    ]
    said = memo.table("lint_clusters", known) if memo is not None else None
    for policy in policies:
        source = inputs.sources.get((policy.kind, policy.namespace, policy.name))
        compute = functools.partial(_unknown_names_of, policy, known, source)
        yield from compute() if said is None else said.recall(policy, source, compute)


def _unknown_names_of(
    policy: AnyPropagationPolicy | AnyOverridePolicy, known: Sequence[str], source: SourceRef | None
) -> tuple[Diagnostic, ...]:
    names = (
        _override_cluster_names(policy)
        if isinstance(policy, OverridePolicy | ClusterOverridePolicy)
        else _propagation_cluster_names(policy.spec)
    )
    return tuple(_unknown(name, known, source, field) for field, name in names if name not in known)


def _unknown(name: str, known: Sequence[str], source: SourceRef | None, field: str) -> Diagnostic:
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    inventory = ", ".join(known) if known else "no clusters"
    return warning(f"cluster {name!r} is not in the inventory{hint}; it has {inventory}", source, field)


def _affinity_names(affinity: ClusterAffinity | None, field: str) -> Iterator[tuple[str, str]]:
    if affinity is None:
        return
    for i, name in enumerate(affinity.cluster_names):
        yield f"{field}.clusterNames[{i}]", name
    for i, name in enumerate(affinity.exclude):
        yield f"{field}.exclude[{i}]", name


def _propagation_cluster_names(spec: PropagationSpec) -> Iterator[tuple[str, str]]:
    placement = spec.placement
    yield from _affinity_names(placement.cluster_affinity, "spec.placement.clusterAffinity")
    for i, term in enumerate(placement.cluster_affinities):
        yield from _affinity_names(term, f"spec.placement.clusterAffinities[{i}]")
    strategy = placement.replica_scheduling
    preference = strategy.weight_preference if strategy is not None else None
    for i, weight in enumerate(preference.static_weight_list if preference is not None else ()):
        field = f"spec.placement.replicaScheduling.weightPreference.staticWeightList[{i}].targetCluster"
        yield from _affinity_names(weight.target_cluster, field)
    on_clusters = spec.suspension.dispatching_on_clusters if spec.suspension is not None else None
    for i, name in enumerate(on_clusters.cluster_names if on_clusters is not None else ()):
        yield f"spec.suspension.dispatchingOnClusters.clusterNames[{i}]", name


def _override_cluster_names(policy: AnyOverridePolicy) -> Iterator[tuple[str, str]]:
    spec = policy.spec
    if spec.override_rules:
        for i, rule in enumerate(spec.override_rules):
            yield from _affinity_names(rule.target_cluster, f"spec.overrideRules[{i}].targetCluster")
    else:
        yield from _affinity_names(spec.target_cluster, "spec.targetCluster")


# -- policies that select nothing --------------------------------------------------------------------------


def _propagation_policies_selecting_nothing(
    inputs: Inputs, index: PolicyIndex, claiming: Collection[PolicyRef]
) -> Iterator[Diagnostic]:
    policies: list[AnyPropagationPolicy] = [
        *inputs.propagation_policies,
        *inputs.cluster_propagation_policies,
    ]
    claimed = frozenset(claiming)
    if all(ref_of(p) in claimed for p in policies):
        return  # each claims a template: no need to ask every template which policies select it
    selecting = {
        candidate.policy
        for template in inputs.templates
        for ranked in index.candidates_for(template)
        for candidate in ranked
    }
    for ref in map(ref_of, policies):
        if ref not in selecting:
            where = f" in namespace {ref.namespace}" if ref.namespace else ""
            yield warning(
                f"resourceSelectors select no resource template{where}: this policy propagates nothing",
                inputs.sources.get((ref.kind, ref.namespace, ref.name)),
                "spec.resourceSelectors",
            )


def _override_policies_selecting_nothing(inputs: Inputs) -> Iterator[Diagnostic]:
    bodies = [t.body for t in inputs.templates]
    for cop in inputs.cluster_override_policies:
        for message in unused_override_policies(bodies, [cop], []):
            yield warning(message, inputs.sources.get((cop.kind, "", cop.name)))
    for op in inputs.override_policies:
        for message in unused_override_policies(bodies, [], [op]):
            yield warning(message, inputs.sources.get((op.kind, op.namespace, op.name)))


# -- what the API server would refuse (validate's offline checks) ------------------------------------------

KUBERNETES_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
"""The namespaces every Kubernetes cluster has from the start (kube-apiserver's system namespaces)."""


def api_server_checks(
    templates: Sequence[Manifest],
    unmatched: Collection[tuple[str, str, str, str]],
    checker: SchemaChecker | None,
) -> list[Diagnostic]:
    """What ``validate`` can tell offline of objects the API server would refuse or could not place: a
    namespace nothing creates, a Secret's ``data`` that is not base64, and (with ``checker``) a template no
    policy selects that fails its schema (a selected one is checked when it is rendered)."""
    found = namespaces_nothing_creates(templates)
    found.extend(secret_data_problems(templates))
    if checker is not None:
        found.extend(
            unmatched_schema_problems((t for t in templates if t.key.identity in unmatched), checker)
        )
    return found


def namespaces_nothing_creates(templates: Sequence[Manifest]) -> list[Diagnostic]:
    """A warning per namespace that namespaced templates use and no Namespace template creates (nor is it
    one Kubernetes has from the start): applied to a cluster where it does not exist, the API server refuses
    them. At the first such template (by file), counting the others."""
    created = {t.key.name for t in templates if t.key.kind == "Namespace" and not t.key.group}
    using: dict[str, list[Manifest]] = {}
    for template in templates:
        namespace = template.key.namespace
        if namespace and namespace not in created and namespace not in KUBERNETES_NAMESPACES:
            using.setdefault(namespace, []).append(template)
    found = []
    for namespace, users in sorted(using.items()):
        users.sort(key=lambda t: (t.source.path, t.source.doc_index))
        others = f" (and {len(users) - 1} more template(s) in it)" if len(users) > 1 else ""
        found.append(
            warning(
                f"namespace {namespace!r} of {users[0].key}{others} is created by no Namespace template in "
                f"the repository, nor is it one every cluster has ({', '.join(KUBERNETES_NAMESPACES)}): the "
                "API server refuses its objects where it does not exist (add a Namespace template)",
                users[0].source,
                "metadata.namespace",
            )
        )
    return found


def secret_data_problems(templates: Iterable[Manifest]) -> list[Diagnostic]:
    """An error per ``data`` value of a Secret that is not base64 (a ``[]byte`` field: standard base64,
    padded, line breaks ignored, as Go's JSON decoder reads it): the API server refuses the Secret."""
    found = []
    for template in templates:
        if template.key.kind != "Secret" or template.key.group:
            continue
        data = template.body.get("data")
        if not isinstance(data, dict):
            continue
        for key, value in sorted(data.items(), key=lambda item: str(item[0])):
            problem = _base64_problem(value)
            if problem:
                found.append(
                    error(
                        f"Secret data must be base64 (put plain text under stringData): {problem}",
                        template.source,
                        f"data.{key}",
                    )
                )
    return found


def _base64_problem(value: Any) -> str:
    if not isinstance(value, str):
        return ""  # not a string at all: the schema check says so
    try:
        base64.b64decode(value.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError) as err:
        return f"{value[:20]!r}{'…' if len(value) > 20 else ''} does not decode ({err})"
    return ""


def unmatched_schema_problems(templates: Iterable[Manifest], checker: SchemaChecker) -> list[Diagnostic]:
    """An error per template no policy selects that fails its schema (Kubernetes' of the configured or
    newest version, or its CRD's in the repository): it is never rendered, so no run checks it, and the
    API server would refuse it wherever a later policy sends it."""
    found = []
    for template in templates:
        verdict = checker.check(template.body, "")
        if verdict.problems:
            shown = "; ".join(f"{p.field or '(object)'}: {p.message}" for p in verdict.problems)
            found.append(
                error(
                    f"{template.key} (selected by no policy) fails the {verdict.checked_against} schema, "
                    f"so the API server would refuse it: {shown}",
                    template.source,
                    verdict.problems[0].field,
                    code=SCHEMA_CODE,
                )
            )
    return found
