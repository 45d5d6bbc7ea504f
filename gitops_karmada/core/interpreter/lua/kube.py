"""Python halves of Karmada's ``kube`` Lua library (``luavm/kube.go``); the Lua wrappers live in host.lua.

Every function returns ``(True, value)`` or ``(False, message)`` and never raises into Lua: the wrapper
turns a message into a Lua error at the script's line, as gopher-lua's argument errors do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from gitops_karmada.core.codecs.gonumbers import approximate_float64
from gitops_karmada.core.interpreter.luaresult import prune_empty_tables
from gitops_karmada.core.interpreter.poddependencies import pod_template_dependencies
from gitops_karmada.core.interpreter.requirements import pod_template_requirements
from gitops_karmada.core.interpreter.unstructured import FieldTypeError
from gitops_karmada.model.quantity import Quantity, QuantityError

if TYPE_CHECKING:
    from collections.abc import Callable

Answer = tuple[bool, Any]


class KubeLibrary:
    """The helpers bound to one runtime: ``to_lua`` turns their Python answers into Lua values."""

    def __init__(self, *, resource_quota_estimate: bool, to_lua: Callable[[Any], Any]) -> None:
        self._with_priority_class = resource_quota_estimate
        self._to_lua = to_lua
        self.memory_exhausted = False
        """Set when building a Lua answer ran out of memory (the sandbox then starts a fresh runtime)."""

    def _answer(self, value: Any) -> Answer:
        try:
            return True, self._to_lua(value)
        except MemoryError:
            self.memory_exhausted = True
            return False, "not enough memory"

    def accurate_pod_requirements(self, template_json: str) -> Answer:
        """``kube.accuratePodRequirements(podTemplate)``: what the native interpreter computes."""
        try:
            template = prune_empty_tables(orjson.loads(template_json), ())
            requirements = pod_template_requirements(template, with_priority_class=self._with_priority_class)
        except (FieldTypeError, QuantityError, ValueError) as err:
            return False, f"accuratePodRequirements: {err}"
        return self._answer(None if requirements is None else requirements.to_api())

    def get_pod_dependencies(self, template_json: str, namespace: str) -> Answer:
        """``kube.getPodDependencies(podTemplate, namespace)``."""
        try:
            template = prune_empty_tables(orjson.loads(template_json), ())
            references = pod_template_dependencies(template, namespace)
        except (FieldTypeError, ValueError) as err:
            return False, f"getPodDependencies: {err}"
        return self._answer([reference.to_api() for reference in references])

    def resource_add(self, *quantities: str | None) -> Answer:
        """``kube.resourceAdd(q1, q2, ...)``: the canonical text of the sum (nil counts as 0)."""
        total = Quantity(0)
        for text in quantities:
            if text is None:
                continue
            try:
                total = total + _must_parse(text)
            except QuantityError as err:
                return False, str(err)
        return True, str(total)

    def get_resource_quantity(self, text: str) -> Answer:
        """``kube.getResourceQuantity(q)``: Go's approximate float64 value of the quantity."""
        try:
            return True, approximate_float64(text)
        except QuantityError as err:
            return False, f"cannot parse '{text}': {err}"


def _must_parse(text: str) -> Quantity:
    if text != text.strip():
        raise QuantityError(f"cannot parse '{text}': quantities must not have surrounding spaces")
    try:
        return Quantity.parse(text)
    except QuantityError as err:
        raise QuantityError(f"cannot parse '{text}': {err}") from None
