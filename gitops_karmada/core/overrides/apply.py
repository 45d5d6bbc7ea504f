"""Apply (Cluster)OverridePolicies to one template for one cluster (``ApplyOverridePolicies``).

ClusterOverridePolicies first, then the OverridePolicies of the template's namespace, matched against the
object as the ClusterOverridePolicies left it. Within a rule: imageOverrider → commandOverrider →
argsOverrider → labelsOverrider → annotationsOverrider → fieldOverrider → plaintext, each entry seeing the
previous one's result. Any failure raises ``OverridePolicyError`` (Karmada abandons the cluster's Work);
an entry that changes nothing is a warning. The input is never mutated: everything happens on a copy,
and every change is recorded with the policy, rule and overrider that made it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.overrides.commandargs import CommandArgsTarget, command_args_patches
from gitops_karmada.core.overrides.diff import changes_made, pointer_roots
from gitops_karmada.core.overrides.errors import OverridePolicyError, OverriderError
from gitops_karmada.core.overrides.fields import apply_field_overrider
from gitops_karmada.core.overrides.image import image_overrider_patches
from gitops_karmada.core.overrides.labels import MetadataMap, apply_label_annotation_overrider
from gitops_karmada.core.overrides.patch import PatchError, PatchOperation, PatchOperator, apply_patch
from gitops_karmada.core.overrides.provenance import ChangeOperation, FieldChange, OverriderKind
from gitops_karmada.core.overrides.result import AppliedOverride, OverrideResult
from gitops_karmada.core.overrides.selection import (
    MatchedOverriders,
    Rankings,
    cluster_overriders,
    namespaced_overriders,
)
from gitops_karmada.core.overrides.workloads import containers_fields, normalize_json_value
from gitops_karmada.core.selectors import ZoneMatching
from gitops_karmada.model.keys import ObjectKey

if TYPE_CHECKING:
    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.overrides import (
        ClusterOverridePolicy,
        CommandArgsOverrider,
        FieldOverrider,
        ImageOverrider,
        LabelAnnotationOverrider,
        OverridePolicy,
        PlaintextOverrider,
    )

__all__ = ["apply_overrides", "plaintext_patch", "template_name", "thaw"]

_Change = tuple[str, str, ChangeOperation, Any, Any]  # path, sub_path, operation, old, new
_METADATA = frozenset({"metadata"})
"""All a labels or annotations overrider touches."""


def thaw(value: Any) -> Any:
    """A deep copy made of dicts and lists (tuples and read-only mappings become mutable)."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(item) for item in value]
    return value


def template_name(obj: Mapping[str, Any]) -> str:
    """``Kind.group/namespace/name`` of a manifest, for messages."""
    metadata = obj.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}

    def text(value: Any) -> str:
        return value if isinstance(value, str) else ""

    key = ObjectKey(
        text(obj.get("apiVersion")),
        text(obj.get("kind")),
        text(metadata.get("namespace")),
        text(metadata.get("name")),
    )
    return str(key)


def _patch_in_place(obj: dict[str, Any], operations: Sequence[PatchOperation]) -> None:
    """Karmada's ``applyJSONPatch`` on an unstructured object."""
    try:
        apply_patch(obj, operations)
    except PatchError as err:
        raise OverriderError(str(err), err.path) from err
    kind = obj.get("kind")
    if not isinstance(kind, str) or not kind:
        # unstructured.UnmarshalJSON refuses an object without a kind
        raise OverriderError("Object 'Kind' is missing", "/kind")


def plaintext_patch(overrider: PlaintextOverrider) -> PatchOperation:
    """The JSON-patch operation of one plaintext overrider, its value as the API server stores it."""
    value = None if overrider.value is None else normalize_json_value(overrider.value, overrider.path)
    return PatchOperation(PatchOperator(overrider.operator.value), overrider.path, value)


