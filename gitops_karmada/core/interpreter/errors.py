"""``ResourceInterpretError``: an interpreter failure that names who answered, the operation and the cause."""

from __future__ import annotations

import enum

from gitops_karmada.model.errors import InterpretError


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
        self, *, interpreter: str, operation: str, subject: str, cause: str, reason: FailureReason
    ) -> None:
        self.interpreter = interpreter
        """``ResourceInterpreterCustomization "<name>"``, ``built-in interpreter for <gvk>`` or native."""
        self.operation = operation
        self.subject = subject
        """The object: ``<apiVersion>/<kind> <namespace>/<name>``."""
        self.cause = cause
        self.reason = reason
        super().__init__(f"{interpreter}: {operation} of {subject} failed: {cause}")
