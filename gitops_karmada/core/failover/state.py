"""Preserved application state on failover: extract it from a member's status, inject it as labels.

Karmada's StatefulFailoverInjection (gate, v1.12+): when a workload fails over, the failover controller
runs the policy's ``statePreservation`` rules (``helper.BuildPreservedLabelState``,
pkg/util/helper/failover.go) over the status collected from the failing cluster and keeps the values in
the GracefulEvictionTask; the binding controller (``injectReservedLabelState``,
pkg/controllers/binding/common.go) then writes them as labels on the copy rendered into the new cluster,
so a stateful application (e.g. a Flink job restarting from its checkpoint) can pick its state up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.codecs.jsonpath import JSONPathError, evaluate_template
from gitops_karmada.model.policies import PurgeMode

if TYPE_CHECKING:
    from gitops_karmada.model.bindings import ResourceBindingSpec
    from gitops_karmada.model.policies import StatePreservationRule

# Immediately is the v1.12-v1.14 name of Directly; v1.15-v1.18 accept both and treat them alike
_INJECTING_PURGE_MODES = frozenset({PurgeMode.DIRECTLY.value, PurgeMode.IMMEDIATELY.value})


class StatePreservationError(ValueError):
    """A statePreservation rule that cannot be evaluated against the status: the whole extraction fails."""


def build_preserved_label_state(
    rules: Sequence[StatePreservationRule], status: Mapping[str, Any]
) -> dict[str, str]:
    """``helper.BuildPreservedLabelState``: aliasLabelName → the rule's JSONPath printed over ``status``.

    ``status`` is the member's status item as collected (``aggregatedStatus[].status``), which is the
    JSONPath root (``{.jobStatus.jobId}``). Missing keys are errors (Karmada uses
    ``AllowMissingKeys(false)``), and one failing rule fails them all: the failover controller then
    retries instead of creating an eviction task without the state.
    """
    labels: dict[str, str] = {}
    for rule in rules:
        try:
            labels[rule.alias_label_name] = evaluate_template(rule.json_path, status)
        except JSONPathError as err:
            raise StatePreservationError(
                f"statePreservation rule {rule.alias_label_name!r} (jsonPath {rule.json_path!r}): {err}"
            ) from err
    return labels


def labels_to_inject(
    spec: ResourceBindingSpec, target_cluster: str, *, target_cluster_count: int, gate_on: bool
) -> dict[str, str]:
    """The preserved labels to set on the workload rendered into ``target_cluster`` ({} = none).

    ``injectReservedLabelState``: only with the StatefulFailoverInjection gate on; only when the binding
    targets a single cluster (``target_cluster_count`` counts spec.clusters merged with the requiredBy
    clusters; Karmada skips when it is above one); only after the *last* graceful eviction task, and
    only when that task purged Directly (or its old name Immediately); never for a cluster that already
    ran the workload before that failover (``clustersBeforeFailover``).
    """
    if not gate_on or target_cluster_count > 1 or not spec.graceful_eviction_tasks:
        return {}
    last = spec.graceful_eviction_tasks[-1]
    if last.purge_mode not in _INJECTING_PURGE_MODES or target_cluster in last.clusters_before_failover:
        return {}
    return dict(last.preserved_label_state)


def inject_labels(manifest: Mapping[str, Any], labels: Mapping[str, str]) -> dict[str, Any]:
    """``manifest`` with ``labels`` merged into metadata.labels, overwriting (Karmada's util.MergeLabel).

    Returns a new dict and leaves ``manifest`` unchanged: the top level, metadata and labels are copied,
    everything else is shared with the input. Nothing to inject returns a plain copy without adding an
    empty ``labels`` map, as Karmada's loop over no labels changes nothing.
    """
    injected = dict(manifest)
    if not labels:
        return injected
    metadata = manifest.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, Mapping) else {}
    current = metadata.get("labels")
    metadata["labels"] = (dict(current) if isinstance(current, Mapping) else {}) | dict(labels)
    injected["metadata"] = metadata
    return injected
