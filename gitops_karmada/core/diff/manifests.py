"""Rendered manifests compared file by file: one unified diff per changed object, Secrets masked.

Before diffing, the head object is aligned to the base object: mapping keys follow the base order and
list items that all carry a unique ``name`` (containers, env, ports, volumes) are matched by name, so a
reorder reads as "order changed" instead of a rewrite. Pure: bytes in, ``ObjectDiff`` values out.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.codecs.serialize import dump_yaml
from gitops_karmada.core.codecs.yaml_input import load_yaml_documents
from gitops_karmada.core.diff.fields import field_changes
from gitops_karmada.core.diff.model import ChangeKind, ObjectDiff, SecretKeys
from gitops_karmada.core.diff.secrets import is_secret, mask_secret_pair
from gitops_karmada.model.errors import InputError

if TYPE_CHECKING:
    from gitops_karmada.core.layout import RepoLayout
    from gitops_karmada.model.keys import ObjectKey

CONTEXT_LINES = 3
_START = object()
SECRET_FOLDER = "secret"
"""The kind folder of core Secrets: a file there that does not parse is never shown as text."""


ManifestRef = tuple[str, str]
"""A rendered manifest: (cluster, path inside the cluster folder such as ``shop/service/cart.yaml``).

A plain tuple, not a dataclass: a fleet has hundreds of thousands of them, hashed and sorted.
"""


def cluster_manifests(tree: Mapping[str, bytes], layout: RepoLayout) -> dict[ManifestRef, bytes]:
    """The rendered manifests of a managed tree, by cluster and object path."""
    prefix = layout.output_prefix
    found: dict[ManifestRef, bytes] = {}
    for path, content in tree.items():
        if path.startswith(prefix):
            cluster, _, rest = path[len(prefix) :].partition("/")
            if cluster and rest:
                found[(cluster, rest)] = content
    return found


def count_by_cluster(manifests: Mapping[ManifestRef, bytes]) -> Counter[str]:
    return Counter(cluster for cluster, _ in manifests)


def compare_manifests(
    base: Mapping[ManifestRef, bytes],
    head: Mapping[ManifestRef, bytes],
    layout: RepoLayout,
    keys: Mapping[str, ObjectKey],
) -> tuple[ObjectDiff, ...]:
    """Every manifest added, removed or changed, by cluster then path.

    ``keys`` maps object paths to the template keys of the binding records (for titles).
    """
    diffs: list[ObjectDiff] = []
    # compare everything, sort only what differs (most of a large fleet is unchanged)
    changed = [ref for ref in base.keys() | head.keys() if base.get(ref) != head.get(ref)]
    for cluster, path in sorted(changed):
        before, after = base.get((cluster, path)), head.get((cluster, path))
        key = keys.get(path)
        change = (
            ChangeKind.ADDED
            if before is None
            else ChangeKind.REMOVED
            if after is None
            else ChangeKind.MODIFIED
        )
        text, secret_keys, note, fields = _compare_object(path, before, after)
        diffs.append(
            ObjectDiff(
                cluster=cluster,
                path=f"{layout.cluster_folder(cluster)}/{path}",
                title=str(key) if key is not None else path,
                template=str(key) if key is not None else None,
                change=change,
                diff=text,
                secret_keys=secret_keys,
                note=note,
                fields=fields,
            )
        )
    return tuple(diffs)


def diff_object(path: str, before: bytes | None, after: bytes | None) -> tuple[str, SecretKeys | None, str]:
    """(unified diff lines, Secret key changes, note) of one manifest; values of Secrets never appear."""
    text, secret_keys, note, _ = _compare_object(path, before, after)
    return text, secret_keys, note


def _compare_object(
    path: str, before: bytes | None, after: bytes | None
) -> tuple[str, SecretKeys | None, str, tuple[str, ...]]:
    """``diff_object``'s answer plus the changed fields (none for a Secret: its key summary says it)."""
    old, new = _parse(before), _parse(after)
    unreadable = (before is not None and old is None) or (after is not None and new is None)
    if unreadable:
        if path.split("/")[1:2] == [SECRET_FOLDER] or is_secret(old) or is_secret(new):
            return "", None, "the Secret does not parse as YAML; its content is not shown", ()
        return _unified(_text(before), _text(after)), None, "", ()
    secret_keys: SecretKeys | None = None
    transformed = False
    if is_secret(old) or is_secret(new):
        old, new, secret_keys = mask_secret_pair(old, new)
        transformed = True
    reordered = False
    if old is not None and new is not None:
        new, reordered = align(new, old)
        transformed = transformed or reordered
    if transformed:
        old_text = dump_yaml(old) if old is not None else ""
        new_text = dump_yaml(new) if new is not None else ""
    else:
        old_text, new_text = _text(before), _text(after)
    text = _unified(old_text, new_text)
    note = ""
    if reordered:
        note = (
            "only the order of keys or named list items changed"
            if not text
            else "items were reordered too (matched by name, shown in the base order)"
        )
    fields = field_changes(old, new) if secret_keys is None and text else ()
    return text, secret_keys, note, fields


