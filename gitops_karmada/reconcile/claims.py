"""Claim: which templates the pipeline takes on, and on whose behalf (Karmada's detector, after matching).

``detector.match_policy`` picks each template's policy; this phase adds what matching alone does not
know: which templates are dependencies of ``propagateDeps`` workloads (they follow those workloads as
attached bindings) and which templates are left as they are (unmatched, ignored, waiting) or removed (a
dependency nothing requires any more). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.binding import FINGERPRINT_ANNOTATION, applied_clusters
from gitops_karmada.core.detector import ClaimState, PolicyMatch
from gitops_karmada.core.interpreter import Operation
from gitops_karmada.core.interpreter.errors import interpret_problem
from gitops_karmada.core.selectors import labels_match
from gitops_karmada.model.bindings import BindingSnapshot
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.model.diagnostics import Diagnostic, warning
from gitops_karmada.model.errors import InterpretError
from gitops_karmada.model.keys import group_of
from gitops_karmada.model.policies import ConflictResolution
from gitops_karmada.reconcile.dispatch import merge_target_clusters
from gitops_karmada.reconcile.outcome import TemplateOutcome

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitops_karmada.model.bindings import ResourceBinding, TargetCluster
    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.reconcile.context import RunContext

Identity = tuple[str, str, str, str]


@dataclass(frozen=True, slots=True)
class Requirement:
    """A binding that requires a dependency (propagateDeps), with the policy fields that carry over."""

    snapshot: BindingSnapshot
    conflict_resolution: ConflictResolution | None
    preserve: bool | None

    def fingerprint_part(self) -> list[object]:
        """What a dependency's output depends on of this requirement."""
        return [
            self.snapshot.namespace,
            self.snapshot.name,
            [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in self.snapshot.clusters],
            self.conflict_resolution.value if self.conflict_resolution else None,
            self.preserve,
        ]


@dataclass(frozen=True, slots=True)
class Claim:
    """A template the pipeline places: its (possibly attached) match, previous binding and requirers."""

    template: Manifest
    match: PolicyMatch
    previous: ResourceBinding | None
    required: tuple[Requirement, ...] = ()
    fingerprint: str = ""
    """The inputs' fingerprint of this run (equal to the previous record's: nothing it reads changed)."""
    priority: int | None = None
    """``spec.schedulePriority.priority`` (``core.scheduler.priority``); None: the binding has none."""

    @property
    def attached(self) -> bool:
        return self.match.state is ClaimState.ATTACHED

    @property
    def inputs_changed(self) -> bool:
        """Whether something the binding reads changed since its record was made (what enqueues it)."""
        recorded = self.previous.metadata.annotations.get(FINGERPRINT_ANNOTATION) if self.previous else None
        return not self.fingerprint or recorded != self.fingerprint


def claim(
    ctx: RunContext,
    template: Manifest,
    match: PolicyMatch,
    previous: ResourceBinding | None,
    required: tuple[Requirement, ...] = (),
    fingerprint: str = "",
) -> Claim | TemplateOutcome:
    """The claim to place, or the final outcome of a template that is not placed this run."""
    was_attached = (
        previous is not None and previous.spec.placement is None and bool(previous.spec.required_by)
    )
    attached = bool(required) and match.policy is None and match.state is not ClaimState.NAMESPACE_SYNC
    if match.state is ClaimState.ORPHANED and was_attached and not required:
        # a dependency nothing requires any more: its attached binding goes, and its files with it
        gone = "no workload requires it any more (propagateDeps); its manifests are removed"
        return TemplateOutcome(
            key=template.key, match=PolicyMatch(ClaimState.UNMATCHED, reason=gone), removed=True
        )
    if attached:
        reason = "required by " + ", ".join(f"{r.snapshot.namespace}/{r.snapshot.name}" for r in required)
        return Claim(
            template, PolicyMatch(ClaimState.ATTACHED, reason=reason), previous, required, fingerprint
        )
    if match.state in (ClaimState.UNMATCHED, ClaimState.IGNORED, ClaimState.WAITING):
        waiting = (warning(match.reason, template.source),) if match.state is ClaimState.WAITING else ()
        return keep_previous(ctx, template, match, previous, waiting)
    return Claim(template, match, previous, required, fingerprint)


