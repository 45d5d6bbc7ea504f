"""pydantic's validation errors as the tool's diagnostics (file, document, field), and the YAML values the
API server would prune before validating (nulls); shared by the configuration and every input's loading."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gitops_karmada.model.diagnostics import Diagnostic, SourceRef, error, field_path
from gitops_karmada.model.field_hints import did_you_mean

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping

    from pydantic import BaseModel, ValidationError

    from gitops_karmada.model.errors import InputError


def doc_index(err: InputError) -> int:
    """The document of a file an ``InputError`` names (0 when it names none)."""
    index = getattr(err, "doc_index", None)
    return index if isinstance(index, int) else 0


def type_name(value: object) -> str:
    return {
        list: "a list",
        dict: "a mapping",
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "a boolean",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def drop_nulls(value: Any) -> Any:
    """``value`` without null mapping entries, at any depth: what the API server does for fields that are not
    nullable (a CRD's structural schema prunes them), so ``overrideRules:`` with no value is no list at all
    and a required field given null is "Required value"."""
    if isinstance(value, dict):
        return {key: drop_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [drop_nulls(item) for item in value]
    return value


_PYDANTIC_MESSAGES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "extra_forbidden": lambda e: "unknown field",
    "missing": lambda e: "Required value",
    "greater_than_equal": lambda e: f"must be >= {e['ctx']['ge']}" if e["ctx"]["ge"] != 1 else "must be > 0",
    "greater_than": lambda e: f"must be > {e['ctx']['gt']}",
    "less_than_equal": lambda e: f"must be <= {e['ctx']['le']}",
    "string_too_short": lambda e: (
        "must not be empty"
        if e["ctx"]["min_length"] == 1
        else f"must be at least {e['ctx']['min_length']} characters"
    ),
    "string_too_long": lambda e: f"must be at most {e['ctx']['max_length']} characters",
    "too_short": lambda e: f"must have at least {e['ctx']['min_length']} item(s)",
    "enum": lambda e: f"must be one of {e['ctx']['expected']}, got {e['input']!r}",
    "literal_error": lambda e: f"must be {e['ctx']['expected']}, got {e['input']!r}",
    "string_type": lambda e: f"must be a string, got {type_name(e['input'])}",
    "int_type": lambda e: f"must be an integer, got {type_name(e['input'])}",
    "int_parsing": lambda e: f"must be an integer, got {e['input']!r}",
    "int_from_float": lambda e: f"must be an integer, got {e['input']!r}",
    "bool_type": lambda e: f"must be a boolean, got {type_name(e['input'])}",
    "bool_parsing": lambda e: f"must be a boolean, got {e['input']!r}",
    "dict_type": lambda e: f"must be a mapping, got {type_name(e['input'])}",
    "model_type": lambda e: f"must be a mapping, got {type_name(e['input'])}",
    "list_type": lambda e: f"must be a list, got {type_name(e['input'])}",
    "tuple_type": lambda e: f"must be a list, got {type_name(e['input'])}",
}


def validation_diagnostics(
    err: ValidationError, source: SourceRef, prefix: str = "", model: type[BaseModel] | None = None
) -> Iterator[Diagnostic]:
    for item in err.errors():
        loc = [part for part in item["loc"] if not (isinstance(part, str) and part.startswith("function-"))]
        render = _PYDANTIC_MESSAGES.get(item["type"])
        message = render(item) if render else str(item["msg"]).removeprefix("Value error, ")
        if item["type"] == "extra_forbidden" and model is not None:
            message += did_you_mean(model, loc)
        yield error(message, source, f"{prefix}{field_path(loc)}".rstrip("."))
