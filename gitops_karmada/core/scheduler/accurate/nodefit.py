"""Whether a node may take a replica: node selector, required node affinity, taints, the unschedulable flag.

kube-scheduler's rules as Karmada's estimator applies them to a nodeClaim (``pkg/estimator/server``,
``nodeutil.IsNodeAffinityMatched`` / ``IsTolerationMatched``):

* ``nodeSelector``: every key=value must be a node label;
* ``hardNodeAffinity`` (``nodeaffinity.LazyErrorNodeSelector``): the terms are ORed, a term's expressions and
  fields ANDed; an empty term or a term that does not parse (bad operator, Gt/Lt without one integer, In
  without values, ...) selects nothing, the other terms still count; no term at all selects nothing;
  ``matchFields`` knows only ``metadata.name``;
* taints: only NoSchedule and NoExecute count, each must be tolerated;
* ``spec.unschedulable``: rejected unless the pod tolerates ``node.kubernetes.io/unschedulable:NoSchedule``
  (kube-scheduler's NodeUnschedulable; a cordoned node normally carries that taint as well).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.scheduler.filters import find_untolerated_taint, taint_to_string, tolerates
from gitops_karmada.model.base import Taint, TaintEffect, label_value_problem, qualified_name_problem

if TYPE_CHECKING:
    from gitops_karmada.core.scheduler.snapshot import SnapshotNode
    from gitops_karmada.model.base import Toleration
    from gitops_karmada.model.bindings import NodeClaim

UNSCHEDULABLE_TAINT = Taint(key="node.kubernetes.io/unschedulable", effect=TaintEffect.NO_SCHEDULE)
AFFINITY_REASON = "node(s) didn't match Pod's node affinity/selector"
UNSCHEDULABLE_REASON = "node(s) were unschedulable"
NODE_NAME_FIELD = "metadata.name"
_INT64 = re.compile(r"^[+-]?[0-9]+$")
_SCHEDULING_EFFECTS = (TaintEffect.NO_SCHEDULE, TaintEffect.NO_EXECUTE)


class _Operator(enum.StrEnum):
    IN = "In"
    NOT_IN = "NotIn"
    EXISTS = "Exists"
    DOES_NOT_EXIST = "DoesNotExist"
    GT = "Gt"
    LT = "Lt"


class _TermError(ValueError):
    """A node selector term that does not parse (the term then selects nothing)."""


def _parse_int64(text: str) -> int | None:
    """Go's ``strconv.ParseInt(text, 10, 64)``, None when it fails."""
    if _INT64.match(text) is None:
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


@dataclass(frozen=True, slots=True)
class _LabelRequirement:
    key: str
    operator: _Operator
    values: frozenset[str]
    number: int = 0
    """The Gt/Lt operand."""

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        match self.operator:
            case _Operator.IN:
                return present and labels[self.key] in self.values
            case _Operator.NOT_IN:
                return not present or labels[self.key] not in self.values
            case _Operator.EXISTS:
                return present
            case _Operator.DOES_NOT_EXIST:
                return not present
        value = _parse_int64(labels[self.key]) if present else None
        if value is None:
            return False
        return value > self.number if self.operator is _Operator.GT else value < self.number


@dataclass(frozen=True, slots=True)
class _FieldRequirement:
    key: str
    equal: bool
    value: str

    def matches(self, fields: Mapping[str, str]) -> bool:
        return (fields.get(self.key, "") == self.value) is self.equal


@dataclass(frozen=True, slots=True)
class _Term:
    labels: tuple[_LabelRequirement, ...] | None
    fields: tuple[_FieldRequirement, ...] | None

    def matches(self, labels: Mapping[str, str], fields: Mapping[str, str]) -> bool:
        if self.labels is not None and not all(r.matches(labels) for r in self.labels):
            return False
        return self.fields is None or all(r.matches(fields) for r in self.fields)


def _requirement_parts(raw: Any) -> tuple[str, str, tuple[str, ...]]:
    if not isinstance(raw, Mapping):
        raise _TermError("a requirement must be an object")
    key, operator, values = raw.get("key", ""), raw.get("operator", ""), raw.get("values") or ()
    if not isinstance(key, str) or not isinstance(operator, str):
        raise _TermError("key and operator must be strings")
    if (
        isinstance(values, str)
        or not isinstance(values, Sequence)
        or not all(isinstance(v, str) for v in values)
    ):
        raise _TermError("values must be a list of strings")
    return key, operator, tuple(values)


