"""What gitops-karmada does with every field of every Karmada kind: the data behind docs/compatibility.md.

The field list is not typed out by hand: ``field_rows`` walks the pydantic models, which reject every
field they do not declare (``extra="forbid"``), so a field missing from the table is a field the loader
refuses. ``RULES`` says what happens to the accepted ones; a rule covers a field and everything under it,
the longest matching rule wins, and a field no rule names is *supported* (it has the effect Karmada gives it).
``tests/model/test_compatibility.py`` keeps the document, the rules and the models in step.
"""

from __future__ import annotations

import enum
import typing
from dataclasses import dataclass

from pydantic import BaseModel

from gitops_karmada.model.base import ObjectMeta
from gitops_karmada.model.clusters import Cluster
from gitops_karmada.model.interpretation import ResourceInterpreterCustomization
from gitops_karmada.model.overrides import OverridePolicy
from gitops_karmada.model.policies import PropagationPolicy
from gitops_karmada.model.quotas import FederatedResourceQuota
from gitops_karmada.model.taint_policies import ClusterTaintPolicy
from gitops_karmada.model.versions import KarmadaVersion


class Support(enum.StrEnum):
    SUPPORTED = "supported"
    NO_EFFECT = "accepted, no effect"
    """Karmada's placement does not read it either, or it only orders work that happens all at once here."""
    NOT_APPLICABLE = "accepted, not applicable"
    """Set by an API server or about connecting to a cluster: nothing here to apply it to."""
    RECORDED = "accepted, recorded only"
    """Validated and copied into the binding record; the behaviour it configures is not built yet."""
    IGNORED_WITH_WARNING = "accepted, ignored with a warning"
    INTERPRET_ONLY = "`interpret` only"
    """Runs under ``gitops-karmada interpret``; reconcile has no observed status to feed it."""


@dataclass(frozen=True, slots=True)
class Rule:
    support: Support
    note: str


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    model: type[BaseModel]
    kind_path: str
    """The prefix of this section's rules in ``RULES`` (``PropagationPolicy``, ``metadata``, ...)."""
    intro: str


@dataclass(frozen=True, slots=True)
class FieldRow:
    path: str
    support: Support
    note: str
    since: KarmadaVersion = KarmadaVersion.V1_16
    """The first Karmada version followed that has the field (v1.16: every one)."""


_SERVER_SET = Rule(
    Support.NOT_APPLICABLE,
    "set by an API server; accepted so that objects exported with `kubectl get -o yaml` can be committed",
)
_CONNECTION = Rule(
    Support.NOT_APPLICABLE,
    "how Karmada's control plane reaches the cluster; here the member cluster pulls its folder "
    "(Flux, Argo CD)",
)
_FAILOVER = Rule(
    Support.SUPPORTED,
    "with the feature gate Failover (off by default, as in Karmada): cluster failover from NoExecute taints, "
    "application failover from the health member clusters report, purge modes, state preservation and the "
    "eviction queue (docs/failover.md); without the gate it is validated, defaulted and recorded only",
)

