"""The binding record's vocabulary: its annotations and conditions, the permanent id of a template's binding,
and what a record says (the clusters whose folders hold its manifest, and why the others do not).

A record says only what is known: ``gitops-karmada.io/rendered-clusters`` names the folders the tool wrote
(writing a file into a cluster folder is not applying it to the cluster); records written before that
annotation kept ownership in ``aggregatedStatus[].applied`` and are still read that way. The record is
built by the run's record phase (``reconcile.record``).
"""

from __future__ import annotations

import functools
import json
import sys
import uuid
from typing import TYPE_CHECKING

from gitops_karmada.model.clusters import Condition

if TYPE_CHECKING:
    from gitops_karmada.model.bindings import (
        ResourceBinding,
        TargetCluster,
    )
    from gitops_karmada.model.manifest import Manifest

_BINDING_ID_NAMESPACE = uuid.UUID("1d0b5b46-8f55-4d2e-bb2a-7f0fd8a1c3e4")
SOURCE_ANNOTATION = "gitops-karmada.io/source"
"""Where the template lives in the repository (``path[document]``)."""
FINGERPRINT_ANNOTATION = "gitops-karmada.io/inputs-fingerprint"
"""The fingerprint of the inputs the binding was computed from (``core.incremental.fingerprint``)."""
TEMPLATE_HASH_ANNOTATION = "gitops-karmada.io/template-hash"
"""Digest of the template content this binding was built from (Lazy activation needs it)."""

RENDERED_CLUSTERS_ANNOTATION = "gitops-karmada.io/rendered-clusters"
"""Comma-separated clusters whose folder holds the manifest this binding's run wrote (ownership)."""
RENDER_NOTES_ANNOTATION = "gitops-karmada.io/render-notes"
"""JSON object: cluster → why its folder did not get the manifest, or was left as it was."""

UNHEALTHY_SINCE_ANNOTATION = "gitops-karmada.io/unhealthy-since"
"""JSON object: cluster → when the workload was first seen unhealthy there (application failover memory)."""

SCHEDULED = "Scheduled"
RENDERED = "Rendered"
SCHEDULE_SUCCESS_MESSAGE = "Binding has been scheduled successfully."


def binding_permanent_id(template: Manifest) -> str:
    key = template.key
    return _binding_id(f"{key.group}/{key.kind}/{key.namespace}/{key.name}")


@functools.lru_cache(maxsize=65536)
def _binding_id(identity: str) -> str:
    return str(uuid.uuid5(_BINDING_ID_NAMESPACE, identity))


def same_clusters(one: tuple[TargetCluster, ...], other: tuple[TargetCluster, ...]) -> bool:
    """Whether two scheduling results are the same, whatever their order."""
    return sorted(one, key=lambda c: c.name) == sorted(other, key=lambda c: c.name)


def applied_clusters(binding: ResourceBinding) -> tuple[str, ...]:
    """Clusters whose folder holds the manifest this binding's run wrote."""
    recorded = binding.metadata.annotations.get(RENDERED_CLUSTERS_ANNOTATION)
    if recorded is not None:
        # one string per cluster name, not one per template and cluster: a run holds these for every template
        # (4 million at fleet XL)
        return tuple(sys.intern(name) for name in recorded.split(",") if name)
    # records written before the annotation kept ownership in aggregatedStatus[].applied
    return tuple(item.cluster_name for item in binding.status.aggregated_status if item.applied)


def render_notes(binding: ResourceBinding) -> dict[str, str]:
    """Cluster → why its folder did not get the manifest, or was left as it was."""
    recorded = binding.metadata.annotations.get(RENDER_NOTES_ANNOTATION)
    if recorded is not None:
        try:
            notes = json.loads(recorded)
        except ValueError:
            return {}
        return {str(k): str(v) for k, v in notes.items()} if isinstance(notes, dict) else {}
    if RENDERED_CLUSTERS_ANNOTATION in binding.metadata.annotations:
        return {}  # no notes; aggregatedStatus is what the clusters reported, not why a folder was skipped
    # records written before the annotations kept the notes in aggregatedStatus[].appliedMessage
    return {i.cluster_name: i.applied_message for i in binding.status.aggregated_status if i.applied_message}


def carry_condition(new: Condition, previous: ResourceBinding | None, now: str) -> Condition:
    """``new`` with the previous lastTransitionTime when the status did not change, else ``now``."""
    old = previous.condition(new.type) if previous is not None else None
    if old is not None and old.status == new.status and old.last_transition_time:
        return new.model_copy(update={"last_transition_time": old.last_transition_time})
    return new.model_copy(update={"last_transition_time": now})


def scheduled_condition(success: bool, reason: str, message: str) -> Condition:
    return Condition(type=SCHEDULED, status="True" if success else "False", reason=reason, message=message)


def rendered_condition(rendered: dict[str, tuple[bool, str]]) -> Condition:
    """``Rendered``: True when every target folder holds the manifest; else which did not, and why."""
    missing = {name: message for name, (ok, message) in sorted(rendered.items()) if not ok}
    notes = {name: message for name, (ok, message) in sorted(rendered.items()) if ok and message}
    if not missing:
        message = "Manifests are written in every target cluster's folder"
        if notes:
            message += "; " + "; ".join(f"{name}: {note}" for name, note in notes.items())
        return Condition(type=RENDERED, status="True", reason="RenderSucceed", message=message)
    return Condition(
        type=RENDERED,
        status="False",
        reason="RenderFailed",
        message="; ".join(f"{name}: {why}" for name, why in missing.items()),
    )
