"""Whether what a member cluster reported is the manifest the rollout wrote: every field the manifest sets
(outside metadata and status), and its labels and annotations, have the same value in the observed object.

The API server adds defaults and writes quantities canonically (``0.5`` → ``500m``), so the manifest is a
subset of what is observed, and quantities compare by value. Argo CD and Flux judge "in sync" the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gitops_karmada.model.quantity import QuantityError, parse_quantity

_SKIPPED = frozenset({"apiVersion", "kind", "metadata", "status", "stringData"})
"""``stringData`` is written into ``data`` by the API server: not comparable as written."""


def is_synced(manifest: Mapping[str, Any], observed: Mapping[str, Any]) -> bool:
    for key, value in manifest.items():
        if key in _SKIPPED:
            continue
        if key not in observed or not _within(value, observed[key]):
            return False
    wanted_meta = manifest.get("metadata") or {}
    seen_meta = observed.get("metadata") or {}
    for part in ("labels", "annotations"):
        if not _within(wanted_meta.get(part) or {}, seen_meta.get(part) or {}):
            return False
    return True


def _within(wanted: Any, seen: Any) -> bool:
    if isinstance(wanted, Mapping):
        return isinstance(seen, Mapping) and all(k in seen and _within(v, seen[k]) for k, v in wanted.items())
    if isinstance(wanted, list):
        return (
            isinstance(seen, list)
            and len(wanted) == len(seen)
            and all(_within(w, s) for w, s in zip(wanted, seen, strict=True))
        )
    if wanted == seen:
        return True
    if isinstance(wanted, (str, int, float)) and isinstance(seen, (str, int, float)):
        try:
            return parse_quantity(wanted).value == parse_quantity(seen).value
        except (QuantityError, ValueError, TypeError):
            return False
    return False