RULES: dict[str, Rule] = {
    # ObjectMeta, shared by every kind
    "metadata.name": Rule(Support.SUPPORTED, "required; the identity of the object"),
    "metadata.uid": Rule(
        Support.SUPPORTED, "when set on a template: the tie-break of the Webster division, as in Karmada"
    ),
    "metadata.generateName": Rule(
        Support.NOT_APPLICABLE, "a file in Git has a fixed name; `name` is required"
    ),
    "metadata.selfLink": _SERVER_SET,
    "metadata.resourceVersion": _SERVER_SET,
    "metadata.generation": _SERVER_SET,
    "metadata.creationTimestamp": _SERVER_SET,
    "metadata.deletionTimestamp": Rule(
        Support.NOT_APPLICABLE, "deleting is removing the file from Git (see preserveResourcesOnDeletion)"
    ),
    "metadata.deletionGracePeriodSeconds": _SERVER_SET,
    "metadata.ownerReferences": Rule(Support.NOT_APPLICABLE, "no garbage collector runs over the repository"),
    "metadata.finalizers": _SERVER_SET,
    "metadata.managedFields": _SERVER_SET,
    # PropagationPolicy / ClusterPropagationPolicy
    "PropagationPolicy.spec.association": Rule(
        Support.NO_EFFECT, "deprecated in Karmada in favour of `propagateDeps`, which Karmada reads instead"
    ),
    "PropagationPolicy.spec.placement.workloadAffinity": Rule(
        Support.SUPPORTED,
        "with the feature gate WorkloadAffinity (alpha, off by default, as in Karmada): the template's "
        "groups recorded as the binding's `workloadAffinityGroups`, and the scheduler's two filters over the "
        "members placed before it in the run's order (docs/architecture.md, the scheduling order); without "
        "the gate it is validated only, with a warning",
    ),
    "PropagationPolicy.spec.placement.spreadConstraints.spreadByLabel": Rule(
        Support.NO_EFFECT,
        "accepted by Karmada's API, but its scheduler ignores such a constraint; so does this one",
    ),
    "PropagationPolicy.spec.schedulePriority": Rule(
        Support.SUPPORTED,
        "gate PriorityBasedScheduling (on from v1.19): the value of the repository's PriorityClass of that "
        "name orders the run's scheduling and is recorded as the binding's `schedulePriority.priority`; "
        "a PriorityClass the repository lacks is an error and the template is not propagated "
        "(docs/architecture.md, the scheduling order)",
    ),
    "PropagationPolicy.spec.failover": _FAILOVER,
    # OverridePolicy / ClusterOverridePolicy
    "OverridePolicy.spec.targetCluster": Rule(
        Support.SUPPORTED, "deprecated in Karmada (use `overrideRules`); applied as Karmada still does"
    ),
    "OverridePolicy.spec.overriders": Rule(
        Support.SUPPORTED, "deprecated in Karmada (use `overrideRules`); applied as Karmada still does"
    ),
    # FederatedResourceQuota
    "FederatedResourceQuota.status": Rule(
        Support.NOT_APPLICABLE,
        "written by Karmada's controllers; the tool computes usage from the templates it places "
        "(docs/quota.md) and ignores a committed status",
    ),
    # ResourceInterpreterCustomization
    "ResourceInterpreterCustomization.spec.customizations.statusReflection": Rule(
        Support.SUPPORTED, "runs on the objects member clusters report (`collect`, docs/status.md)"
    ),
    "ResourceInterpreterCustomization.spec.customizations.statusAggregation": Rule(
        Support.SUPPORTED,
        "folds the reported statuses into the binding record's `status.templateStatus` (the templates in "
        "Git are the user's, so nothing is written back into them; docs/failover.md)",
    ),
    "ResourceInterpreterCustomization.spec.customizations.healthInterpretation": Rule(
        Support.SUPPORTED, "runs on the objects member clusters report (`collect`, docs/status.md)"
    ),
    "ResourceInterpreterCustomization.spec.customizations.retention": Rule(
        Support.INTERPRET_ONLY, "retention merges the member cluster's live object, which is never read here"
    ),
    # Cluster (the inventory)
    "Cluster.spec.id": Rule(Support.NO_EFFECT, "Karmada's scheduler does not read it either"),
    "Cluster.spec.syncMode": Rule(
        Support.NOT_APPLICABLE, "every cluster pulls its folder from Git, which is Karmada's Pull mode"
    ),
    "Cluster.spec.apiEndpoint": _CONNECTION,
    "Cluster.spec.secretRef": _CONNECTION,
    "Cluster.spec.impersonatorSecretRef": _CONNECTION,
    "Cluster.spec.insecureSkipTLSVerification": _CONNECTION,
    "Cluster.spec.proxyURL": _CONNECTION,
    "Cluster.spec.proxyHeader": _CONNECTION,
    "Cluster.spec.zone": Rule(
        Support.SUPPORTED, "deprecated in Karmada; used when `zones` is empty, as Karmada does"
    ),
    "Cluster.spec.taints.timeAdded": Rule(
        Support.SUPPORTED,
        "the taint manager's tolerationSeconds clock (feature gate Failover); Karmada's webhook always sets "
        "it, so a NoExecute taint written without it is tolerated for as long as a toleration allows from "
        "each run's time, that is, never runs out: write it",
    ),
    "Cluster.spec.resourceModels.ranges.max": Rule(
        Support.NO_EFFECT, "Karmada's estimator reads each grade's `min` only"
    ),
    "Cluster.status.kubernetesVersion": Rule(
        Support.NO_EFFECT, "Karmada's scheduler does not read it either"
    ),
    "Cluster.status.conditions": Rule(
        Support.SUPPORTED,
        "`Ready` False/Unknown implies Karmada's not-ready/unreachable NoSchedule taints; other types "
        "have no effect, as in Karmada's scheduler",
    ),
    "Cluster.status.nodeSummary": Rule(Support.NO_EFFECT, "Karmada's scheduler does not read it either"),
    "Cluster.status.remedyActions": Rule(
        Support.NO_EFFECT, "read by Karmada's traffic controllers, not by its scheduler"
    ),
}

