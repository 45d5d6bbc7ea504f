"""What a template's render reports: manifests their cluster's schema refuses (and the override rule that
made the offending field), failures grouped by cause with every cluster they stop, kinds no schema knows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gitops_karmada.core.interpreter.errors import interpret_problem
from gitops_karmada.core.overrides.errors import OverridePolicyError
from gitops_karmada.core.schema_check import NO_SCHEMA, SCHEMA_CODE, SchemaProblem
from gitops_karmada.model.config import UnknownKinds
from gitops_karmada.model.diagnostics import Diagnostic, error, warning
from gitops_karmada.model.errors import GitopsKarmadaError, InterpretError

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from gitops_karmada.core.overrides import OverrideResult
    from gitops_karmada.core.overrides.provenance import FieldChange
    from gitops_karmada.core.schema_check import SchemaVerdict
    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.model.overrides import AnyOverridePolicy
    from gitops_karmada.reconcile.context import RunContext

OverrideSignature = frozenset[tuple[str, str, str, int]]
RenderKey = tuple[
    int | None, int | None, OverrideSignature, tuple[int, int] | None, tuple[tuple[str, str], ...]
]
"""What a rendered manifest depends on besides the template: replicas, completions, override rules, the
schema version its cluster is checked against, and the labels a failover injects."""
VerdictKey = tuple[int | None, OverrideSignature, tuple[int, int] | None]
"""Replicas are the scheduler's non-negative integers: manifests that differ only there share a verdict."""


class InvalidManifestError(GitopsKarmadaError):
    """A rendered manifest its cluster's API server would refuse; it is not written."""

    def __init__(
        self, checked_against: str, problems: tuple[SchemaProblem, ...], result: OverrideResult
    ) -> None:
        self.checked_against = checked_against
        self.problems = problems
        self.result = result
        super().__init__("; ".join(f"{p.field or '(object)'}: {p.message}" for p in problems))

    def blame(self, problem: SchemaProblem) -> FieldChange | None:
        """The override change that produced the offending field, if one did."""
        pointer = problem.pointer
        for change in self.result.changes:
            if (
                pointer == change.path
                or pointer.startswith(change.path + "/")
                or change.path.startswith(pointer + "/")
            ):
                return change
        return None


def schema_verdict(
    ctx: RunContext,
    body: Mapping[str, Any],
    cluster: Cluster,
    signature: RenderKey,
    verdicts: dict[VerdictKey, SchemaVerdict],
) -> SchemaVerdict | None:
    """``body`` checked against its cluster's schema (once per completions, override rules and version)."""
    if ctx.schema_check is None:
        return None
    key = (signature[1], signature[2], signature[3])
    if key not in verdicts:
        verdicts[key] = ctx.schema_check.check(body, cluster.status.kubernetes_version)
    return verdicts[key]


def invalid_manifest(
    ctx: RunContext, verdict: SchemaVerdict | None, result: OverrideResult
) -> InvalidManifestError | None:
    if verdict is None:
        return None
    if verdict.problems:
        return InvalidManifestError(verdict.checked_against, verdict.problems, result)
    if not verdict.checked_against and ctx.config.schema_check.unknown_kinds is UnknownKinds.ERROR:
        problem = SchemaProblem("", NO_SCHEMA + " (schemaCheck.unknownKinds: Error)")
        return InvalidManifestError("", (problem,), result)
    return None


def unchecked_warning(
    ctx: RunContext, template: Manifest, verdicts: Iterable[SchemaVerdict]
) -> Diagnostic | None:
    """One warning for a template no schema knows (schemaCheck.unknownKinds: Warn, the default)."""
    if ctx.schema_check is None or ctx.config.schema_check.unknown_kinds is not UnknownKinds.WARN:
        return None
    if not any(not v.checked_against for v in verdicts):
        return None
    key = template.key
    return warning(
        f"{NO_SCHEMA}: {key.api_version} {key.kind} is neither a Kubernetes kind nor defined by a "
        "CustomResourceDefinition in the repository, so its manifests were not schema-checked "
        "(commit the CRD, or set schemaCheck.unknownKinds: Ignore)",
        template.source,
        subject=str(key),
    )


def failure_key(err: GitopsKarmadaError) -> object:
    if isinstance(err, OverridePolicyError):
        return (
            err.policy,
            err.rule_index,
            err.overrider,
            err.overrider_index,
            err.path,
            err.sub_path,
            err.detail,
        )
    return str(err)


def render_error(
    ctx: RunContext, template: Manifest, clusters: list[str], err: GitopsKarmadaError
) -> Diagnostic:
    """A render failure at the document to fix: the failing override policy's rule, else the template."""
    where = ", ".join(repr(name) for name in clusters)
    plural = "s" if len(clusters) > 1 else ""
    subject = str(template.key)
    if isinstance(err, OverridePolicyError):
        policy = err.policy
        source = ctx.inputs.sources.get((policy.kind.value, policy.namespace, policy.name))
        candidates: list[AnyOverridePolicy] = [
            *ctx.inputs.override_policies,
            *ctx.inputs.cluster_override_policies,
        ]
        wanted = (policy.kind.value, policy.namespace, policy.name)
        spec = next((p.spec for p in candidates if (p.kind, p.namespace, p.name) == wanted), None)
        rule = (
            f"spec.overrideRules[{err.rule_index}]." if spec is not None and spec.override_rules else "spec."
        )
        field = f"{rule}overriders.{err.overrider}[{err.overrider_index}]"
        at = f"{err.path}#{err.sub_path}" if err.sub_path else err.path
        message = (
            f"cannot override {subject} (from {template.source}) for cluster{plural} {where}"
            + (f" at {at}" if at else "")
            + f": {err.detail}"
        )
        return error(message, source, field, subject=subject)
    if isinstance(err, InvalidManifestError):
        return _schema_error(ctx, template, clusters, err)
    if isinstance(err, InterpretError):
        what = f"cannot render for cluster{plural} {where}"
        return interpret_problem(err, template, ctx.inputs.sources, what)
    return error(f"cannot render for cluster{plural} {where}: {err}", template.source, subject=subject)


def _schema_error(
    ctx: RunContext, template: Manifest, clusters: list[str], err: InvalidManifestError
) -> Diagnostic:
    """Names the clusters, the files, the template, and the override rule that produced the field."""
    subject = str(template.key)
    files = ", ".join(ctx.layout.manifest_path(name, template.key) for name in clusters)
    parts = []
    blamed: FieldChange | None = None
    for problem in err.problems:
        change = err.blame(problem)
        by = (
            f" (set by {change.source} at {change.location})"
            if change is not None
            else " (from the template)"
        )
        parts.append(f"{problem.field or '(object)'}: {problem.message}{by}")
        blamed = blamed or change
    against = f"the {err.checked_against} schema" if err.checked_against else "the schema check"
    message = (
        f"schema: {subject} (from {template.source}) rendered for cluster{'s' if len(clusters) > 1 else ''} "
        f"{', '.join(repr(c) for c in clusters)} ({files}) fails {against}, so it was "
        f"not written: {'; '.join(parts)}"
    )
    if blamed is not None:
        policy = blamed.policy
        source = ctx.inputs.sources.get((policy.kind.value, policy.namespace, policy.name))
        field = (
            f"spec.overrideRules[{blamed.rule_index}].overriders.{blamed.overrider}[{blamed.overrider_index}]"
        )
        return error(message, source, field, subject=subject, code=SCHEMA_CODE)
    return error(message, template.source, err.problems[0].field, subject=subject, code=SCHEMA_CODE)
