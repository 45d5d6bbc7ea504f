"""Order: the order in which the run schedules its templates, fixed before any is redone.

Karmada's scheduler takes one binding at a time from its queue: highest ``spec.schedulePriority.priority``
first when gate PriorityBasedScheduling is on, then enqueue order (spec §5.2). Enqueue order is event
order, which Git does not have, so the run fixes its own (spec §1.6, the recommended order):

1. templates that others require (``propagateDeps``) after the rest: they are not scheduled, they follow
   their requirers' clusters;
2. schedulePriority, highest first (gate on; a binding without one counts as 0). The priority is the value
   of the PriorityClass the policy names, read from the repository's own PriorityClass templates
   (``core.scheduler.priority``);
3. templates whose previous record has a target list before those that have none, so a group's anchor
   stays the same from run to run;
4. namespace, then binding name (``<name>-<kind>``), then the template's identity, ascending.

The order decides which template is given scarce capacity first (SchedulingOvercommitProtection), which
one anchors a workload-affinity group, and which is admitted first by a FederatedResourceQuota. A template
redone in an incremental run takes the same place as in a full run: every key above is the template's
own. What the templates scheduled earlier leave for the next is ``reconcile.earlier``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.layout import binding_name
from gitops_karmada.core.scheduler.priority import (
    NO_PRIORITY,
    ResolvedPriority,
    priority_classes,
    resolve_priority,
)
from gitops_karmada.core.scheduler.workload_affinity import GroupMember, affinity_groups
from gitops_karmada.model.config import FeatureGate

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.reconcile.judge import Judgement
    from gitops_karmada.reconcile.prepare import Prepared
    from gitops_karmada.reconcile.scope import Scope

Identity = tuple[str, str, str, str]


@dataclass(frozen=True, slots=True)
class SchedulingOrder:
    templates: tuple[Manifest, ...]
    """The scope's templates in the order the run schedules them."""
    priorities: Mapping[Identity, ResolvedPriority]
    """Each template's schedulePriority (only those whose policy asks for one, with the gate on)."""
    members: Mapping[Identity, GroupMember]
    """The templates in a workload-affinity group (gate WorkloadAffinity), with the clusters their previous
    result targets: what the filters see of a member the run has not scheduled yet."""
    deduct: bool
    """Gate SchedulingOvercommitProtection: what a template is given is deducted before the next estimate."""

    def priority(self, identity: Identity) -> ResolvedPriority:
        return self.priorities.get(identity, NO_PRIORITY)

    def interacting(self, identity: Identity) -> bool:
        """Whether the template's outcome depends on the templates before it (or feeds those after it), so
        it must be redone in order rather than fanned out."""
        return self.deduct or identity in self.members


def order(prepared: Prepared, scoped: Scope, judged: Judgement) -> SchedulingOrder:
    ctx = prepared.ctx
    by_priority = ctx.gate(FeatureGate.PRIORITY_BASED_SCHEDULING)
    grouping = ctx.gate(FeatureGate.WORKLOAD_AFFINITY)
    classes = priority_classes(prepared.templates) if by_priority else {}
    priorities: dict[Identity, ResolvedPriority] = {}
    members: dict[Identity, GroupMember] = {}
    keys: dict[Identity, tuple[object, ...]] = {}
    if grouping:
        # every member, the templates a partial run keeps or not: one that stands keeps its recorded clusters
        members = _members(prepared, scoped, judged)
    for template in scoped.templates:
        key = template.key
        ident = key.identity
        match = scoped.matches.get(ident)
        policy = match.policy if match is not None else None
        required = ident in scoped.requirers
        if policy is not None and by_priority:
            resolved = resolve_priority(
                policy.spec.schedule_priority, classes, enabled=True, namespaced=bool(key.namespace)
            )
            if resolved != NO_PRIORITY:
                priorities[ident] = resolved
        member = members.get(ident)
        if member is not None:
            placed = bool(member.clusters)
        else:
            placed = not required and bool(_previous_placement(prepared, scoped, judged, ident))
        keys[ident] = (
            required,
            -priorities.get(ident, NO_PRIORITY).order if by_priority else 0,
            not placed,
            key.namespace,
            binding_name(key),
            ident,
        )
    ordered = tuple(sorted(scoped.templates, key=lambda t: keys[t.key.identity]))
    return SchedulingOrder(
        templates=ordered,
        priorities=priorities,
        members=members,
        deduct=ctx.gate(FeatureGate.SCHEDULING_OVERCOMMIT_PROTECTION),
    )


def _members(prepared: Prepared, scoped: Scope, judged: Judgement) -> dict[Identity, GroupMember]:
    """Every template in a workload-affinity group, with the clusters its previous result targets."""
    members: dict[Identity, GroupMember] = {}
    for template in prepared.templates:
        key = template.key
        match = scoped.matches.get(key.identity)
        if match is None or match.policy is None or not key.namespace:
            continue
        groups = affinity_groups(template.body, match.policy.spec.placement, enabled=True, namespaced=True)
        if groups is not None:
            placed = _previous_clusters(prepared, scoped, judged, key.identity)
            members[key.identity] = GroupMember(
                f"{key.namespace}/{binding_name(key)}", key.namespace, groups, placed
            )
    return members


def _previous_clusters(
    prepared: Prepared, scoped: Scope, judged: Judgement, identity: Identity
) -> frozenset[str]:
    """The clusters the template's previous result targets: its index entry's when it is reused or stands
    (its record is not read), else its record's (read already for the templates to redo)."""
    return frozenset(_previous_placement(prepared, scoped, judged, identity))


def _previous_placement(
    prepared: Prepared, scoped: Scope, judged: Judgement, identity: Identity
) -> Collection[str]:
    """``_previous_clusters``, as it is recorded (no set made: the order asks only whether there are any)."""
    verdict = judged.verdicts.get(identity)
    index = prepared.previous.index
    if verdict is not None:
        entry = verdict.entry
    else:  # required, or not kept by a partial run: what the index records of it
        entry = scoped.standing.get(identity) or (index.entries.get(identity) if index is not None else None)
    if entry is not None:
        return entry.placement
    binding = prepared.previous.binding(identity)
    return [c.name for c in binding.spec.clusters] if binding is not None else ()
