"""Sides of a diff for tests: fleets rendered in memory by the real pipeline, and hand-made bindings."""

from __future__ import annotations

from typing import Any

from gitops_karmada.core.codecs.serialize import dump_yaml_documents
from gitops_karmada.core.diff import DiffSide
from gitops_karmada.model.bindings import ResourceBinding
from gitops_karmada.model.config import ToolConfig
from tests.inprocess import commit, run

NOW = "2026-01-02T03:04:05Z"


def render_side(
    revision: str, files: dict[str, Any], previous: DiffSide | None = None, config: ToolConfig | None = None
) -> DiffSide:
    """``files`` (path → document or list of documents) rendered on top of ``previous``'s managed tree.

    ``previous`` plays the committed state of the branch point: its binding records make scheduling
    sticky exactly as in a repository.
    """
    encoded = {
        path: (content if isinstance(content, bytes) else dump_yaml_documents(_as_list(content)).encode())
        for path, content in files.items()
    }
    tree = dict(previous.tree) if previous is not None else {}
    result = run(encoded | tree, NOW, config=config or ToolConfig())
    return DiffSide(
        revision=revision,
        # the committed tree with the run's changes: reused templates keep their files as they are
        tree=commit(tree, result),
        bindings=result.bindings,
        inputs=result.inputs,
        diagnostics=result.diagnostics,
    )


def _as_list(content: Any) -> list[Any]:
    return content if isinstance(content, list) else [content]


def binding(
    kind: str,
    namespace: str,
    name: str,
    clusters: dict[str, int],
    *,
    api_version: str = "apps/v1",
    replicas: int | None = None,
    policy: str = "",
    scheduled: tuple[str, str, str] | None = None,
) -> ResourceBinding:
    """A binding record: ``policy`` is ``pp/<name>`` or ``cpp/<name>``; ``scheduled`` (status, reason, message)."""
    annotations: dict[str, str] = {}
    if policy.startswith("pp/"):
        annotations = {
            "propagationpolicy.karmada.io/name": policy[3:],
            "propagationpolicy.karmada.io/namespace": namespace,
        }
    elif policy.startswith("cpp/"):
        annotations = {"clusterpropagationpolicy.karmada.io/name": policy[4:]}
    total = sum(clusters.values()) if replicas is None else replicas
    status, reason, message = scheduled or ("True", "Success", "Binding has been scheduled successfully.")
    return ResourceBinding.model_validate(
        {
            "apiVersion": "work.karmada.io/v1alpha2",
            "kind": "ResourceBinding" if namespace else "ClusterResourceBinding",
            "metadata": {
                "name": f"{name}-{kind.lower()}",
                "namespace": namespace,
                "annotations": annotations,
            },
            "spec": {
                "resource": {"apiVersion": api_version, "kind": kind, "namespace": namespace, "name": name},
                "replicas": total,
                "clusters": [{"name": c, "replicas": r} for c, r in clusters.items()],
            },
            "status": {
                "conditions": [{"type": "Scheduled", "status": status, "reason": reason, "message": message}]
            },
        }
    )


def side(revision: str, *bindings: ResourceBinding, tree: dict[str, bytes] | None = None) -> DiffSide:
    return DiffSide(revision=revision, tree=tree or {}, bindings=bindings)
