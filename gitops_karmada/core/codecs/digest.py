"""Stable digests of JSON-like values: what the incremental engine and the template hash compare."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from collections.abc import Mapping


def digest(value: Any) -> str:
    """A stable sha256 of JSON-like data (sorted keys; values orjson cannot encode go through ``repr``)."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # integers beyond 64 bits
        data = repr(value).encode()
    return hashlib.sha256(data).hexdigest()


def template_hash(body: Mapping[str, Any]) -> str:
    """A stable digest of a template's content (to tell a template change from a policy change)."""
    try:
        canonical = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # integers beyond 64 bits, non-string keys
        canonical = repr(sorted(body.items(), key=str)).encode()
    return hashlib.sha256(canonical).hexdigest()[:16]
