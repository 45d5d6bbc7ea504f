"""Field-level changes between two versions of one object, in kubectl's path notation, with deepdiff.

``spec.template.spec.containers[0].image: nginx:1.27 → nginx:1.28``. Called only for objects already known
to differ (deepdiff walks the whole object), on data whose Secret values are already masked by the caller.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

MAX_FIELDS = 10
"""Beyond this many changed fields an object's list ends with ``… N more``; the unified diff has them all."""
MAX_VALUE_CHARS = 60
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")

_REPORTS = (
    ("values_changed", "changed"),
    ("type_changes", "retyped"),
    ("dictionary_item_added", "added"),
    ("iterable_item_added", "added"),
    ("dictionary_item_removed", "removed"),
    ("iterable_item_removed", "removed"),
)


def field_path(parts: list[str | int]) -> str:
    """``['spec', 'containers', 0, 'image']`` → ``spec.containers[0].image``; odd keys in ``["..."]``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{orjson.dumps(part).decode()}]"
    return out


def _value(value: Any, *, quoted: bool = False) -> str:
    """A short rendering: strings bare, unless ``quoted`` (a type change: ``1 → "1"`` must show)."""
    text = value if isinstance(value, str) and not quoted else orjson.dumps(value, default=str).decode()
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def field_changes(old: Any, new: Any, limit: int = MAX_FIELDS) -> tuple[str, ...]:
    """One line per changed, added or removed field, in path order; empty when ``old == new``."""
    if old == new or old is None or new is None:
        return ()
    from deepdiff import DeepDiff  # 40 ms to import; most runs diff no field

    tree = DeepDiff(old, new, view="tree", threshold_to_diff_deeper=0)
    found: list[tuple[str, str]] = []
    for report, word in _REPORTS:
        for level in tree.get(report, []):
            path = field_path(level.path(output_format="list")) or "(root)"
            if word in ("changed", "retyped"):
                quoted = word == "retyped"
                found.append(
                    (path, f"{path}: {_value(level.t1, quoted=quoted)} → {_value(level.t2, quoted=quoted)}")
                )
            elif word == "added":
                found.append((path, f"{path}: added {_value(level.t2)}"))
            else:
                found.append((path, f"{path}: removed (was {_value(level.t1)})"))
    lines = [line for _, line in sorted(found)]
    if len(lines) > limit:
        return (*lines[:limit], f"… {len(lines) - limit} more")
    return tuple(lines)
