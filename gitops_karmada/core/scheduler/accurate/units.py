"""Karmada's ``util.Resource`` for node arithmetic: integer units and ``MaxDivided``.

cpu counts in millicores, memory, ephemeral-storage, pods and scalar resources (extended, hugepages,
``kubernetes.io/`` names) in whole units rounded away from zero; other names are dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from gitops_karmada.core.interpreter.requirements import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    is_scalar_resource_name,
)
from gitops_karmada.model.quantity import Format, Quantity

_HUGEPAGES_PREFIX = "hugepages-"
RequestUnits = tuple[tuple[str, int], ...]
"""A per-replica request in units: (resource, units), pods left out (a replica takes one slot)."""
CORE_RESOURCES = (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)


def resource_units(resources: Mapping[str, Quantity]) -> dict[str, int]:
    """``util.NewResource``: the four core resources always present, scalars when listed (even as 0)."""
    units = dict.fromkeys(CORE_RESOURCES, 0)
    for name, quantity in resources.items():
        if name == CPU:
            units[CPU] += quantity.milli_value()
        elif name in CORE_RESOURCES:
            units[name] += quantity.ceil_value()
        elif is_scalar_resource_name(name):
            units[name] = units.get(name, 0) + quantity.ceil_value()
    return units


def request_units(request: Mapping[str, Quantity]) -> RequestUnits:
    """What ``MaxDivided`` reads of a request, in a stable order (core resources, then scalars by name)."""
    units = resource_units(request)
    core = tuple((name, units[name]) for name in (CPU, MEMORY, EPHEMERAL_STORAGE) if units[name] > 0)
    scalars = tuple((name, units[name]) for name in sorted(units) if name not in CORE_RESOURCES)
    return core + scalars


def max_divided(free: Mapping[str, int], request: RequestUnits) -> tuple[int, str]:
    """``Resource.MaxDivided``: how many requests fit in ``free`` (never negative), and what bound it.

    Starts from the free pod slots; a requested scalar the node does not list allows 0.
    """
    count, bound = free.get(PODS, 0), PODS
    for name, need in request:
        have = free.get(name)
        if have is None:
            return 0, name
        if need > 0 and have // need < count:
            count, bound = have // need, name
    return max(count, 0), bound


def unit_text(name: str, value: int) -> str:
    """One amount in units as a readable quantity: cpu ``1500m``, memory ``8Gi``, pods ``110``."""
    if name == CPU:
        return str(Quantity(Fraction(value, 1000), Format.DECIMAL_SI))
    if name in (MEMORY, EPHEMERAL_STORAGE) or name.startswith(_HUGEPAGES_PREFIX):
        return str(Quantity(value, Format.BINARY_SI))
    return str(Quantity(value, Format.DECIMAL_SI))


def units_to_api(units: Mapping[str, int] | RequestUnits) -> dict[str, str]:
    """Units as readable quantities, by name; zero entries other than cpu, memory and pods left out."""
    pairs = units.items() if isinstance(units, Mapping) else units
    return {
        name: unit_text(name, value)
        for name, value in sorted(pairs)
        if value != 0 or name in (CPU, MEMORY, PODS)
    }
