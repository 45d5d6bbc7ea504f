"""sigs.k8s.io/yaml ``YAMLToJSON`` and ``JSONToYAML`` (v1.6, go-yaml v2 underneath), as Karmada calls them.

``yaml_to_json``: go-yaml v2 decodes the first document (YAML 1.1 typing), map keys become strings the way
``convertToJSONableObject`` does it (``1`` → ``"1"``, ``true`` → ``"true"``, ``1.5`` → ``"1.5"``; null or
out-of-int64 keys are errors), then Go's ``json.Marshal`` writes it (keys sorted, NaN/Inf are errors).
``json_to_yaml``: go-yaml v2 reads the JSON text (so a JSON number is a YAML 1.1 plain scalar: ``1.0`` is
the float 1, ``-0`` the int 0) and marshals it back. Pure.
"""

from __future__ import annotations

import json
from typing import Any

from gitops_karmada.core.codecs import gojson
from gitops_karmada.core.codecs.goyaml_decode import GoMap, YamlDecodeError, decode_first_document
from gitops_karmada.core.codecs.goyaml_emit import marshal
from gitops_karmada.core.codecs.yaml11 import resolve

__all__ = ["SigsYamlError", "json_to_yaml", "yaml_to_json"]

_INT64_MAX = 2**63 - 1


class SigsYamlError(ValueError):
    """The text cannot be converted (not YAML/JSON, or a value JSON cannot hold)."""


def _key_string(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int) and key <= _INT64_MAX:
        return str(key)
    if isinstance(key, float):
        return gojson.format_float_g(key)
    type_name = "<nil>" if key is None else "uint64" if isinstance(key, int) else type(key).__name__
    raise SigsYamlError(f"unsupported map key of type: {type_name}, key: {key!r}")


def _jsonable(value: Any) -> Any:
    if isinstance(value, GoMap):
        converted: dict[str, Any] = {}
        for key, item in value.items():
            # distinct Go keys can collide as strings (1 and "1"); Go's map order decides, we keep the last
            converted[_key_string(key)] = _jsonable(item)
        return converted
    if isinstance(value, list):
        return [_jsonable(item) for item in value]
    return value


def yaml_to_json(text: str) -> str:
    try:
        decoded = decode_first_document(text)
        return gojson.encode(_jsonable(decoded))
    except (YamlDecodeError, gojson.GoJsonError) as err:
        raise SigsYamlError(str(err)) from err


def _resolve_number(text: str) -> Any:
    return resolve("", text)[1]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON literal {name}")


def json_to_yaml(text: str) -> str:
    try:
        decoded = json.loads(
            text, parse_int=_resolve_number, parse_float=_resolve_number, parse_constant=_reject_constant
        )
    except (ValueError, RecursionError) as err:
        raise SigsYamlError(f"invalid JSON: {err}") from err
    return marshal(decoded)