SINCE: dict[str, KarmadaVersion] = {
    "PropagationPolicy.spec.placement.workloadAffinity": KarmadaVersion.V1_17,
    "PropagationPolicy.spec.placement.clusterAffinities.overflowAffinities": KarmadaVersion.V1_18,
}
"""Fields newer than v1.16, the oldest version followed (a field and everything under it): a repository that
follows an older version is refused them, as that version's API server would refuse an unknown field."""

CHANGED: dict[str, str] = {
    "PropagationPolicy.spec.resourceSelectors.namespace": "PropagationPolicy: from v1.17 it must be the "
    "policy's own namespace (an error); before, another namespace was accepted and selected nothing",
    "PropagationPolicy.spec.placement.clusterAffinity.fieldSelector": "`zone In`: from v1.18 a cluster in "
    "several zones matches when any of them is listed, before only when all are (the same in every "
    "affinity, override rule, static weight, overflow tier and ClusterTaintPolicy)",
    "PropagationPolicy.spec.placement.clusterTolerations.operator": "`Lt`/`Gt`: an error from v1.18; "
    "accepted before, and never tolerating anything",
    "PropagationPolicy.spec.failover.application.purgeMode": "`Immediately`/`Graciously` are read as "
    "`Directly`/`Gracefully` with a warning (v1.19 removed them)",
    "PropagationPolicy.spec.failover.cluster.purgeMode": "`Immediately`/`Graciously` are read as "
    "`Directly`/`Gracefully` with a warning (v1.19 removed them)",
    "OverridePolicy.spec.resourceSelectors.namespace": "OverridePolicy: from v1.17 it must be the policy's "
    "own namespace (an error); before, another namespace was accepted and selected nothing",
    "OverridePolicy.spec.overrideRules.overriders.fieldOverrider": "from v1.18 `json` or `yaml` is "
    "required (an error); before, neither writes the empty string into `fieldPath`",
}
"""Rules that differ between the versions followed (spec karmada-1.17-1.19.md), added to the field's note."""

SECTIONS: tuple[Section, ...] = (
    Section(
        "ObjectMeta (every kind's `metadata`)",
        ObjectMeta,
        "metadata",
        "`namespace`: a PropagationPolicy, OverridePolicy or FederatedResourceQuota without one is in "
        "`default`, where `kubectl apply` would put it; on the cluster-scoped kinds it is ignored with a "
        "warning, as the API server drops it.",
    ),
    Section(
        "PropagationPolicy and ClusterPropagationPolicy",
        PropagationPolicy,
        "PropagationPolicy",
        "ClusterPropagationPolicy (`policy.karmada.io/v1alpha1`) has the same fields; its resource selectors "
        "may name a namespace, and it may select cluster-scoped templates.",
    ),
    Section(
        "OverridePolicy and ClusterOverridePolicy",
        OverridePolicy,
        "OverridePolicy",
        "ClusterOverridePolicy has the same fields; its resource selectors may name a namespace.",
    ),
    Section(
        "FederatedResourceQuota",
        FederatedResourceQuota,
        "FederatedResourceQuota",
        "Enforcement and the rendered ResourceQuotas are described in docs/quota.md.",
    ),
    Section(
        "ResourceInterpreterCustomization",
        ResourceInterpreterCustomization,
        "ResourceInterpreterCustomization",
        "Scripts run in a sandboxed Lua 5.1 worker with Karmada's library subset and time limits "
        "(docs/security.md).",
    ),
    Section(
        "ClusterTaintPolicy",
        ClusterTaintPolicy,
        "ClusterTaintPolicy",
        "`policy.karmada.io/v1alpha1`; applied to the conditions member clusters report (docs/failover.md). "
        "Git has no creation times, so policies apply in name order; the taints they add are kept in "
        "`karmada-state/cluster-taints.yaml`.",
    ),
    Section(
        "Cluster (the inventory)",
        Cluster,
        "Cluster",
        "`cluster.karmada.io/v1alpha1`; one object per member cluster, each with a folder under `clusters/`.",
    ),
)

UNSUPPORTED_KINDS: dict[str, str] = {
    "WorkloadRebalancer": "ignored with a warning: it is a one-shot request, not desired state; "
    "`gitops-karmada reschedule` does its job (a Fresh division of the named workloads) in one commit",
    "ResourceInterpreterWebhookConfiguration": "ignored with a warning: no webhooks are called "
    "(a GitOps run must not depend on a live endpoint); use a ResourceInterpreterCustomization",
    "ResourceBinding, ClusterResourceBinding": "refused as input: they are this tool's output, kept under "
    "`karmada-state/bindings/`",
    "any other `*.karmada.io` kind": "ignored with a warning (or an error with a did-you-mean for a known "
    "kind under a wrong apiVersion)",
}


