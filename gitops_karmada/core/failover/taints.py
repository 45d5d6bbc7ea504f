"""ClusterTaintPolicy matching and the NoExecute taint manager.

Two Karmada controllers, as pure rules over an injected ``now`` (the cluster controller's NoSchedule taints
from the Ready condition are ``core.observed.conditions``):

- ClusterTaintPolicy (``pkg/controllers/taint/clustertaintpolicy_controller.go``) adds and removes the
  NoExecute taints an admin configured, from conditions;
- the taint manager (``taint_manager.go``, ``pkg/util/helper/taint.go``) decides when a binding leaves a
  cluster whose NoExecute taints it does not tolerate (``placement.clusterTolerations``).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.codecs.times import format_time, parse_time, seconds
from gitops_karmada.core.failover.evict import (
    EVICTION_PRODUCER_TAINT_MANAGER,
    EVICTION_REASON_TAINT_UNTOLERATED,
)
from gitops_karmada.core.scheduler.filters import tolerates
from gitops_karmada.core.selectors import ZoneMatching, cluster_matches
from gitops_karmada.model.base import Taint, TaintEffect, Toleration, TolerationOperator
from gitops_karmada.model.bindings import GracefulEvictionTask
from gitops_karmada.model.policies import Placement
from gitops_karmada.model.purge_modes import canonical_purge_mode, flag_purge_mode
from gitops_karmada.model.taint_policies import MatchConditionOperator
from gitops_karmada.model.wellknown import NOT_READY_TAINT_KEY, UNREACHABLE_TAINT_KEY

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from datetime import datetime

    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.policies import FailoverBehavior, PurgeMode
    from gitops_karmada.model.taint_policies import ClusterTaintPolicy, MatchCondition

# -- the cluster controller ----------------------------------------------------------------------------------


# -- ClusterTaintPolicy --------------------------------------------------------------------------------------


def condition_matches(conditions: Mapping[str, str], match_conditions: Sequence[MatchCondition]) -> bool:
    """``conditionMatches``: every condition (ANDed) must exist with its status In/NotIn the values.

    ``conditions`` maps a condition type to its status. An empty list never matches; a missing condition
    type fails the match even for NotIn.
    """
    if not match_conditions:
        return False
    for match in match_conditions:
        status = conditions.get(match.condition_type)
        if status is None:
            return False
        if (status in match.status_values) != (match.operator is MatchConditionOperator.IN):
            return False
    return True


def apply_taint_policy(
    current: Sequence[Taint],
    conditions: Mapping[str, str],
    policy: ClusterTaintPolicy,
    now: datetime,
) -> tuple[Taint, ...]:
    """One policy's effect on a target cluster's taints: add on ``addOnConditions``, then remove on
    ``removeOnConditions``. Added taints get timeAdded = now and are de-duplicated by key and effect;
    removal is by key and effect."""
    spec = policy.spec
    result = list(current)
    if condition_matches(conditions, spec.add_on_conditions):
        for taint in spec.taints:
            if not any(t.key == taint.key and t.effect is taint.effect for t in result):
                result.append(
                    Taint(key=taint.key, value=taint.value, effect=taint.effect, time_added=format_time(now))
                )
    if condition_matches(conditions, spec.remove_on_conditions):
        doomed = {(t.key, t.effect) for t in spec.taints}
        result = [t for t in result if (t.key, t.effect) not in doomed]
    return tuple(result)


def apply_taint_policies(
    clusters: Sequence[Cluster],
    policies: Sequence[ClusterTaintPolicy],
    added: Mapping[str, Sequence[Taint]],
    now: datetime,
    zones: ZoneMatching = ZoneMatching.ANY,
) -> tuple[tuple[Cluster, ...], dict[str, tuple[Taint, ...]]]:
    """Every cluster with the taints the policies keep on it, and those taints by cluster (the state a
    later run starts from: a taint stays until a policy's removeOnConditions match, even when the policy
    is deleted, as in Karmada). The inventory's own taints are the user's and never removed here."""
    effective: list[Cluster] = []
    kept: dict[str, tuple[Taint, ...]] = {}
    for cluster in clusters:
        taints = tuple(added.get(cluster.name, ()))
        conditions = {c.type: c.status for c in cluster.status.conditions}
        for policy in policies:
            target = policy.spec.target_clusters
            if target is None or cluster_matches(cluster, target, zones):
                taints = apply_taint_policy(taints, conditions, policy, now)
        if taints:
            kept[cluster.name] = taints
        extra = [
            t for t in taints if not any(o.key == t.key and o.effect is t.effect for o in cluster.spec.taints)
        ]
        if extra:
            cluster = cluster.model_copy(
                update={"spec": cluster.spec.model_copy(update={"taints": (*cluster.spec.taints, *extra)})}
            )
        effective.append(cluster)
    return tuple(effective), kept


# -- the taint manager ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TaintDecision:
    """Whether a binding leaves a cluster now, else after how long (None: tolerated for ever)."""

    evict: bool
    evict_after_seconds: float | None


def no_execute_decision(
    taints: Iterable[Taint], tolerations: Sequence[Toleration], now: datetime
) -> TaintDecision:
    """``needEvictionWithCurrentTime``: evict when a NoExecute taint is not tolerated or its time is up.

    Each taint is matched to the first toleration that tolerates it; the binding stays until the earliest
    timeAdded + tolerationSeconds among those with seconds (reached exactly counts as up). A taint without
    timeAdded counts from ``now``: Karmada's webhook always stamps one, so only hand-written inventory lacks
    it, and then the tolerance starts when the tool first sees the taint.
    """
    no_execute = [t for t in taints if t.effect is TaintEffect.NO_EXECUTE]
    if not no_execute:
        return TaintDecision(False, None)
    remaining: float | None = None
    for taint in no_execute:
        used = next((tol for tol in tolerations if tolerates(tol, taint)), None)
        if used is None:
            return TaintDecision(True, 0)
        if used.toleration_seconds is None:
            continue
        added = parse_time(taint.time_added) if taint.time_added else now
        left = (added + seconds(used.toleration_seconds) - now).total_seconds()
        remaining = left if remaining is None else min(remaining, left)
    if remaining is None:
        return TaintDecision(False, None)
    if remaining <= 0:
        return TaintDecision(True, 0)
    return TaintDecision(False, remaining)


APPLIED_PLACEMENT_ANNOTATION = "policy.karmada.io/applied-placement"


class EnqueueAction(enum.StrEnum):
    SKIP = "skip"
    IMMEDIATE = "immediate"
    DELAYED = "delayed"


@dataclass(frozen=True, slots=True)
class EnqueueDecision:
    """When the taint manager looks at a binding on a NoExecute-tainted cluster (``at``: for DELAYED)."""

    action: EnqueueAction
    at: datetime | None = None


def enqueue_decision(
    now: datetime, taints: Iterable[Taint], annotations: Mapping[str, str]
) -> EnqueueDecision:
    """``enqueueBinding`` (v1.19; back-ported to v1.16.8, v1.17.5, v1.18.2): a binding whose placement
    tolerates every NoExecute taint of the cluster for ever is not checked at all (it was every 10 s); one
    that tolerates them for a while is checked when the earliest toleration runs out; one without a readable
    applied placement, or with a taint it does not tolerate, at once. The eviction decision itself is
    ``no_execute_decision``."""
    no_execute = [t for t in taints if t.effect is TaintEffect.NO_EXECUTE]
    if not no_execute:
        return EnqueueDecision(EnqueueAction.SKIP)
    try:
        placement = Placement.model_validate(json.loads(annotations[APPLIED_PLACEMENT_ANNOTATION]))
    except (KeyError, ValueError):
        return EnqueueDecision(EnqueueAction.IMMEDIATE)
    decision = no_execute_decision(no_execute, placement.cluster_tolerations, now)
    if decision.evict:
        return EnqueueDecision(EnqueueAction.IMMEDIATE)
    if decision.evict_after_seconds is None:
        return EnqueueDecision(EnqueueAction.SKIP)
    return EnqueueDecision(EnqueueAction.DELAYED, now + seconds(decision.evict_after_seconds))


def cluster_failover_purge_mode(failover: FailoverBehavior | None, flag_value: str) -> PurgeMode:
    """``helper.GetPurgeMode``: the binding's failover.cluster.purgeMode, else the eviction flag's mode."""
    if failover is not None and failover.cluster is not None:
        return canonical_purge_mode(failover.cluster.purge_mode)
    return flag_purge_mode(flag_value)


def taint_eviction_task(failover: FailoverBehavior | None, flag_value: str) -> GracefulEvictionTask:
    """The task the taint manager leaves (``fromCluster`` and replicas are filled in at eviction).

    Cluster-failover tasks never carry gracePeriodSeconds, suppressDeletion or clustersBeforeFailover.
    """
    return GracefulEvictionTask(
        from_cluster="",
        purge_mode=str(cluster_failover_purge_mode(failover, flag_value)),
        reason=EVICTION_REASON_TAINT_UNTOLERATED,
        producer=EVICTION_PRODUCER_TAINT_MANAGER,
    )


def parse_policy_taints(document: Mapping[str, object] | None) -> dict[str, tuple[Taint, ...]]:
    """The taints ClusterTaintPolicies keep on each cluster, from their state file (absent: none)."""
    clusters = document.get("clusters") if document else None
    if not isinstance(clusters, Mapping):
        return {}
    return {
        str(name): tuple(Taint.model_validate(t) for t in taints)
        for name, taints in clusters.items()
        if isinstance(taints, list)
    }


def policy_taints_document(kept: Mapping[str, Sequence[Taint]]) -> dict[str, object]:
    return {
        "apiVersion": "gitops-karmada.io/v1alpha1",
        "kind": "ClusterTaints",
        "clusters": {
            name: [t.model_dump(mode="json", by_alias=True, exclude_defaults=True) for t in taints]
            for name, taints in sorted(kept.items())
        },
    }


def default_tolerations(
    tolerations: Sequence[Toleration], *, not_ready_seconds: int, unreachable_seconds: int
) -> tuple[Toleration, ...]:
    """``tolerations`` plus karmada-webhook's defaults (``helper.AddTolerations``): a NoExecute toleration
    of the not-ready and unreachable taints, unless one for the same key and effect is there already.

    Karmada writes them into every policy when it is created; here they are added where the taint
    manager reads the placement, so the records keep the policy as written.
    """
    result = list(tolerations)
    for key, wait in ((NOT_READY_TAINT_KEY, not_ready_seconds), (UNREACHABLE_TAINT_KEY, unreachable_seconds)):
        if not any(t.key == key and t.effect in (None, TaintEffect.NO_EXECUTE) for t in result):
            result.append(
                Toleration(
                    key=key,
                    operator=TolerationOperator.EXISTS,
                    effect=TaintEffect.NO_EXECUTE,
                    toleration_seconds=wait,
                )
            )
    return tuple(result)