@dataclass
class _Run:
    """The mutable state of one ``apply_overrides`` call."""

    working: dict[str, Any]
    cluster: str
    template: str
    changes: list[FieldChange] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def apply_block(self, block: MatchedOverriders) -> None:
        overriders = block.overriders
        kind = self.working.get("kind")
        unsupported = (
            ""
            if isinstance(kind, str) and containers_fields(kind) is not None
            else f"Karmada only rewrites containers of Pods and pod-template workloads, not {kind}"
        )
        for index, image in enumerate(overriders.image_overrider):
            hint = "" if image.predicate is not None else unsupported
            self._entry(block, OverriderKind.IMAGE, index, functools.partial(self._image, image), hint)
        for index, command in enumerate(overriders.command_overrider):
            action = functools.partial(self._command_args, command, CommandArgsTarget.COMMAND)
            self._entry(block, OverriderKind.COMMAND, index, action, unsupported)
        for index, args in enumerate(overriders.args_overrider):
            action = functools.partial(self._command_args, args, CommandArgsTarget.ARGS)
            self._entry(block, OverriderKind.ARGS, index, action, unsupported)
        for index, labels in enumerate(overriders.labels_overrider):
            action = functools.partial(self._metadata_map, labels, MetadataMap.LABELS)
            self._entry(block, OverriderKind.LABELS, index, action)
        for index, annotation in enumerate(overriders.annotations_overrider):
            action = functools.partial(self._metadata_map, annotation, MetadataMap.ANNOTATIONS)
            self._entry(block, OverriderKind.ANNOTATIONS, index, action)
        for index, field_overrider in enumerate(overriders.field_overrider):
            self._entry(block, OverriderKind.FIELD, index, functools.partial(self._field, field_overrider))
        # Karmada applies all plaintext entries as one patch; entry by entry gives the same object and
        # lets every change name its entry (a failure aborts everything either way)
        for index, plaintext in enumerate(overriders.plaintext):
            self._entry(block, OverriderKind.PLAINTEXT, index, functools.partial(self._plaintext, plaintext))

    def _entry(
        self,
        block: MatchedOverriders,
        kind: OverriderKind,
        index: int,
        action: Callable[[], list[_Change]],
        idle_hint: str = "",
    ) -> None:
        """Run one overrider entry; record its changes, or a warning when it changed nothing."""
        try:
            found = action()
        except OverriderError as err:
            raise OverridePolicyError(
                policy=block.policy_ref,
                rule_index=block.rule_index,
                overrider=kind,
                overrider_index=index,
                cluster=self.cluster,
                template=self.template,
                path=err.path,
                sub_path=err.sub_path,
                detail=err.detail,
            ) from err
        for path, sub_path, operation, old, new in found:
            self.changes.append(
                FieldChange(
                    path=path,
                    sub_path=sub_path,
                    operation=operation,
                    old=old,
                    new=new,
                    policy=block.policy_ref,
                    rule_index=block.rule_index,
                    overrider=kind,
                    overrider_index=index,
                )
            )
        if not found:
            hint = f" ({idle_hint})" if idle_hint else ""
            self.warnings.append(
                f"{block.policy_ref} rule {block.rule_index} {kind}[{index}] changed nothing on cluster "
                f"{self.cluster} for {self.template}{hint}"
            )

    def _diffed(self, mutate: Callable[[], None], roots: frozenset[str] | None) -> list[_Change]:
        """Run ``mutate`` on the working object and return what it changed (``roots``: the only top-level
        keys it can touch, or None)."""
        return [(c.path, "", c.operation, c.old, c.new) for c in changes_made(self.working, mutate, roots)]

    def _patched(self, patches: Sequence[PatchOperation]) -> list[_Change]:
        return self._diffed(
            lambda: _patch_in_place(self.working, patches), pointer_roots(p.path for p in patches)
        )

    def _image(self, overrider: ImageOverrider) -> list[_Change]:
        return self._patched(image_overrider_patches(self.working, overrider))

    def _command_args(self, overrider: CommandArgsOverrider, target: CommandArgsTarget) -> list[_Change]:
        return self._patched(command_args_patches(self.working, overrider, target))

    def _metadata_map(self, overrider: LabelAnnotationOverrider, metadata_map: MetadataMap) -> list[_Change]:
        return self._diffed(
            lambda: apply_label_annotation_overrider(self.working, overrider, metadata_map),
            _METADATA,
        )

    def _plaintext(self, overrider: PlaintextOverrider) -> list[_Change]:
        return self._patched([plaintext_patch(overrider)])

    def _field(self, overrider: FieldOverrider) -> list[_Change]:
        outcome = apply_field_overrider(self.working, overrider)
        if outcome.old_text == outcome.new_text:
            return []
        if outcome.document_changes:
            path = overrider.field_path
            return [(path, c.path, c.operation, c.old, c.new) for c in outcome.document_changes]
        # only the formatting changed (YAML keys re-sorted, JSON compacted)
        return [(overrider.field_path, "", ChangeOperation.REPLACE, outcome.old_text, outcome.new_text)]


def apply_overrides(
    obj: Mapping[str, Any],
    cluster: Cluster,
    cluster_override_policies: Sequence[ClusterOverridePolicy],
    override_policies: Sequence[OverridePolicy],
    *,
    owned: bool = False,
    rankings: Rankings | None = None,
    zones: ZoneMatching = ZoneMatching.ANY,
) -> OverrideResult:
    """Karmada's ``ApplyOverridePolicies`` for ``obj`` on ``cluster``; ``obj`` is not mutated, unless
    ``owned``: a copy made of dicts and lists that the caller gives up (it becomes the result's object; a
    rendering's copy, which would otherwise be copied a second time). ``rankings``: kept by the caller
    across the clusters of one template, with the same policies (``selection.Rankings``). ``zones``: how a
    rule's ``zone In`` matches a multi-zone cluster (the Karmada version followed)."""
    working: dict[str, Any] = obj if owned and isinstance(obj, dict) else thaw(obj)
    run = _Run(working=working, cluster=cluster.name, template=template_name(obj))
    applied_cluster: list[AppliedOverride] = []
    for block in cluster_overriders(run.working, cluster, cluster_override_policies, rankings, zones):
        run.apply_block(block)
        applied_cluster.append(AppliedOverride(policy_name=block.policy.name, overriders=block.overriders))
    applied: list[AppliedOverride] = []
    for block in namespaced_overriders(run.working, cluster, override_policies, rankings, zones):
        run.apply_block(block)
        applied.append(AppliedOverride(policy_name=block.policy.name, overriders=block.overriders))
    return OverrideResult(
        object=run.working,
        cluster=run.cluster,
        template=run.template,
        applied_cluster_overrides=tuple(applied_cluster),
        applied_overrides=tuple(applied),
        changes=tuple(run.changes),
        warnings=tuple(run.warnings),
    )
