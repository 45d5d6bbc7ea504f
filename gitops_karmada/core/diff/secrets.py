"""Secret masking for diffs: a v1 Secret's values never reach a report, only which keys changed.

Masks ``data`` and ``stringData`` and the annotations that can carry a copy of them (kubectl's
last-applied configuration, Karmada's applied-overrides records, which hold plaintext overrider values).
Works on copies; never hashes values (a hash of a short secret is as good as the secret).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from gitops_karmada.core.diff.model import SecretKeys
from gitops_karmada.model import wellknown

REDACTED = "<redacted>"
REDACTED_CHANGED = "<redacted, changed>"
VALUE_FIELDS = ("data", "stringData")
VALUE_ANNOTATIONS = (
    wellknown.KUBECTL_LAST_APPLIED_ANNOTATION,
    wellknown.APPLIED_OVERRIDES_ANNOTATION,
    wellknown.APPLIED_CLUSTER_OVERRIDES_ANNOTATION,
)


def is_secret(obj: object) -> bool:
    """A core ``v1`` Secret (other groups' ``Secret`` kinds are ordinary objects)."""
    return isinstance(obj, Mapping) and obj.get("apiVersion") == "v1" and obj.get("kind") == "Secret"


def mask_secret_pair(
    before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
) -> tuple[dict[str, Any] | None, dict[str, Any] | None, SecretKeys]:
    """Both sides with every value replaced, and the keys added, removed or changed.

    A value unchanged on both sides is ``<redacted>`` on both, so it produces no diff line; a changed one is
    ``<redacted: changed>`` on the head side, so the diff shows that key, and only its name.
    """
    masked_before = copy.deepcopy(dict(before)) if before is not None else None
    masked_after = copy.deepcopy(dict(after)) if after is not None else None
    added: list[str] = []
    removed: list[str] = []
    changed: list[str] = []
    for name in VALUE_FIELDS:
        old = before.get(name) if before is not None else None
        new = after.get(name) if after is not None else None
        old_map = old if isinstance(old, Mapping) else {}
        new_map = new if isinstance(new, Mapping) else {}
        if before is not None and after is not None:
            added.extend(f"{name}.{k}" for k in new_map if k not in old_map)
            removed.extend(f"{name}.{k}" for k in old_map if k not in new_map)
            changed.extend(f"{name}.{k}" for k in new_map if k in old_map and new_map[k] != old_map[k])
        elif after is not None:
            added.extend(f"{name}.{k}" for k in new_map)
        else:
            removed.extend(f"{name}.{k}" for k in old_map)
        if masked_before is not None and name in masked_before:
            masked_before[name] = _masked_field(old, None)
        if masked_after is not None and name in masked_after:
            masked_after[name] = _masked_field(new, old if before is not None else None)
    for target, other in ((masked_before, None), (masked_after, before)):
        if target is not None:
            _mask_annotations(target, other)
    keys = SecretKeys(
        added=tuple(sorted(added)), removed=tuple(sorted(removed)), changed=tuple(sorted(changed))
    )
    return masked_before, masked_after, keys


def _masked_field(value: object, previous: object) -> object:
    """The field with each value masked; marked changed where it differs from ``previous``."""
    if not isinstance(value, Mapping):
        # not a mapping (invalid, but possible in a template): mask it whole
        return REDACTED if previous is None or previous == value else REDACTED_CHANGED
    old = previous if isinstance(previous, Mapping) else {}
    return {
        key: REDACTED if key not in old or old[key] == item else REDACTED_CHANGED
        for key, item in value.items()
    }


def _mask_annotations(obj: dict[str, Any], previous: Mapping[str, Any] | None) -> None:
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        return
    annotations = metadata.get("annotations")
    if not isinstance(annotations, dict):
        return
    old_metadata = previous.get("metadata") if previous is not None else None
    old_annotations = old_metadata.get("annotations") if isinstance(old_metadata, Mapping) else None
    old = old_annotations if isinstance(old_annotations, Mapping) else {}
    masked = dict(annotations)
    for key in VALUE_ANNOTATIONS:
        if key in masked:
            same = previous is None or key not in old or old[key] == masked[key]
            masked[key] = REDACTED if same else REDACTED_CHANGED
    metadata["annotations"] = masked
