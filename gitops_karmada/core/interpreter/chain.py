"""``ResourceInterpreter``: Karmada's interpreter chain (``pkg/resourceinterpreter/interpreter.go``).

For every operation the first interpreter with a hook for the object's apiVersion/kind answers:
repository customizations (Lua), then the built-in third-party interpreters (Lua), then the native ones.
An error is returned as is: it never falls through to the next interpreter. Interpreter webhooks (the
second step in Karmada) need a live endpoint and have no place in a Git repository.
"""

from __future__ import annotations

import enum
import functools
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.interpreter.customization import merge_customizations
from gitops_karmada.core.interpreter.errors import FailureReason, ResourceInterpretError
from gitops_karmada.core.interpreter.lua.sandbox import DEFAULT_LUA_LIMITS, LuaLimits, LuaSandbox
from gitops_karmada.core.interpreter.native.interpreter import NativeInterpreter
from gitops_karmada.core.interpreter.operations import DependentObjectReference, Operation
from gitops_karmada.core.interpreter.scripted import ScriptedInterpreter
from gitops_karmada.core.interpreter.thirdparty import builtin_script_sets
from gitops_karmada.core.interpreter.unstructured import describe
from gitops_karmada.model.versions import NEWEST_VERSION, KarmadaVersion

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitops_karmada.model.bindings import AggregatedStatusItem, Component, ReplicaRequirements
    from gitops_karmada.model.interpretation import ResourceInterpreterCustomization

_Layer = ScriptedInterpreter | NativeInterpreter


class ResourceHealth(enum.StrEnum):
    """``ResourceHealth`` as the work-status controller records it for a member object."""

    HEALTHY = "Healthy"
    UNHEALTHY = "Unhealthy"
    UNKNOWN = "Unknown"


def _gvk(obj: Mapping[str, Any]) -> tuple[str, str]:
    return str(obj.get("apiVersion", "")), str(obj.get("kind", ""))


