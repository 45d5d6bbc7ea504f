"""ResourceList arithmetic for quotas: exact sums and deltas, key filters, Karmada's integer resource model.

Exact operations follow ``k8s.io/apiserver/pkg/quota/v1`` (``Add``, ``Subtract``) on Quantities; the integer
model is Karmada's ``util.Resource`` (cpu in millicores, everything else in whole units, rounded away from
zero, non-positive entries and unknown names dropped) which the ResourceBinding webhook sums through.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.core.interpreter.requirements import ResourceTotals
from gitops_karmada.model.quantity import Quantity

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

ResourceMap = dict[str, Quantity]
"""A ResourceList value built here: keys in sorted order, so output never depends on insertion order."""

_ZERO = Quantity(0)


def sorted_resources(resources: Mapping[str, Quantity]) -> ResourceMap:
    return {name: resources[name] for name in sorted(resources)}


def add_resources(left: Mapping[str, Quantity], right: Mapping[str, Quantity]) -> ResourceMap:
    """``quota.Add``: the union of keys, values added exactly (a zero takes the other operand's format)."""
    total = dict(left)
    for name, quantity in right.items():
        total[name] = total.get(name, _ZERO) + quantity
    return sorted_resources(total)


def sum_resources(lists: Iterable[Mapping[str, Quantity]]) -> ResourceMap:
    total: ResourceMap = {}
    for resources in lists:
        total = add_resources(total, resources)
    return total


def subtract_resources(new: Mapping[str, Quantity], old: Mapping[str, Quantity]) -> ResourceMap:
    """``new - old`` over the union of keys (a key only in ``old`` becomes its negation)."""
    delta = {name: quantity - old[name] if name in old else quantity for name, quantity in new.items()}
    delta.update({name: -quantity for name, quantity in old.items() if name not in new})
    return sorted_resources(delta)


def restrict_resources(resources: Mapping[str, Quantity], keys: Iterable[str]) -> ResourceMap:
    """Only the entries whose name is one of ``keys``."""
    wanted = set(keys)
    return sorted_resources({name: q for name, q in resources.items() if name in wanted})


def is_effectively_zero(resources: Mapping[str, Quantity]) -> bool:
    return all(quantity.is_zero() for quantity in resources.values())


def integer_resource_sum(*lists: Mapping[str, Quantity]) -> ResourceMap:
    """``util.NewResource(a).Add(b)...ResourceList()``: each term rounded to integer units before adding.

    cpu → millicores, memory/ephemeral-storage/pods/scalar resources → whole units (away from zero); the
    result keeps positive entries only, cpu as a milli quantity, memory and hugepages BinarySI.
    """
    totals = ResourceTotals()
    for resources in lists:
        totals.add(resources)
    return sorted_resources(totals.resource_list())


def resources_to_api(resources: Mapping[str, Quantity]) -> dict[str, str]:
    """A ResourceList as Kubernetes JSON: canonical quantity strings, keys sorted."""
    return {name: str(resources[name]) for name in sorted(resources)}
