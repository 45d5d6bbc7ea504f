"""Pull-request diff of two rendered fleets: placement, impact and manifests (pure; formats included).

``compare(base, head, guardrails)`` takes two ``DiffSide`` values (a managed tree, its binding records and
its loaded inputs) and returns a ``PlanDiff``; ``render_text``, ``render_markdown`` and ``render_json``
format it. No I/O: the CLI and the GitHub Action read the sides and write the reports.
"""

from __future__ import annotations

import orjson

from gitops_karmada.core.diff.budget import COMMENT_LIMIT, STEP_SUMMARY_LIMIT, Budget, Unit
from gitops_karmada.core.diff.compare import compare
from gitops_karmada.core.diff.markdown import render_markdown
from gitops_karmada.core.diff.model import (
    ChangeKind,
    ClusterChange,
    DiffSide,
    GuardrailViolation,
    InputChange,
    ObjectDiff,
    PlacementCell,
    PlanDiff,
    ProblemKind,
    SecretKeys,
    TemplateProblem,
    WorkloadPlacement,
)
from gitops_karmada.core.diff.text import render_text
from gitops_karmada.model.guardrails import Guardrail, GuardrailKind, GuardrailSyntaxError, parse_guardrails

__all__ = [
    "COMMENT_LIMIT",
    "STEP_SUMMARY_LIMIT",
    "Budget",
    "ChangeKind",
    "ClusterChange",
    "DiffSide",
    "Guardrail",
    "GuardrailKind",
    "GuardrailSyntaxError",
    "GuardrailViolation",
    "InputChange",
    "ObjectDiff",
    "PlacementCell",
    "PlanDiff",
    "ProblemKind",
    "SecretKeys",
    "TemplateProblem",
    "Unit",
    "WorkloadPlacement",
    "compare",
    "parse_guardrails",
    "render_json",
    "render_markdown",
    "render_text",
]


def render_json(diff: PlanDiff) -> str:
    """``PlanDiff.to_dict()`` as indented JSON with a final newline."""
    return orjson.dumps(diff.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n"
