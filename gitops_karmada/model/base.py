"""Shared API building blocks: the pydantic base model, ObjectMeta, label selectors, tolerations.

Every Karmada object is a frozen pydantic model whose field aliases are Karmada's JSON names, so a
validation error's location is already the field path a user sees in YAML. Unknown fields are errors
(``extra="forbid"``): a typo such as ``clusterAfinity`` must not silently widen a placement.
"""

from __future__ import annotations

import enum
import functools
import re
import string
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from gitops_karmada.model.quantity import Quantity

ResourceList = dict[str, Quantity]
"""A Kubernetes ResourceList: resource name → quantity."""

_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_ALPHANUMERIC = frozenset(string.ascii_letters + string.digits)
_LABEL_CHARACTERS = string.ascii_letters + string.digits + "-_."
"""A label value: empty, or these, beginning and ending with an alphanumeric (IsValidLabelValue)."""


def is_dns1123_label(value: str) -> bool:
    return len(value) <= 63 and _DNS1123_LABEL.match(value) is not None


def is_dns1123_subdomain(value: str) -> bool:
    return len(value) <= 253 and _DNS1123_SUBDOMAIN.match(value) is not None


@functools.lru_cache(maxsize=8192)
def qualified_name_problem(key: str) -> str | None:
    """Why ``key`` is not a valid label/annotation key (Kubernetes IsQualifiedName), or None. Remembered: a
    fleet repeats a handful of keys on every template (50,000 checks at 20,000 templates)."""
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or not is_dns1123_subdomain(prefix)):
        return f"prefix {prefix!r} of key {key!r} must be a DNS-1123 subdomain"
    if not name or len(name) > 63 or _QUALIFIED_NAME.match(name) is None:
        return (f"key {key!r} must be 63 characters or less, begin and end with an alphanumeric character "
                "and contain only alphanumerics, '-', '_' or '.'")  # fmt: skip
    return None


def label_value_problem(value: str) -> str | None:
    # the regular expression's answer from two string methods in C: every label value of every template is
    # checked (50,000 at fleet XL), and the expression's backtracking made that a second
    if value and (
        len(value) > 63
        or value[0] not in _ALPHANUMERIC
        or value[-1] not in _ALPHANUMERIC
        or value.strip(_LABEL_CHARACTERS)
    ):
        return (f"label value {value!r} must be 63 characters or less, empty or begin and end with an "
                "alphanumeric character and contain only alphanumerics, '-', '_' or '.'")  # fmt: skip
    return None


def _check_labels(labels: dict[str, str] | None) -> dict[str, str] | None:
    for key, value in (labels or {}).items():
        problem = qualified_name_problem(key) or label_value_problem(value)
        if problem:
            raise ValueError(problem)
    return labels


def _check_annotation_keys(annotations: dict[str, str] | None) -> dict[str, str] | None:
    for key in annotations or {}:
        problem = qualified_name_problem(key)
        if problem:
            raise ValueError(problem)
    return annotations


Labels = Annotated[dict[str, str], AfterValidator(_check_labels)]
Annotations = Annotated[dict[str, str], AfterValidator(_check_annotation_keys)]


class ApiModel(BaseModel):
    """Base of all API models: frozen, camelCase aliases, unknown fields rejected."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        use_enum_values=False,
    )

    def to_api(self) -> dict[str, Any]:
        """The object as Karmada's JSON: aliases, and only fields that were given (Go's omitempty)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude_none=True)


class ObjectMeta(ApiModel):
    """Kubernetes ObjectMeta: the known fields only, so a misspelt ``lables`` is reported."""

    name: str = ""
    generate_name: str | None = None
    namespace: str | None = None
    uid: str | None = None
    labels: Labels = Field(default_factory=dict)
    annotations: Annotations = Field(default_factory=dict)
    # server-set fields a manifest exported from a live cluster carries; accepted and ignored
    self_link: str | None = None
    resource_version: str | None = None
    generation: int | None = None
    creation_timestamp: Any = None
    deletion_timestamp: Any = None
    deletion_grace_period_seconds: int | None = None
    owner_references: list[Any] | None = None
    finalizers: list[str] | None = None
    managed_fields: list[Any] | None = None


class SelectorOperator(enum.StrEnum):
    IN = "In"
    NOT_IN = "NotIn"
    EXISTS = "Exists"
    DOES_NOT_EXIST = "DoesNotExist"


class LabelSelectorRequirement(ApiModel):
    key: str
    operator: str
    """A SelectorOperator when valid; anything else is kept so that the selector can select nothing."""
    values: tuple[str, ...] = ()

    def problem(self) -> str | None:
        """What ``metav1.LabelSelectorAsSelector`` refuses in this requirement, or None."""
        if self.operator not in SelectorOperator.__members__.values():
            return f"{self.operator!r} is not a valid label selector operator"
        key_problem = qualified_name_problem(self.key)
        if key_problem:
            return key_problem
        if self.operator in (SelectorOperator.IN, SelectorOperator.NOT_IN) and not self.values:
            return f"values must be non-empty for operator {self.operator}"
        if self.operator in (SelectorOperator.EXISTS, SelectorOperator.DOES_NOT_EXIST) and self.values:
            return f"values must be empty for operator {self.operator}"
        return next(filter(None, map(label_value_problem, self.values)), None)


class LabelSelector(ApiModel):
    """metav1.LabelSelector. An empty selector (``{}``) matches everything; a nil one is not a selector.

    An invalid selector is accepted, as Karmada's admission accepts it, and selects nothing (Karmada's
    matchers treat ``LabelSelectorAsSelector``'s error as no match); ``problem`` says why.
    """

    match_labels: dict[str, str] = Field(default_factory=dict)
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()

    @functools.cached_property
    def problem(self) -> str | None:
        """What makes ``metav1.LabelSelectorAsSelector`` refuse this selector, or None when it is valid."""
        for key, value in self.match_labels.items():
            problem = qualified_name_problem(key) or label_value_problem(value)
            if problem:
                return f"matchLabels: {problem}"
        for i, requirement in enumerate(self.match_expressions):
            problem = requirement.problem()
            if problem:
                return f"matchExpressions[{i}]: {problem}"
        return None


class TolerationOperator(enum.StrEnum):
    EXISTS = "Exists"
    EQUAL = "Equal"
    LESS_THAN = "Lt"
    GREATER_THAN = "Gt"
    """``Lt``/``Gt``: Kubernetes' comparison operators. Karmada never lets them tolerate a taint, and from
    v1.18 its webhook rejects them in ``clusterTolerations`` (``core.inputs.webhook``)."""


class TaintEffect(enum.StrEnum):
    NO_SCHEDULE = "NoSchedule"
    PREFER_NO_SCHEDULE = "PreferNoSchedule"
    NO_EXECUTE = "NoExecute"


class Toleration(ApiModel):
    key: str = ""
    operator: TolerationOperator | None = None
    value: str = ""
    effect: TaintEffect | None = None
    toleration_seconds: int | None = None

    @model_validator(mode="after")
    def _exists_has_no_value(self) -> Toleration:
        # Karmada does not apply corev1's "operator must be Exists when key is empty": its own example
        # tolerates {effect: NoSchedule}, which then matches taints of any key whose value is empty
        if self.operator is TolerationOperator.EXISTS and self.value:
            raise ValueError("value must be empty when operator is Exists")
        return self


class Taint(ApiModel):
    key: str
    value: str = ""
    effect: TaintEffect
    time_added: str | None = None
