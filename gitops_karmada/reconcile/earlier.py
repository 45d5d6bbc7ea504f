"""Earlier: what the templates scheduled before one in the run's order (``reconcile.order``) leave for it.

Two things travel from one template to the next, each behind its gate:

* SchedulingOvercommitProtection (spec §6): what a workload was given on each cluster is assumed
  (``core.scheduler.assumptions``) and deducted from the general estimate of the templates after it. Only
  results scheduled in this run count: a result kept from an earlier run (nothing triggered a schedule) is
  taken to be in the capacity the clusters report already. A full run and an incremental one schedule the
  same templates (a template that is reused had no trigger), in the same order, so they deduct the same.
* WorkloadAffinity (spec §1.4-§1.5): a group member's clusters are its result of this run once it is
  scheduled, and until then its previous result (records, or the index for a template that is reused).
  A member that is reused keeps its previous result, so what the filters see does not depend on which
  templates a run redoes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gitops_karmada.core.layout import binding_name
from gitops_karmada.core.scheduler.assumptions import AssumptionCache, assumed_by_cluster, update_assumptions
from gitops_karmada.core.scheduler.workload_affinity import AffinityPeers, affinity_peers

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from gitops_karmada.core.scheduler.estimate import AssumedWorkload
    from gitops_karmada.core.scheduler.workload_affinity import GroupMember
    from gitops_karmada.model.bindings import TargetCluster, WorkloadAffinityGroups
    from gitops_karmada.model.keys import ObjectKey
    from gitops_karmada.reconcile.placed import Placed

Identity = tuple[str, str, str, str]

_NOW = 0.0
"""The assumption cache's clock: one run is one instant (no entry expires within it)."""


@dataclass(frozen=True, slots=True)
class Earlier:
    members: Mapping[Identity, GroupMember] = field(default_factory=dict)
    """Every workload-affinity group member with the clusters it targets so far in the run."""
    assumptions: AssumptionCache = field(default_factory=AssumptionCache)
    deduct: bool = False

    def peers(self, key: ObjectKey, groups: WorkloadAffinityGroups | None) -> AffinityPeers | None:
        """The placed members of ``groups`` the filters compare a candidate with."""
        return affinity_peers(
            groups, key.namespace, f"{key.namespace}/{binding_name(key)}", self.members.values()
        )

    def assumed(self, clusters: Collection[str]) -> Mapping[str, tuple[AssumedWorkload, ...]]:
        """What earlier templates were given on each of ``clusters`` (empty without the gate)."""
        if not self.deduct:
            return {}
        return assumed_by_cluster(self.assumptions, clusters, now=_NOW)

    def after(self, placed: Placed, previous: tuple[TargetCluster, ...]) -> Earlier:
        """The run after ``placed`` is admitted: its clusters are its group's, and what a schedule of this
        run gave it is assumed."""
        key = placed.claim.template.key
        ident = key.identity
        members = self.members
        member = members.get(ident)
        if member is not None:
            members = {**members, ident: replace(member, clusters=frozenset(t.name for t in placed.targets))}
        assumptions = self.assumptions
        scheduled = placed.reason is not None and placed.schedule is not None and placed.schedule.success
        if self.deduct and scheduled:
            assumptions = update_assumptions(
                assumptions,
                f"{key.namespace}/{binding_name(key)}",
                namespace=key.namespace,
                template_name=key.name,
                replicas=placed.replicas,
                requirements=placed.requirements,
                components=placed.components,
                previous=previous,
                result=placed.targets,
                enabled=True,
                now=_NOW,
            )
        if members is self.members and assumptions is self.assumptions:
            return self
        return replace(self, members=members, assumptions=assumptions)