def keep_previous(
    ctx: RunContext,
    template: Manifest,
    match: PolicyMatch,
    previous: ResourceBinding | None,
    diagnostics: tuple[Diagnostic, ...] = (),
) -> TemplateOutcome:
    """Leave the template's previous binding and files exactly as they are."""
    keep: frozenset[str] = frozenset()
    if previous is not None:
        keep = frozenset(ctx.layout.manifest_path(c, template.key) for c in applied_clusters(previous))
    return TemplateOutcome(
        key=template.key, match=match, binding=previous, diagnostics=diagnostics, keep=keep
    )


def dependency_requirements(
    ctx: RunContext, templates: Sequence[Manifest], matches: Mapping[Identity, PolicyMatch]
) -> tuple[dict[Identity, list[Identity]], list[Diagnostic]]:
    """Which templates are dependencies of propagateDeps workloads: dependency → its requirers."""
    requirers: dict[Identity, list[Identity]] = {}
    diagnostics: list[Diagnostic] = []
    if not ctx.gate(FeatureGate.PROPAGATE_DEPS):
        return requirers, diagnostics
    by_identity = {t.key.identity: t for t in templates}
    for template in templates:
        key = template.key
        policy = matches[key.identity].policy
        if policy is None or not policy.spec.propagate_deps:
            continue
        if not ctx.interpreter.hook_enabled(key.api_version, key.kind, Operation.INTERPRET_DEPENDENCY):
            continue
        try:
            dependencies = ctx.interpreter.get_dependencies(template.body)
        except InterpretError as err:
            diagnostics.append(
                interpret_problem(err, template, ctx.inputs.sources, "cannot read the dependencies of")
            )
            continue
        for dependency in dependencies:
            group = group_of(dependency.api_version)
            if dependency.name:
                found = [(group, dependency.kind, dependency.namespace, dependency.name)]
            else:
                selector = dependency.label_selector
                found = [
                    ident
                    for ident, candidate in by_identity.items()
                    if ident[:3] == (group, dependency.kind, dependency.namespace)
                    and selector is not None
                    and labels_match(selector, candidate.labels)
                ]
            for ident in found:
                if ident in by_identity:
                    requirers.setdefault(ident, []).append(key.identity)
                else:
                    missing = f"{dependency.kind}/{dependency.namespace}/{dependency.name}"
                    message = (
                        f"depends on {missing}, which is not in the repository (propagateDeps cannot send it)"
                    )
                    diagnostics.append(warning(message, template.source, subject=str(key)))
    return requirers, diagnostics


def requirements(bindings: Sequence[ResourceBinding | None]) -> tuple[Requirement, ...]:
    """What the bindings of a dependency's requirers (sorted by identity) pass on to it."""
    required = []
    for binding in bindings:
        if binding is None:
            continue
        snapshot = BindingSnapshot(
            namespace=binding.metadata.namespace or "",
            name=binding.metadata.name,
            clusters=binding.spec.clusters,
        )
        required.append(
            Requirement(
                snapshot, binding.spec.conflict_resolution, binding.spec.preserve_resources_on_deletion
            )
        )
    return tuple(required)


def required_clusters(required: tuple[Requirement, ...]) -> tuple[TargetCluster, ...]:
    return merge_target_clusters((), [r.snapshot for r in required])


def attached_conflict_resolution(required: tuple[Requirement, ...]) -> ConflictResolution:
    """Overwrite if any requiring binding overwrites, else Abort (``policy_utils.go``)."""
    if any(r.conflict_resolution is ConflictResolution.OVERWRITE for r in required):
        return ConflictResolution.OVERWRITE
    return ConflictResolution.ABORT


def attached_preserve(required: tuple[Requirement, ...]) -> bool:
    return any(r.preserve for r in required)
