"""``ResourceInterpretError``: an interpreter failure that names who answered, the operation and the cause."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from gitops_karmada.model.diagnostics import Diagnostic, Severity
from gitops_karmada.model.errors import InterpretError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.model.diagnostics import SourceRef
    from gitops_karmada.model.manifest import Manifest


class FailureReason(enum.StrEnum):
    """Why an interpreter call failed; lets callers tell a bad script from a bad object."""

    SCRIPT_ERROR = "ScriptError"
    """The Lua script raised an error (or does not define the entry function)."""
    INSTRUCTION_LIMIT = "InstructionLimit"
    MEMORY_LIMIT = "MemoryLimit"
    TIME_LIMIT = "TimeLimit"
    """A call outlived its wall-clock bound in the worker process, or the run's Lua time budget is spent."""
    INVALID_RESULT = "InvalidResult"
    """The answer cannot be used: wrong type, fractional replicas, a table JSON cannot represent."""
    INVALID_OBJECT = "InvalidObject"
    """The object does not have the shape its kind requires (Go's typed conversion would fail)."""
    NOT_IMPLEMENTED = "NotImplemented"


class ResourceInterpretError(InterpretError):
    """An interpreter failed: ``<interpreter>: <operation> of <object> failed: <cause>``."""

    def __init__(
        self,
        *,
        interpreter: str,
        operation: str,
        subject: str,
        cause: str,
        reason: FailureReason,
        customization: str | None = None,
        field: str = "",
    ) -> None:
        self.interpreter = interpreter
        """``ResourceInterpreterCustomization "<name>"``, ``built-in interpreter for <gvk>`` or native."""
        self.operation = operation
        self.subject = subject
        """The object: ``<apiVersion>/<kind> <namespace>/<name>``."""
        self.cause = cause
        self.reason = reason
        self.customization = customization
        """The ResourceInterpreterCustomization whose script failed (None: a built-in or native one)."""
        self.field = field
        """The script's field in that customization (``spec.customizations.<rule>.luaScript``)."""
        super().__init__(f"{interpreter}: {operation} of {subject} failed: {cause}")


def interpret_problem(
    err: InterpretError,
    template: Manifest,
    sources: Mapping[tuple[str, str, str], SourceRef],
    what: str,
    severity: Severity = Severity.ERROR,
) -> Diagnostic:
    """A failed interpretation of ``template`` as a diagnostic at the document to fix: the customization's
    script (its file, document and field) when one failed, else the template (``what``: what could not be
    done, e.g. ``cannot interpret``)."""
    subject = str(template.key)
    if isinstance(err, ResourceInterpretError) and err.customization is not None:
        source = sources.get(("ResourceInterpreterCustomization", "", err.customization))
        if source is not None:
            message = (
                f"{what} {subject} (from {template.source}): {err.interpreter}: "
                f"{err.operation} failed: {err.cause}"
            )
            return Diagnostic(severity, message, source, err.field, subject=subject)
    return Diagnostic(severity, f"{what}: {err}", template.source, "", subject=subject)