def align(after: Any, before: Any) -> tuple[Any, bool]:
    """``after`` with its shared keys and named items in ``before``'s order, and whether they moved.

    What only ``after`` has stays next to the shared entry it follows, so an insertion is not a reorder.
    """
    if isinstance(after, Mapping) and isinstance(before, Mapping):
        order, reordered = _merged_order(list(after), list(before))
        aligned: dict[str, Any] = {}
        for key in order:
            if key in before:
                aligned[key], moved = align(after[key], before[key])
                reordered = reordered or moved
            else:
                aligned[key] = after[key]
        return aligned, reordered
    if isinstance(after, list) and isinstance(before, list):
        return _align_list(after, before)
    return after, False


def _merged_order(after: list[Any], before: list[Any]) -> tuple[list[Any], bool]:
    """``after``'s entries, shared ones in ``before``'s order, each new one after the entry it follows."""
    position = {entry: index for index, entry in enumerate(before)}
    shared = [entry for entry in after if entry in position]
    in_base_order = sorted(shared, key=position.__getitem__)
    if shared == in_base_order:
        return after, False
    following: dict[Any, list[Any]] = {}
    anchor: Any = _START
    for entry in after:
        if entry in position:
            anchor = entry
        else:
            following.setdefault(anchor, []).append(entry)
    order = list(following.get(_START, []))
    for entry in in_base_order:
        order.append(entry)
        order.extend(following.get(entry, []))
    return order, True


def _align_list(after: list[Any], before: list[Any]) -> tuple[list[Any], bool]:
    after_names, before_names = _item_names(after), _item_names(before)
    if after_names is None or before_names is None:
        # no names to match by: items are compared position by position
        items: list[Any] = []
        reordered = False
        for index, item in enumerate(after):
            if index < len(before):
                item, moved = align(item, before[index])
                reordered = reordered or moved
            items.append(item)
        return items, reordered
    by_name = dict(zip(after_names, after, strict=True))
    before_by_name = dict(zip(before_names, before, strict=True))
    order, reordered = _merged_order(after_names, before_names)
    aligned: list[Any] = []
    for name in order:
        if name in before_by_name:
            item, moved = align(by_name[name], before_by_name[name])
            reordered = reordered or moved
            aligned.append(item)
        else:
            aligned.append(by_name[name])
    return aligned, reordered


def _item_names(items: list[Any]) -> list[str] | None:
    """The items' ``name`` values when every item is a mapping with a unique string name."""
    names = [item.get("name") if isinstance(item, Mapping) else None for item in items]
    if not names or not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        return None
    return [str(n) for n in names]


def _parse(content: bytes | None) -> Any:
    if content is None:
        return None
    try:
        documents = load_yaml_documents(content)
    except InputError:
        return None
    if len(documents) != 1 or not isinstance(documents[0].body, Mapping):
        return None
    return documents[0].body


def _text(content: bytes | None) -> str:
    return content.decode("utf-8", "replace") if content is not None else ""


def _unified(old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), fromfile="base", tofile="head", n=CONTEXT_LINES, lineterm=""
    )
    body = [line for index, line in enumerate(lines) if index >= 2]  # drop the ---/+++ file headers
    return "\n".join(body) + "\n" if body else ""