class ResourceInterpreter:
    """The interpreter chain: customizations → built-in third-party → native."""

    def __init__(
        self,
        customizations: Sequence[ResourceInterpreterCustomization] = (),
        *,
        resource_quota_estimate: bool = False,
        limits: LuaLimits = DEFAULT_LUA_LIMITS,
        karmada_version: KarmadaVersion = NEWEST_VERSION,
    ) -> None:
        """``resource_quota_estimate`` is gate ResourceQuotaEstimate (requirements get priorityClassName);
        ``karmada_version``: whose built-in interpreters answer (RayService from v1.17, FlinkDeployment's
        v1.18 health rules)."""

        self._arguments = (tuple(customizations), resource_quota_estimate, limits, karmada_version)

        def sandbox() -> LuaSandbox:
            return LuaSandbox(limits, resource_quota_estimate=resource_quota_estimate)

        self._layers: tuple[_Layer, ...] = (
            # one runtime per customized kind: a script that exhausts memory only takes its own down
            ScriptedInterpreter(merge_customizations(customizations), sandbox, shared_sandbox=False),
            ScriptedInterpreter(builtin_script_sets(karmada_version), sandbox, shared_sandbox=True),
            NativeInterpreter(resource_quota_estimate=resource_quota_estimate),
        )

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its arguments (Lua runtimes cannot cross processes): a copy starts with fresh ones."""
        customizations, resource_quota_estimate, limits, karmada_version = self._arguments
        rebuild = functools.partial(
            ResourceInterpreter,
            resource_quota_estimate=resource_quota_estimate,
            limits=limits,
            karmada_version=karmada_version,
        )
        return (rebuild, (customizations,))

    # -- hooks -------------------------------------------------------------------------------------
    def _layer(self, api_version: str, kind: str, operation: Operation) -> _Layer | None:
        return next(
            (layer for layer in self._layers if layer.hook_enabled(api_version, kind, operation)), None
        )

    def hook_enabled(self, api_version: str, kind: str, operation: Operation) -> bool:
        """``HookEnabled``: whether any interpreter implements ``operation`` for this kind."""
        return self._layer(api_version, kind, operation) is not None

    def answered_by(self, api_version: str, kind: str, operation: Operation) -> str | None:
        """``customization/<name>``, ``thirdparty``, ``native`` or None: who answers (for ``explain``)."""
        layer = self._layer(api_version, kind, operation)
        return None if layer is None else layer.answered_by(api_version, kind, operation)

    def _answering(self, obj: Mapping[str, Any], operation: Operation) -> _Layer:
        api_version, kind = _gvk(obj)
        layer = self._layer(api_version, kind, operation)
        if layer is None:
            if operation is Operation.INTERPRET_COMPONENT:
                cause = "interface GetComponents not implemented yet"
            else:
                cause = f'default {operation} interpreter for "{api_version}, Kind={kind}" not found'
            raise ResourceInterpretError(
                interpreter="resource interpreter",
                operation=operation,
                subject=describe(obj),
                cause=cause,
                reason=FailureReason.NOT_IMPLEMENTED,
            )
        return layer

    # -- operations --------------------------------------------------------------------------------
    def get_replicas(self, obj: Mapping[str, Any]) -> tuple[int, ReplicaRequirements | None]:
        """Replicas and the requirements of one replica (InterpretReplica)."""
        return self._answering(obj, Operation.INTERPRET_REPLICA).get_replicas(obj)

    def get_components(self, obj: Mapping[str, Any]) -> tuple[Component, ...]:
        """The pod templates of a multi-component workload (InterpretComponent)."""
        layer = self._answering(obj, Operation.INTERPRET_COMPONENT)
        assert isinstance(layer, ScriptedInterpreter)  # native never implements it
        return layer.get_components(obj)

    def revise_replica(self, obj: Mapping[str, Any], replicas: int) -> dict[str, Any]:
        """A new object with ``replicas`` written where the kind keeps them (ReviseReplica)."""
        return self._answering(obj, Operation.REVISE_REPLICA).revise_replica(obj, replicas)

    def retain(self, desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
        """``desired`` with the member-owned fields of ``observed`` kept (Retain)."""
        return self._answering(desired, Operation.RETAIN).retain(desired, observed)

    def reflect_status(self, obj: Mapping[str, Any]) -> dict[str, Any] | None:
        """The status to collect from a member object, None when there is none (InterpretStatus)."""
        return self._answering(obj, Operation.INTERPRET_STATUS).reflect_status(obj)

    def aggregate_status(
        self, obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem], *, now: str | None = None
    ) -> dict[str, Any]:
        """The template with member statuses folded into its status (AggregateStatus).

        ``now`` (RFC 3339) stamps conditions Karmada would stamp with the current time; without it those
        time fields are left out.
        """
        return self._answering(obj, Operation.AGGREGATE_STATUS).aggregate_status(obj, items, now)

    def interpret_health(self, obj: Mapping[str, Any]) -> bool:
        """Whether a member object is healthy (InterpretHealth)."""
        return self._answering(obj, Operation.INTERPRET_HEALTH).interpret_health(obj)

    def work_status_health(self, obj: Mapping[str, Any]) -> ResourceHealth:
        """What the work-status controller records: Healthy without a hook, Unknown when it fails."""
        api_version, kind = _gvk(obj)
        if not self.hook_enabled(api_version, kind, Operation.INTERPRET_HEALTH):
            return ResourceHealth.HEALTHY
        try:
            healthy = self.interpret_health(obj)
        except ResourceInterpretError:
            return ResourceHealth.UNKNOWN
        return ResourceHealth.HEALTHY if healthy else ResourceHealth.UNHEALTHY

    def get_dependencies(self, obj: Mapping[str, Any]) -> tuple[DependentObjectReference, ...]:
        """Objects to propagate with this one (InterpretDependency), validated like Karmada's."""
        layer = self._answering(obj, Operation.INTERPRET_DEPENDENCY)
        references = layer.get_dependencies(obj)
        if isinstance(layer, NativeInterpreter):
            self._validate_native_dependencies(obj, references)
        return tuple(dict.fromkeys(references))

    @staticmethod
    def _validate_native_dependencies(
        obj: Mapping[str, Any], references: tuple[DependentObjectReference, ...]
    ) -> None:
        for index, reference in enumerate(references):
            if not reference.api_version or not reference.kind:
                problem = "apiVersion and kind are required"
            elif not reference.name and reference.label_selector is None:
                problem = "name or labelSelector is required"
            else:
                continue
            api_version, kind = _gvk(obj)
            raise ResourceInterpretError(
                interpreter=f"native interpreter for {api_version}/{kind}",
                operation=Operation.INTERPRET_DEPENDENCY,
                subject=describe(obj),
                cause=f"dependencies[{index}] ({reference.kind} {reference.name!r}): {problem}",
                reason=FailureReason.INVALID_RESULT,
            )
