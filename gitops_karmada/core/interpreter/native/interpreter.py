"""The native interpreter: the per-kind handlers behind one interface, failures as ResourceInterpretError."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError

from gitops_karmada.core.interpreter.errors import FailureReason, ResourceInterpretError
from gitops_karmada.core.interpreter.native.aggregate import AGGREGATE_HANDLERS
from gitops_karmada.core.interpreter.native.dependencies import DEPENDENCY_HANDLERS
from gitops_karmada.core.interpreter.native.health import HEALTH_HANDLERS
from gitops_karmada.core.interpreter.native.reflect import reflect_status
from gitops_karmada.core.interpreter.native.replicas import REPLICA_HANDLERS, REVISE_HANDLERS
from gitops_karmada.core.interpreter.native.retain import RETAIN_HANDLERS
from gitops_karmada.core.interpreter.operations import DependentObjectReference, Operation
from gitops_karmada.core.interpreter.unstructured import FieldTypeError, describe
from gitops_karmada.model.quantity import QuantityError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from gitops_karmada.core.interpreter.native.kinds import Gvk
    from gitops_karmada.model.bindings import AggregatedStatusItem, ReplicaRequirements

_T = TypeVar("_T")

_REGISTERED: Mapping[Operation, Mapping[Gvk, object]] = {
    Operation.INTERPRET_REPLICA: REPLICA_HANDLERS,
    Operation.REVISE_REPLICA: REVISE_HANDLERS,
    Operation.RETAIN: RETAIN_HANDLERS,
    Operation.AGGREGATE_STATUS: AGGREGATE_HANDLERS,
    Operation.INTERPRET_HEALTH: HEALTH_HANDLERS,
    Operation.INTERPRET_DEPENDENCY: DEPENDENCY_HANDLERS,
}


def _gvk(obj: Mapping[str, Any]) -> Gvk:
    return str(obj.get("apiVersion", "")), str(obj.get("kind", ""))


class NativeInterpreter:
    """Karmada's built-in Go interpreters for Kubernetes kinds."""

    def __init__(self, *, resource_quota_estimate: bool = False) -> None:
        self._with_priority_class = resource_quota_estimate

    def hook_enabled(self, api_version: str, kind: str, operation: Operation) -> bool:
        if operation is Operation.INTERPRET_STATUS:
            return True  # any kind falls back to its whole .status
        handlers = _REGISTERED.get(operation)
        return handlers is not None and (api_version, kind) in handlers

    def answered_by(self, api_version: str, kind: str, operation: Operation) -> str | None:
        return "native" if self.hook_enabled(api_version, kind, operation) else None

    @staticmethod
    def _call(obj: Mapping[str, Any], operation: Operation, run: Callable[[], _T]) -> _T:
        try:
            return run()
        except (FieldTypeError, QuantityError, ValidationError) as err:
            api_version, kind = _gvk(obj)
            raise ResourceInterpretError(
                interpreter=f"native interpreter for {api_version}/{kind}",
                operation=operation,
                subject=describe(obj),
                cause=str(err),
                reason=FailureReason.INVALID_OBJECT,
            ) from None

    def get_replicas(self, obj: Mapping[str, Any]) -> tuple[int, ReplicaRequirements | None]:
        handler = REPLICA_HANDLERS[_gvk(obj)]
        return self._call(obj, Operation.INTERPRET_REPLICA, lambda: handler(obj, self._with_priority_class))

    def revise_replica(self, obj: Mapping[str, Any], replicas: int) -> dict[str, Any]:
        handler = REVISE_HANDLERS[_gvk(obj)]
        return self._call(obj, Operation.REVISE_REPLICA, lambda: handler(obj, replicas))

    def retain(self, desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any]:
        handler = RETAIN_HANDLERS[_gvk(desired)]
        return self._call(desired, Operation.RETAIN, lambda: handler(desired, observed))

    def reflect_status(self, obj: Mapping[str, Any]) -> dict[str, Any] | None:
        return self._call(obj, Operation.INTERPRET_STATUS, lambda: reflect_status(_gvk(obj), obj))

    def aggregate_status(
        self, obj: Mapping[str, Any], items: Sequence[AggregatedStatusItem], now: str | None
    ) -> dict[str, Any]:
        handler = AGGREGATE_HANDLERS[_gvk(obj)]
        return self._call(obj, Operation.AGGREGATE_STATUS, lambda: handler(obj, items, now))

    def interpret_health(self, obj: Mapping[str, Any]) -> bool:
        handler = HEALTH_HANDLERS[_gvk(obj)]
        return self._call(obj, Operation.INTERPRET_HEALTH, lambda: handler(obj))

    def get_dependencies(self, obj: Mapping[str, Any]) -> tuple[DependentObjectReference, ...]:
        handler = DEPENDENCY_HANDLERS[_gvk(obj)]
        return self._call(obj, Operation.INTERPRET_DEPENDENCY, lambda: handler(obj))
