"""ResourceInterpreterCustomization (``config.karmada.io/v1alpha1``): Lua scripts per operation."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gitops_karmada.model.base import ApiModel, ObjectMeta


class LuaScript(ApiModel):
    lua_script: str = Field(min_length=1)


class CustomizationTarget(ApiModel):
    api_version: str = Field(min_length=1)
    kind: str = Field(min_length=1)


class CustomizationRules(ApiModel):
    retention: LuaScript | None = None
    replica_resource: LuaScript | None = None
    component_resource: LuaScript | None = None
    replica_revision: LuaScript | None = None
    status_reflection: LuaScript | None = None
    status_aggregation: LuaScript | None = None
    health_interpretation: LuaScript | None = None
    dependency_interpretation: LuaScript | None = None


class ResourceInterpreterCustomizationSpec(ApiModel):
    target: CustomizationTarget
    customizations: CustomizationRules


class ResourceInterpreterCustomization(ApiModel):
    api_version: Literal["config.karmada.io/v1alpha1"]
    kind: Literal["ResourceInterpreterCustomization"]
    metadata: ObjectMeta
    spec: ResourceInterpreterCustomizationSpec

    @property
    def name(self) -> str:
        return self.metadata.name
