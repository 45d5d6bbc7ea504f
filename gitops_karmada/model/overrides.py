"""OverridePolicy and ClusterOverridePolicy (``policy.karmada.io/v1alpha1``) and their overriders.

Field names follow ``pkg/apis/policy/v1alpha1/override_types.go``; validation follows the webhook
(``pkg/util/validation``): value presence per operator, JSON-pointer paths, non-empty field ops.
"""

from __future__ import annotations

import enum
from typing import Any, Literal

from pydantic import Field, model_validator

from gitops_karmada.model.base import ApiModel, ObjectMeta
from gitops_karmada.model.policies import ClusterAffinity, ResourceSelector


class OverriderOperator(enum.StrEnum):
    ADD = "add"
    REMOVE = "remove"
    REPLACE = "replace"


def _check_value(operator: OverriderOperator, value: Any) -> None:
    """The webhook's rule for JSON-patch style operations: add/replace need a value, remove forbids one."""
    if operator in (OverriderOperator.ADD, OverriderOperator.REPLACE) and value is None:
        raise ValueError(f"value is required for operator {operator.value}")
    if operator is OverriderOperator.REMOVE and value is not None:
        raise ValueError("value is not allowed for operator remove")


class PlaintextOverrider(ApiModel):
    path: str
    operator: OverriderOperator
    value: Any = None

    @model_validator(mode="after")
    def _value_per_operator(self) -> PlaintextOverrider:
        if not self.path.startswith("/"):
            raise ValueError(f"path {self.path!r} must be a JSON pointer starting with '/'")
        _check_value(self.operator, self.value)
        return self


class ImageComponent(enum.StrEnum):
    REGISTRY = "Registry"
    REPOSITORY = "Repository"
    TAG = "Tag"


class ImagePredicate(ApiModel):
    path: str

    @model_validator(mode="after")
    def _absolute(self) -> ImagePredicate:
        if not self.path.startswith("/"):
            raise ValueError(f"path {self.path!r} must start with '/'")
        return self


class ImageOverrider(ApiModel):
    predicate: ImagePredicate | None = None
    component: ImageComponent
    operator: OverriderOperator
    value: str = ""

    @model_validator(mode="after")
    def _value_per_operator(self) -> ImageOverrider:
        if self.operator in (OverriderOperator.ADD, OverriderOperator.REPLACE) and not self.value:
            raise ValueError(f"value is required for operator {self.operator.value}")
        return self


class CommandArgsOperator(enum.StrEnum):
    ADD = "add"
    REMOVE = "remove"


class CommandArgsOverrider(ApiModel):
    container_name: str = Field(min_length=1)
    operator: CommandArgsOperator
    value: tuple[str, ...] = ()


class LabelAnnotationOverrider(ApiModel):
    operator: OverriderOperator
    value: dict[str, str] = Field(default_factory=dict)


class FieldPatchOperation(ApiModel):
    sub_path: str
    operator: OverriderOperator
    value: Any = None

    @model_validator(mode="after")
    def _value_per_operator(self) -> FieldPatchOperation:
        if not self.sub_path.startswith("/"):
            raise ValueError(f"subPath {self.sub_path!r} must be a JSON pointer starting with '/'")
        _check_value(self.operator, self.value)
        return self


class FieldOverrider(ApiModel):
    field_path: str
    json_: tuple[FieldPatchOperation, ...] = Field(default=(), alias="json")
    yaml: tuple[FieldPatchOperation, ...] = ()

    @model_validator(mode="after")
    def _at_most_one_format(self) -> FieldOverrider:
        # neither set: rejected from v1.18 (``core.inputs.webhook``), before it sets the field to ""
        if not self.field_path.startswith("/"):
            raise ValueError(f"fieldPath {self.field_path!r} must be a JSON pointer starting with '/'")
        if self.json_ and self.yaml:
            raise ValueError("FieldOverrider has both YAML and JSON set. Only one is allowed")
        return self


class Overriders(ApiModel):
    plaintext: tuple[PlaintextOverrider, ...] = ()
    image_overrider: tuple[ImageOverrider, ...] = ()
    command_overrider: tuple[CommandArgsOverrider, ...] = ()
    args_overrider: tuple[CommandArgsOverrider, ...] = ()
    labels_overrider: tuple[LabelAnnotationOverrider, ...] = ()
    annotations_overrider: tuple[LabelAnnotationOverrider, ...] = ()
    field_overrider: tuple[FieldOverrider, ...] = ()


class RuleWithCluster(ApiModel):
    target_cluster: ClusterAffinity | None = None
    overriders: Overriders


class OverrideSpec(ApiModel):
    resource_selectors: tuple[ResourceSelector, ...] = ()
    override_rules: tuple[RuleWithCluster, ...] = ()
    # deprecated pair, honoured when overrideRules is empty
    target_cluster: ClusterAffinity | None = None
    overriders: Overriders | None = None

    def effective_rules(self) -> tuple[RuleWithCluster, ...]:
        """``overrideRules``, or the deprecated ``targetCluster``/``overriders`` pair as one rule."""
        if self.override_rules:
            return self.override_rules
        if self.overriders is not None:
            return (RuleWithCluster(target_cluster=self.target_cluster, overriders=self.overriders),)
        return ()


class OverridePolicy(ApiModel):
    api_version: Literal["policy.karmada.io/v1alpha1"]
    kind: Literal["OverridePolicy"]
    metadata: ObjectMeta
    spec: OverrideSpec

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def namespace(self) -> str:
        return self.metadata.namespace or ""


class ClusterOverridePolicy(ApiModel):
    api_version: Literal["policy.karmada.io/v1alpha1"]
    kind: Literal["ClusterOverridePolicy"]
    metadata: ObjectMeta
    spec: OverrideSpec

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def namespace(self) -> str:
        return ""


AnyOverridePolicy = OverridePolicy | ClusterOverridePolicy
