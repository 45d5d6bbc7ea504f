"""Schema checks of rendered manifests: Kubernetes' OpenAPI schema of the target cluster's version, and the
schemas of CustomResourceDefinitions in the repository. Pure (the native schemas come from a source the
adapter supplies: ``NativeSchemas``).

What ``kubectl apply --validate=strict`` rejects is what fails here: a wrong type, a missing required
field, an unknown field (``strict``), a value outside an enum. A kind with no schema (neither native nor a
CRD in the repository) is not checked and is counted as such, never silently passed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import jsonschema
import jsonschema_rs

from gitops_karmada.core.codecs.yaml_input import load_yaml_documents
from gitops_karmada.model.diagnostics import Diagnostic, SourceRef, error
from gitops_karmada.model.errors import InputError
from gitops_karmada.model.keys import group_of

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from referencing import Registry, Resource

    from gitops_karmada.core.layout import RepoLayout
    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.config import SchemaCheckConfig
    from gitops_karmada.model.manifest import Manifest

NO_SCHEMA = "no schema"
SCHEMA_CODE = "schema"
"""The ``code`` of a diagnostic about a manifest that fails its schema."""
CRD_KIND = "CustomResourceDefinition"
CRD_GROUP = "apiextensions.k8s.io"
_VERSION = re.compile(r"^v?(\d+)\.(\d+)")


class NativeSchemas(Protocol):
    """Kubernetes' own schemas, per minor version (an adapter reads them from a package)."""

    def versions(self) -> Sequence[tuple[int, int]]:
        """The minor versions available, oldest first."""
        ...

    def schema(
        self, version: tuple[int, int], api_version: str, kind: str, *, strict: bool
    ) -> Resource[Any] | None:
        """The schema of ``kind`` in ``api_version`` at ``version``; None when Kubernetes has no such kind."""
        ...

    def registry(self, version: tuple[int, int], *, strict: bool) -> Registry[Any]:
        """The shared definitions the schemas of ``version`` refer to."""
        ...


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    pointer: str
    """JSON pointer of the offending field (``/spec/replica``); for an unknown field, the field itself."""
    message: str

    @property
    def field(self) -> str:
        """The pointer as a dotted field path (``spec.template.spec.containers[0].image``)."""
        parts: list[str] = []
        for token in self.pointer.split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if token.isdigit() and parts:
                parts[-1] += f"[{token}]"
            else:
                parts.append(token)
        return ".".join(parts)


@dataclass(frozen=True, slots=True)
class SchemaVerdict:
    """The outcome of checking one manifest."""

    checked_against: str
    """``Kubernetes 1.31`` or ``CustomResourceDefinition flinkdeployments.flink.apache.org``; "" when
    no schema knows the kind."""
    problems: tuple[SchemaProblem, ...] = ()


def minor_version(text: str) -> tuple[int, int] | None:
    """``v1.31.4`` → (1, 31); None when ``text`` is not a Kubernetes version."""
    match = _VERSION.match(text.strip())
    return (int(match[1]), int(match[2])) if match else None


# -- CRDs as schemas --------------------------------------------------------------------------------------


