"""PriorityBasedScheduling's priority (spec §5.1): a policy's ``schedulePriority`` resolved to a number.

With the gate on, Karmada's detector reads the ``scheduling.k8s.io/v1`` PriorityClass the policy names
(``priorityClassSource: KubePriorityClass``, the only source it supports) and writes its ``value`` into the
ResourceBinding's ``spec.schedulePriority.priority``; a PriorityClass that does not exist fails the binding,
and the template is not propagated. ClusterResourceBindings never get a priority. Here the PriorityClass
objects are the repository's own templates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.model.policies import SchedulePriority

KUBE_PRIORITY_CLASS = "KubePriorityClass"
PRIORITY_CLASS_GROUP = "scheduling.k8s.io"
PRIORITY_CLASS_KIND = "PriorityClass"


def priority_classes(templates: Iterable[Manifest]) -> dict[str, int | None]:
    """Every PriorityClass of the repository by name: its ``value`` (None when it has no integer value)."""
    found: dict[str, int | None] = {}
    for template in templates:
        key = template.key
        if key.group != PRIORITY_CLASS_GROUP or key.kind != PRIORITY_CLASS_KIND:
            continue
        value = template.body.get("value")
        found[key.name] = value if isinstance(value, int) and not isinstance(value, bool) else None
    return found


@dataclass(frozen=True, slots=True)
class ResolvedPriority:
    """A binding's priority, or why it cannot be built."""

    priority: int | None
    """``spec.schedulePriority.priority`` to record; None: the binding has none (gate off, no
    ``schedulePriority``, a ClusterResourceBinding, or ``problem``)."""
    problem: str = ""
    """Why Karmada's detector refuses to build the binding (the template is not propagated)."""

    @property
    def order(self) -> int:
        """The queue's priority: a binding without one counts as 0."""
        return self.priority or 0


NO_PRIORITY = ResolvedPriority(None)


def resolve_priority(
    wanted: SchedulePriority | None, classes: Mapping[str, int | None], *, enabled: bool, namespaced: bool
) -> ResolvedPriority:
    """``BuildResourceBinding``'s schedulePriority: the named PriorityClass's value, when the gate is on and
    the binding is a ResourceBinding (a namespaced template)."""
    if not enabled or not namespaced or wanted is None:
        return NO_PRIORITY
    source = wanted.priority_class_source or KUBE_PRIORITY_CLASS
    if source != KUBE_PRIORITY_CLASS:
        return ResolvedPriority(None, f"schedulePriority.priorityClassSource {source!r} is not supported yet")
    name = wanted.priority_class_name
    if name not in classes:
        return ResolvedPriority(
            None, f"PriorityClass {name!r} (schedulePriority.priorityClassName) is not in the repository"
        )
    value = classes[name]
    if value is None:
        return ResolvedPriority(None, f"PriorityClass {name!r} has no integer value")
    return ResolvedPriority(value)