def _label_requirement(raw: Any) -> _LabelRequirement:
    """``labels.NewRequirement`` with its validation."""
    key, operator_text, values = _requirement_parts(raw)
    try:
        operator = _Operator(operator_text)
    except ValueError:
        raise _TermError(f"{operator_text!r} is not a valid node selector operator") from None
    problem = qualified_name_problem(key)
    if problem:
        raise _TermError(problem)
    number = 0
    if operator in (_Operator.IN, _Operator.NOT_IN) and not values:
        raise _TermError(f"for {operator} operator, values set can't be empty")
    if operator in (_Operator.EXISTS, _Operator.DOES_NOT_EXIST) and values:
        raise _TermError(f"values set must be empty for {operator}")
    if operator in (_Operator.GT, _Operator.LT):
        parsed = _parse_int64(values[0]) if len(values) == 1 else None
        if parsed is None:
            raise _TermError(f"for {operator} operator, exactly one integer value is required")
        number = parsed
    for value in values:
        problem = label_value_problem(value)
        if problem:
            raise _TermError(problem)
    return _LabelRequirement(key, operator, frozenset(values), number)


def _field_requirement(raw: Any) -> _FieldRequirement:
    key, operator, values = _requirement_parts(raw)
    if len(values) != 1:
        raise _TermError("a node field selector requirement must have exactly one value")
    if operator not in (_Operator.IN, _Operator.NOT_IN):
        raise _TermError(f"{operator!r} is not a supported node field selector operator (In, NotIn)")
    return _FieldRequirement(key, operator == _Operator.IN, values[0])


def _term(raw: Any) -> _Term | None:
    """One nodeSelectorTerm; None for an empty term (it selects nothing). Raises _TermError."""
    if not isinstance(raw, Mapping):
        raise _TermError("a node selector term must be an object")
    expressions = raw.get("matchExpressions") or ()
    fields = raw.get("matchFields") or ()
    if not isinstance(expressions, Sequence) or not isinstance(fields, Sequence):
        raise _TermError("matchExpressions and matchFields must be lists")
    if not expressions and not fields:
        return None
    return _Term(
        labels=tuple(_label_requirement(r) for r in expressions) if expressions else None,
        fields=tuple(_field_requirement(r) for r in fields) if fields else None,
    )


def _affinity_terms(raw: Mapping[str, Any]) -> tuple[tuple[_Term, ...], tuple[str, ...]]:
    terms_raw = raw.get("nodeSelectorTerms") or ()
    if not isinstance(terms_raw, Sequence) or isinstance(terms_raw, str):
        return (), ("nodeSelectorTerms must be a list",)
    terms: list[_Term] = []
    errors: list[str] = []
    for index, raw_term in enumerate(terms_raw):
        try:
            term = _term(raw_term)
        except _TermError as err:
            errors.append(f"nodeSelectorTerms[{index}]: {err}")
            continue
        if term is not None:
            terms.append(term)
    return tuple(terms), tuple(errors)


@dataclass(frozen=True, slots=True)
class NodeClaimFilter:
    """A nodeClaim compiled once, asked per node."""

    node_selector: Mapping[str, str] | None = None
    affinity: tuple[_Term, ...] | None = None
    """None: no required node affinity; empty: an affinity that selects no node."""
    affinity_errors: tuple[str, ...] = ()
    tolerations: tuple[Toleration, ...] = ()

    @classmethod
    def of(cls, claim: NodeClaim | None) -> NodeClaimFilter:
        if claim is None:
            return cls()
        affinity: tuple[_Term, ...] | None = None
        errors: tuple[str, ...] = ()
        if claim.hard_node_affinity is not None:
            affinity, errors = _affinity_terms(claim.hard_node_affinity)
        return cls(claim.node_selector, affinity, errors, claim.tolerations)

    def matches_affinity(self, node: SnapshotNode) -> bool:
        labels = node.labels
        if self.node_selector and any(labels.get(k) != v for k, v in self.node_selector.items()):
            return False
        if self.affinity is None:
            return True
        fields = {NODE_NAME_FIELD: node.name}
        return any(term.matches(labels, fields) for term in self.affinity)

    def rejection(self, node: SnapshotNode) -> str:
        """Why ``node`` cannot take the replica, "" when it can (resources aside)."""
        if node.unschedulable and not any(tolerates(t, UNSCHEDULABLE_TAINT) for t in self.tolerations):
            return UNSCHEDULABLE_REASON
        if not self.matches_affinity(node):
            return AFFINITY_REASON
        taint = find_untolerated_taint(
            (t for t in node.taints if t.effect in _SCHEDULING_EFFECTS), self.tolerations
        )
        return "" if taint is None else f"node(s) had untolerated taint {{{taint_to_string(taint)}}}"
