"""Interpret: try ResourceInterpreterCustomizations offline, like ``karmadactl interpret``.

A check compiles every script in the sandbox and checks its entry function; an operation runs on an
object with the same chain the pipeline uses (customizations, then the built-in third-party interpreters,
then the native ones), so a customization is tried before it is committed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.inputs.loading import load
from gitops_karmada.core.interpreter import Operation, ResourceInterpreter, check_customization
from gitops_karmada.model.config import ToolConfig
from gitops_karmada.model.errors import UsageError
from gitops_karmada.usecases.source import read_source

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from gitops_karmada.model.bindings import AggregatedStatusItem
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.interpretation import ResourceInterpreterCustomization


@dataclass(frozen=True, slots=True)
class Customizations:
    found: tuple[ResourceInterpreterCustomization, ...]
    errors: tuple[Diagnostic, ...]
    """Errors of the files read: with any, ``found`` is not to be used."""


@dataclass(frozen=True, slots=True)
class CustomizationCheck:
    name: str
    problems: tuple[str, ...]
    """Empty: every script compiles and has its entry function."""


def load_customizations(files: Sequence[Path], repo: Path, rev: str, worktree: bool) -> Customizations:
    """The customizations of ``files`` (none: those of the repository at ``rev``, or on disk)."""
    if not files:
        loaded = read_source(repo, rev, worktree).request.snapshot.load()
    else:
        loaded = load({str(path): path.read_bytes() for path in files}, ToolConfig())
    errors = tuple(d for d in loaded.diagnostics if d.is_error)
    return Customizations(loaded.inputs.customizations, errors)


def check_customizations(
    customizations: Sequence[ResourceInterpreterCustomization],
) -> tuple[CustomizationCheck, ...]:
    """Each customization's scripts compiled in the sandbox, its entry functions checked."""
    return tuple(CustomizationCheck(c.name, tuple(check_customization(c))) for c in customizations)


def interpreter_for(
    customizations: Sequence[ResourceInterpreterCustomization], *, resource_quota_estimate: bool = False
) -> ResourceInterpreter:
    """The pipeline's chain of interpreters with ``customizations`` first."""
    return ResourceInterpreter(customizations, resource_quota_estimate=resource_quota_estimate)


def answered_by(
    interpreter: ResourceInterpreter,
    operation: Operation,
    desired: Mapping[str, Any] | None,
    observed: Mapping[str, Any] | None,
) -> str | None:
    """Who answers ``operation`` for the object given (a customization, a built-in interpreter, nobody)."""
    subject = desired or observed or {}
    return interpreter.answered_by(
        str(subject.get("apiVersion", "")), str(subject.get("kind", "")), operation
    )


def run_operation(
    interpreter: ResourceInterpreter,
    operation: Operation,
    desired: Mapping[str, Any] | None,
    observed: Mapping[str, Any] | None,
    *,
    replicas: int | None = None,
    status: Sequence[AggregatedStatusItem] = (),
    now: str,
) -> Any:
    """What ``operation`` answers, as karmadactl prints it. Retain takes both objects, every other operation
    one; ``replicas``: ReviseReplica's count; ``status`` and ``now``: AggregateStatus's items and what its
    scripts see as now."""
    if operation is Operation.RETAIN:
        if desired is None or observed is None:
            raise UsageError("Retain needs both the desired and the observed object")
        return interpreter.retain(desired, observed)
    obj = desired if desired is not None else observed
    if obj is None:
        raise UsageError(f"{operation.value} needs an object")
    match operation:
        case Operation.INTERPRET_REPLICA:
            count, requirements = interpreter.get_replicas(obj)
            return {"replicas": count, **({"requires": requirements.to_api()} if requirements else {})}
        case Operation.INTERPRET_COMPONENT:
            return {"components": [c.to_api() for c in interpreter.get_components(obj)]}
        case Operation.REVISE_REPLICA:
            if replicas is None:
                raise UsageError("ReviseReplica needs the desired replica count")
            return interpreter.revise_replica(obj, replicas)
        case Operation.AGGREGATE_STATUS:
            return interpreter.aggregate_status(obj, status, now=now)
        case Operation.INTERPRET_STATUS:
            return {"status": interpreter.reflect_status(obj)}
        case Operation.INTERPRET_HEALTH:
            return {"healthy": interpreter.interpret_health(obj)}
        case Operation.INTERPRET_DEPENDENCY:
            return {"dependencies": [d.to_api() for d in interpreter.get_dependencies(obj)]}
    raise UsageError(f"unsupported operation {operation}")
