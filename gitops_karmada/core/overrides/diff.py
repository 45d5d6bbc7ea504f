"""Structural difference of two decoded JSON values, as JSON-pointer addressed changes.

Maps are compared per key, lists of equal length per index (a list that grew or shrank is one change),
scalars by type and value (``1``, ``1.0`` and ``true`` differ). Order: the old value's keys first, then
keys only the new value has, each in its own order. Pure.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gitops_karmada.core.overrides.pointer import escape_token, unescape_token
from gitops_karmada.core.overrides.provenance import ChangeOperation

__all__ = ["ValueChange", "changes_made", "diff_values", "pointer_roots", "same_value"]


@dataclass(frozen=True, slots=True)
class ValueChange:
    path: str
    operation: ChangeOperation
    old: Any
    new: Any


def same_value(a: Any, b: Any) -> bool:
    """Equality that keeps JSON types apart (Python's ``1 == 1.0 == True`` does not)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same_value(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _diff(old: Any, new: Any, path: str, out: list[ValueChange]) -> None:
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key, value in old.items():
            child = f"{path}/{escape_token(key)}"
            if key not in new:
                out.append(ValueChange(child, ChangeOperation.REMOVE, copy.deepcopy(value), None))
            else:
                _diff(value, new[key], child, out)
        for key, value in new.items():
            if key not in old:
                out.append(
                    ValueChange(
                        f"{path}/{escape_token(key)}", ChangeOperation.ADD, None, copy.deepcopy(value)
                    )
                )
        return
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (old_item, new_item) in enumerate(zip(old, new, strict=True)):
            _diff(old_item, new_item, f"{path}/{index}", out)
        return
    if not same_value(old, new):
        out.append(ValueChange(path, ChangeOperation.REPLACE, copy.deepcopy(old), copy.deepcopy(new)))


def diff_values(old: Any, new: Any) -> tuple[ValueChange, ...]:
    """What changed from ``old`` to ``new`` (empty when they are the same)."""
    changes: list[ValueChange] = []
    _diff(old, new, "", changes)
    return tuple(changes)


def pointer_roots(pointers: Iterable[str]) -> frozenset[str] | None:
    """The top-level keys the JSON pointers fall under; None when one addresses the whole document."""
    roots = set()
    for pointer in pointers:
        if not pointer.startswith("/"):
            return None
        roots.add(unescape_token(pointer[1:].partition("/")[0]))
    return frozenset(roots)


def changes_made(
    obj: dict[str, Any], mutate: Callable[[], None], roots: frozenset[str] | None = None
) -> tuple[ValueChange, ...]:
    """What ``mutate`` changes in ``obj`` (in place). ``roots``: the only top-level keys it can touch (a
    JSON patch touches the keys its paths start with): only those are copied and compared, which gives the
    same changes in the same order, as the rest would compare equal, at a fraction of the cost of copying a
    whole manifest for every overrider entry."""
    if roots is None:
        before: Any = copy.deepcopy(obj)
        mutate()
        return diff_values(before, obj)
    before = {key: copy.deepcopy(value) for key, value in obj.items() if key in roots}
    mutate()
    return diff_values(before, {key: value for key, value in obj.items() if key in roots})
