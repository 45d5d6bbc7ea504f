"""The error hierarchy. The CLI maps every ``GitopsKarmadaError`` to one line and exit code 1.

Permanent errors (input, fit, override, interpretation) are fixed only by a new commit; ``GitError``
may be temporary (a push race, a network blip) and is retried by the callers that can.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitops_karmada.model.diagnostics import Diagnostic, SourceRef


class GitopsKarmadaError(Exception):
    """Base of every error the tool reports as a domain failure (exit code 1)."""


class UsageError(GitopsKarmadaError):
    """What was asked cannot be understood as it is (a malformed or ambiguous reference): exit code 2."""


class NotFoundError(GitopsKarmadaError):
    """What was asked for is not in the repository (a template, binding, policy or cluster): exit code 1,
    with a hint naming what is there."""


class RunCancelled(Exception):  # noqa: N818 - a signal, not a failure: nothing went wrong
    """The caller asked a run to stop (a user commit arrived during a lower-priority run); nothing was
    written, and the next run covers what this one was doing."""


class InputError(GitopsKarmadaError):
    """A document that cannot be used: names the file, document index and field path."""

    def __init__(self, message: str, source: SourceRef | None = None, field: str = "") -> None:
        self.message = message
        self.source = source
        self.field = field
        where = " ".join(part for part in (str(source) if source else "", field) if part)
        super().__init__(f"{where}: {message}" if where else message)


class InputValidationError(GitopsKarmadaError):
    """The input has errors; ``diagnostics`` holds all of them, not only the first."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        errors = [d for d in self.diagnostics if d.is_error]
        super().__init__(f"{len(errors)} error(s) in the input; first: {errors[0] if errors else '?'}")


class SchedulingError(GitopsKarmadaError):
    """Scheduling could not produce a placement."""


class OverrideError(GitopsKarmadaError):
    """An override policy could not be applied (policy, rule index, cluster, template, path)."""


class InterpretError(GitopsKarmadaError):
    """A resource interpreter failed (customization name, operation, Lua error text)."""


class AdapterError(GitopsKarmadaError):
    """Something outside the core failed."""


class GitError(AdapterError):
    """A git operation failed: the operation, the revision and the tail of git's stderr."""

    def __init__(self, operation: str, detail: str, *, temporary: bool = False) -> None:
        self.operation = operation
        self.detail = detail
        self.temporary = temporary
        super().__init__(f"git {operation}: {detail}")


class GitHubError(AdapterError):
    """The GitHub REST API answered with an error status."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message
        super().__init__(f"GitHub API {status}: {message}")
