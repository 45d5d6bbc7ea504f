"""Loading tests/vectors/interpreters.yaml and comparing answers with the file's COMPARISON RULES."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from gitops_karmada.model.quantity import Quantity

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.model.bindings import Component, ReplicaRequirements

VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "interpreters.yaml"


@cache
def load_cases() -> tuple[dict[str, Any], ...]:
    document = yaml.safe_load(VECTORS.read_text(encoding="utf-8"))
    return tuple(document["cases"])


def _without_empty(mapping: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if v not in (None, "", {}, [])}


def normalized_requirements(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """Absent, null and {} are equivalent; quantities compare numerically (Quantity equality)."""
    raw = raw or {}
    out: dict[str, Any] = {}
    request = raw.get("resourceRequest") or {}
    if request:
        out["resourceRequest"] = {name: Quantity.parse(value) for name, value in request.items()}
    claim = _without_empty(raw.get("nodeClaim") or {})
    if claim:
        out["nodeClaim"] = claim
    for key in ("priorityClassName", "namespace"):
        if raw.get(key):
            out[key] = raw[key]
    return out


def requirements_of(requirements: ReplicaRequirements | None) -> dict[str, Any]:
    return normalized_requirements(None if requirements is None else requirements.to_api())


def normalized_components(raw: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Sorted by name (MPIJob's order is Lua's pairs() order upstream)."""
    return sorted(
        (
            {
                "name": item["name"],
                "replicas": item["replicas"],
                "requirements": normalized_requirements(item.get("replicaRequirements")),
            }
            for item in raw
        ),
        key=lambda c: str(c["name"]),
    )


def components_of(components: tuple[Component, ...]) -> list[dict[str, Any]]:
    return normalized_components([c.to_api() for c in components])


def status_with_zero_defaults(status: Mapping[str, Any] | None) -> dict[str, Any]:
    """Inside an aggregated status an absent integer equals 0."""
    return {k: v for k, v in (status or {}).items() if v != 0}


def hint_fragment(hint: str) -> str:
    """The part of an ``error_hint`` a message must contain: the parenthesised cause if there is one."""
    if "(" in hint and hint.endswith(")"):
        return hint[hint.rindex("(") + 1 : -1]
    return hint