def rule_for(path: str) -> Rule | None:
    """The longest rule that covers ``path`` (the path itself or one of its ancestors)."""
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        rule = RULES.get(".".join(parts[:end]))
        if rule is not None:
            return rule
    return None


def field_rows(section: Section) -> list[FieldRow]:
    """Every field ``section.model`` accepts, depth first in declaration order, with its support."""
    rows: list[FieldRow] = []
    _walk(section.model, section.kind_path, "", rows, {section.model})
    return rows


def _walk(model: type[BaseModel], prefix: str, shown: str, rows: list[FieldRow], seen: set[type]) -> None:
    for name, info in model.model_fields.items():
        alias = info.alias or name
        rule_path = f"{prefix}.{alias}"
        shown_path = f"{shown}.{alias}" if shown else alias
        if alias == "metadata" and prefix != "metadata":
            rows.append(FieldRow(shown_path, Support.SUPPORTED, "see ObjectMeta"))
            continue
        rule = rule_for(rule_path)
        children = [m for m in _models_in(info.annotation) if m not in seen]
        rows.append(
            FieldRow(
                shown_path,
                rule.support if rule else Support.SUPPORTED,
                _note(rule, rule_path),
                since_for(rule_path),
            )
        )
        for child in children:
            _walk(child, rule_path, shown_path, rows, seen | {child})


def _note(rule: Rule | None, path: str) -> str:
    # a rule's note is shown where the rule is written, not repeated on every field under it
    notes = [rule.note] if rule is not None and path in RULES else []
    if path in CHANGED:
        notes.append(CHANGED[path])
    return "; ".join(notes)


def since_for(path: str) -> KarmadaVersion:
    """The first version followed that has the field at ``path`` (its own entry or an ancestor's)."""
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        found = SINCE.get(".".join(parts[:end]))
        if found is not None:
            return found
    return KarmadaVersion.V1_16


def _since(version: KarmadaVersion) -> str:
    return "all" if version is KarmadaVersion.V1_16 else f"{version.value}+"


def _models_in(annotation: object) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for argument in typing.get_args(annotation):
        found.extend(_models_in(argument))
    return found


def render_markdown() -> str:
    """docs/compatibility.md."""
    out = [
        "# Karmada API compatibility, field by field",
        "",
        "Generated from the models by `gitops_karmada/model/compatibility.py`; "
        "`pytest tests/model/test_compatibility.py --update-golden` rewrites it. Every field Karmada's API "
        "has for these kinds is listed; a field that is not listed (a typo, a field from another version) is "
        "**rejected** with an error naming the file, the document and the field, as Karmada's API server "
        "rejects unknown fields. The Karmada column says which of the versions a repository can follow "
        "(`karmadaVersion` in gitops-karmada.yaml: v1.16 to v1.19, the newest by default) have the field: "
        "a repository following an older one is refused it, as that version would refuse it. Legend:",
        "",
    ]
    out += [f"- **{s.value}**: {_LEGEND[s]}" for s in Support]
    out += ["", "## Kinds without a model", "", "| kind | what happens |", "|---|---|"]
    out += [f"| {kind} | {what} |" for kind, what in UNSUPPORTED_KINDS.items()]
    for section in SECTIONS:
        out += [
            "",
            f"## {section.title}",
            "",
            section.intro,
            "",
            "| field | Karmada | support | note |",
            "|---|---|---|---|",
        ]
        out += [
            f"| `{row.path}` | {_since(row.since)} | {row.support.value} | {row.note} |"
            for row in field_rows(section)
        ]
    return "\n".join(out) + "\n"


_LEGEND: dict[Support, str] = {
    Support.SUPPORTED: "has the effect Karmada gives it (deviations are listed in the README's table)",
    Support.NO_EFFECT: "valid and kept, but Karmada's placement result does not depend on it either",
    Support.NOT_APPLICABLE: "set by an API server, or about reaching a cluster: nothing to apply it to here",
    Support.RECORDED: "validated and copied into the binding record; what it configures is not built yet",
    Support.IGNORED_WITH_WARNING: "validated; `validate` and `reconcile` warn that it has no effect yet",
    Support.INTERPRET_ONLY: "runs under `gitops-karmada interpret`; reconcile has no observed status to "
    "feed it",
}