def _structural(schema: Any) -> Any:
    """An OpenAPI v3 structural schema as JSON Schema: ``nullable``, int-or-string, preserved unknown
    fields, and unknown fields refused where the schema lists properties (strict field validation)."""
    if isinstance(schema, list):
        return [_structural(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("properties", "patternProperties", "definitions"):
            out[key] = (
                {name: _structural(sub) for name, sub in value.items()} if isinstance(value, dict) else value
            )
        elif key in ("items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"):
            out[key] = _structural(value)
        elif not key.startswith("x-kubernetes-") and key not in ("nullable", "example", "externalDocs"):
            out[key] = value
    if schema.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if schema.get("nullable") and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    preserve = schema.get("x-kubernetes-preserve-unknown-fields") or schema.get(
        "x-kubernetes-embedded-resource"
    )
    if "properties" in out and "additionalProperties" not in out and not preserve:
        out["additionalProperties"] = False
    return out


_OBJECT_META: dict[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
    },
}


def crd_schemas(templates: Iterable[Manifest]) -> dict[tuple[str, str, str], tuple[str, dict[str, Any]]]:
    """(group, version, kind) → (CRD name, JSON schema) for every served version of every CRD template."""
    found: dict[tuple[str, str, str], tuple[str, dict[str, Any]]] = {}
    for template in templates:
        key = template.key
        if key.kind != CRD_KIND or key.group != CRD_GROUP:
            continue
        spec = template.body.get("spec")
        if not isinstance(spec, dict):
            continue
        group, names = spec.get("group"), spec.get("names")
        kind = names.get("kind") if isinstance(names, dict) else None
        if not isinstance(group, str) or not isinstance(kind, str):
            continue
        for version in spec.get("versions") or ():
            if not isinstance(version, dict) or not isinstance(version.get("name"), str):
                continue
            openapi = (version.get("schema") or {}).get("openAPIV3Schema")
            if not isinstance(openapi, dict):
                continue
            schema = _structural(openapi)
            # the API server adds apiVersion, kind and metadata to every custom resource's schema
            schema.setdefault("properties", {})
            for name, sub in _OBJECT_META["properties"].items():
                schema["properties"].setdefault(name, sub)
            found[(group, version["name"], kind)] = (key.name, schema)
    return found


# -- the checker ------------------------------------------------------------------------------------------


def _pointer(path: Iterable[Any]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _problems(
    validator: jsonschema.protocols.Validator, body: Mapping[str, Any]
) -> tuple[SchemaProblem, ...]:
    found: list[SchemaProblem] = []
    for err in validator.iter_errors(body):
        leaves = [err]
        # anyOf/oneOf: the branch errors say more than "is not valid under any of the given schemas"
        while leaves and all(leaf.context for leaf in leaves) and len(leaves) == 1:
            leaves = sorted(leaves[0].context, key=lambda e: (-len(e.path), str(e.message)))[:1]
        for leaf in leaves or [err]:
            found.extend(_leaf_problems(leaf))
    unique = {(p.pointer, p.message): p for p in found}
    return tuple(unique[key] for key in sorted(unique))


def _leaf_problems(err: jsonschema.ValidationError) -> list[SchemaProblem]:
    base = list(err.absolute_path)
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        schema = err.schema if isinstance(err.schema, dict) else {}
        known = set(schema.get("properties") or {})
        extra = sorted(k for k in err.instance if k not in known)
        return [SchemaProblem(_pointer([*base, name]), "unknown field") for name in extra]
    if err.validator == "required":
        missing = err.message.split("'")[1] if "'" in err.message else ""
        return [SchemaProblem(_pointer([*base, missing] if missing else base), "required field is missing")]
    return [SchemaProblem(_pointer(base), _short(err))]


_JSON_TYPES: dict[type, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    dict: "object",
    list: "array",
    type(None): "null",
}


def _short(err: jsonschema.ValidationError) -> str:
    if err.validator == "type":
        expected = err.validator_value
        shown = " or ".join(t for t in expected if t != "null") if isinstance(expected, list) else expected
        return (
            f"must be of type {shown}, not {_JSON_TYPES.get(type(err.instance), type(err.instance).__name__)}"
        )
    allowed = err.validator_value
    if err.validator == "enum" and isinstance(allowed, list):
        return f"{err.instance!r} is not one of {', '.join(map(str, allowed))}"
    return str(err.message)


@dataclass
class SchemaChecker:
    """Checks rendered manifests; compiled validators are kept for the whole run."""

    native: NativeSchemas | None
    crds: Mapping[tuple[str, str, str], tuple[str, dict[str, Any]]]
    default_version: tuple[int, int] | None
    """For clusters that report no Kubernetes version (None: the newest schemas available)."""
    strict: bool = True
    _validators: dict[tuple[Any, ...], tuple[str, jsonschema.protocols.Validator | SchemaProblem] | None] = (
        field(default_factory=dict)
    )
    _gates: dict[tuple[Any, ...], jsonschema_rs.Validator | None] = field(default_factory=dict)
    """A compiled (Rust) validator per schema: it says only valid or not, hundreds of times faster; a
    manifest it passes has no problems, one it fails is checked again for the problems themselves."""
    _registries: dict[int, tuple[Any, jsonschema_rs.Registry]] = field(default_factory=dict)
    _versions: dict[str, tuple[int, int] | None] = field(default_factory=dict)
    """``version_for`` by reported version: asked once per rendered manifest, answered once per cluster."""

    def version_for(self, reported: str) -> tuple[int, int] | None:
        """The schema version to check a cluster reporting ``reported`` against: the newest available that
        is not newer (the oldest available for an older cluster)."""
        if reported not in self._versions:
            self._versions[reported] = self._version_for(reported)
        return self._versions[reported]

    def _version_for(self, reported: str) -> tuple[int, int] | None:
        if self.native is None:
            return None
        available = self.native.versions()
        if not available:
            return None
        wanted = minor_version(reported) or self.default_version or available[-1]
        older = [v for v in available if v <= wanted]
        return older[-1] if older else available[0]

    def check(self, body: Mapping[str, Any], reported_version: str) -> SchemaVerdict:
        api_version, kind = body.get("apiVersion"), body.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            return SchemaVerdict("")
        version = self.version_for(reported_version)
        key = (api_version, kind, version)
        if key not in self._validators:
            self._validators[key] = self._validator(api_version, kind, version)
        compiled = self._validators[key]
        if compiled is None:
            return SchemaVerdict("")
        name, validator = compiled
        if isinstance(validator, SchemaProblem):
            return SchemaVerdict(name, (validator,))
        gate = self._gates.get(key)
        if gate is not None and _passes(gate, body):
            return SchemaVerdict(name)
        try:
            return SchemaVerdict(name, _problems(validator, body))
        except (jsonschema.exceptions.SchemaError, jsonschema.exceptions.UnknownType, TypeError) as err:
            # a schema the metaschema accepts but that cannot be applied (a CRD's, typically)
            return SchemaVerdict(name, (SchemaProblem("", f"the {name} schema cannot be applied: {err}"),))

    def _gate(self, schema: dict[str, Any], registry: Registry[Any] | None) -> jsonschema_rs.Validator | None:
        """The Rust validator of ``schema`` with the references of ``registry``; None when it cannot take
        them (the Python validator then checks every manifest)."""
        try:
            if registry is None:
                return jsonschema_rs.Draft202012Validator(schema)
            held = self._registries.get(id(registry))
            if held is None:
                # the shared Kubernetes definitions (1.3 MB): converted once per version, not per kind
                resources = [(uri, registry.contents(uri)) for uri in registry]
                held = self._registries[id(registry)] = (registry, jsonschema_rs.Registry(resources))
            return jsonschema_rs.Draft202012Validator(schema, registry=held[1])
        except (ValueError, TypeError, jsonschema_rs.ReferencingError):
            return None

    def _validator(
        self, api_version: str, kind: str, version: tuple[int, int] | None
    ) -> tuple[str, jsonschema.protocols.Validator | SchemaProblem] | None:
        served = api_version.rpartition("/")[2]
        crd = self.crds.get((group_of(api_version), served, kind))
        if crd is not None:
            name = f"CustomResourceDefinition {crd[0]}"
            try:
                jsonschema.Draft202012Validator.check_schema(crd[1])
            except jsonschema.exceptions.SchemaError as err:
                # the API server refuses such a CRD, so its resources cannot be applied either
                where = "/".join(str(p) for p in err.path)
                return name, SchemaProblem(
                    "", f"the schema of {name} is invalid at {where or '/'}: {err.message}"
                )
            self._gates[(api_version, kind, version)] = self._gate(crd[1], None)
            return name, jsonschema.Draft202012Validator(crd[1])
        if self.native is None or version is None:
            return None
        resource = self.native.schema(version, api_version, kind, strict=self.strict)
        if resource is None:
            return None
        shared = self.native.registry(version, strict=self.strict)
        registry = resource @ shared
        validator = jsonschema.Draft202012Validator(resource.contents, registry=registry)
        self._gates[(api_version, kind, version)] = self._gate(resource.contents, shared)
        return f"Kubernetes {version[0]}.{version[1]}", validator


def _passes(gate: jsonschema_rs.Validator, body: Mapping[str, Any]) -> bool:
    try:
        return gate.is_valid(body)
    except (ValueError, TypeError):  # a value JSON has no type for: the Python validator says what
        return False


def schema_checker(
    config: SchemaCheckConfig, templates: Iterable[Manifest], native: NativeSchemas | None
) -> SchemaChecker | None:
    """The run's checker as the configuration asks (None when the check is off)."""
    if not config.enabled:
        return None
    return SchemaChecker(
        native=native,
        crds=crd_schemas(templates),
        default_version=minor_version(config.kubernetes_version),
        strict=config.strict,
    )


# -- the committed cluster folders (validate --rendered) --------------------------------------------------


def check_rendered(
    files: Mapping[str, bytes],
    layout: RepoLayout,
    clusters: Mapping[str, Cluster],
    checker: SchemaChecker,
) -> tuple[tuple[Diagnostic, ...], int, int]:
    """Every manifest in the cluster folders (the tool's and hand-written ones) against its cluster's schema.

    Returns the errors (one per failing document), how many documents were checked and how many had no
    schema to be checked against.
    """
    found: list[Diagnostic] = []
    checked = unchecked = 0
    for path in sorted(files):
        name = layout.cluster_of(path)
        if name is None or not path.endswith((".yaml", ".yml")):
            continue
        cluster = clusters.get(name)
        version = cluster.status.kubernetes_version if cluster is not None else ""
        try:
            documents = load_yaml_documents(files[path])
        except InputError as err:
            found.append(error(f"schema: not YAML: {err}", SourceRef(path, 0), code=SCHEMA_CODE))
            continue
        for document in documents:
            if not isinstance(document.body, dict):
                continue
            verdict = checker.check(document.body, version)
            if not verdict.checked_against:
                unchecked += 1
                continue
            checked += 1
            if verdict.problems:
                shown = "; ".join(f"{p.field or '(object)'}: {p.message}" for p in verdict.problems)
                found.append(
                    error(
                        f"schema: fails the {verdict.checked_against} schema: {shown}",
                        SourceRef(path, document.index),
                        verdict.problems[0].field,
                        code=SCHEMA_CODE,
                    )
                )
    return tuple(found), checked, unchecked
