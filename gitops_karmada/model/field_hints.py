"""A misspelt field's likely meaning: the field names known where an unknown one was found, the closest."""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel


def known_fields(model: type[BaseModel], location: Sequence[int | str]) -> tuple[str, ...]:
    """The JSON names the model accepts at ``location`` (a pydantic error location, its last part the unknown
    key): the fields of the model the location's parent leads to; none when the walk leaves the models."""
    current: Any = model
    for part in location[:-1]:
        current = _item_type(current) if isinstance(part, int) else _field_type(current, part)
        if current is None:
            return ()
    if not (isinstance(current, type) and issubclass(current, BaseModel)):
        return ()
    return tuple(_json_name(name, info.alias) for name, info in current.model_fields.items())


def did_you_mean(model: type[BaseModel], location: Sequence[int | str]) -> str:
    """`` (did you mean X?)`` when one known field is close to the unknown one, else ``""``."""
    if not location or not isinstance(location[-1], str):
        return ""
    close = difflib.get_close_matches(location[-1], known_fields(model, location), n=1, cutoff=0.75)
    return f" (did you mean {close[0]}?)" if close else ""


def _json_name(name: str, alias: str | None) -> str:
    return alias or name


def _field_type(model: Any, key: str) -> Any:
    """The (unwrapped) type of ``model``'s field whose JSON name or Python name is ``key``."""
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return None
    for name, info in model.model_fields.items():
        if key in (name, info.alias):
            return _unwrap(info.annotation)
    return None


def _item_type(container: Any) -> Any:
    """The element type of a sequence type, or the value type of a mapping."""
    args = typing.get_args(container)
    origin = typing.get_origin(container)
    if origin is not None and isinstance(origin, type) and issubclass(origin, Mapping) and len(args) == 2:
        return _unwrap(args[1])
    return _unwrap(args[0]) if args else None


def _unwrap(annotation: Any) -> Any:
    """``X | None``, ``Annotated[X, ...]`` and ``tuple[X, ...]``/``list[X]``'s container kept, reduced to X
    where a single model is meant."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation
