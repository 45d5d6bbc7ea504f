"""Small builders for interpreter tests: customizations and objects."""

from __future__ import annotations

from typing import Any

from gitops_karmada.model.interpretation import ResourceInterpreterCustomization

WIDGET_API_VERSION = "example.io/v1"
WIDGET_KIND = "Widget"


def customization(
    name: str, *, api_version: str = WIDGET_API_VERSION, kind: str = WIDGET_KIND, **scripts: str
) -> ResourceInterpreterCustomization:
    """A customization with one Lua script per rule, e.g. ``healthInterpretation="function ..."``."""
    return ResourceInterpreterCustomization.model_validate(
        {
            "apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterCustomization",
            "metadata": {"name": name},
            "spec": {
                "target": {"apiVersion": api_version, "kind": kind},
                "customizations": {rule: {"luaScript": script} for rule, script in scripts.items()},
            },
        }
    )


def widget(name: str = "w", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": WIDGET_API_VERSION,
        "kind": WIDGET_KIND,
        "metadata": {"name": name, "namespace": "ns"},
        "spec": spec,
    }


def deployment(replicas: int | None = 2, **pod_spec: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "template": {"spec": {"containers": [{"name": "app", "image": "img"}], **pod_spec}}
    }
    if replicas is not None:
        spec["replicas"] = replicas
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": spec,
    }
