"""Per-cluster facts the scheduler derives once per fleet (``ClusterIndex``), not once per template.

The pipeline schedules thousands of templates over the same clusters; building a ``ClusterIndex`` once and
passing it to ``schedule()`` instead of the raw cluster list saves re-deriving taints, zones, API sets and
capacity estimates. The index memoises general-estimator answers per (cluster, resource request); the memo is
an implementation detail and never changes an answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from gitops_karmada.core.run_memo import RunMemo
from gitops_karmada.model.base import Taint, TaintEffect
from gitops_karmada.model.errors import InputError
from gitops_karmada.model.wellknown import NOT_READY_TAINT_KEY, UNREACHABLE_TAINT_KEY

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Iterator, Sequence

    from gitops_karmada.model.clusters import Cluster

_T = TypeVar("_T")

_SCHEDULING_EFFECTS = (TaintEffect.NO_SCHEDULE, TaintEffect.NO_EXECUTE)


def implicit_taints(cluster: Cluster) -> tuple[Taint, ...]:
    """The NoSchedule taint Karmada's cluster controller would keep on this cluster, if it lacks it.

    Deliberate choice of this project: a Cluster object in Git carries conditions but nobody adds the
    controller's taints, so they are derived here: Ready=False → ``cluster.karmada.io/not-ready:NoSchedule``,
    Ready=Unknown → ``cluster.karmada.io/unreachable:NoSchedule`` (``taintClusterByCondition``). A cluster
    without a Ready condition gets none, as in Karmada. A taint already present with the same key and effect
    is not duplicated.
    """
    ready = cluster.condition("Ready")
    if ready is None or ready.status == "True":
        return ()
    key = NOT_READY_TAINT_KEY if ready.status == "False" else UNREACHABLE_TAINT_KEY
    if any(t.key == key and t.effect is TaintEffect.NO_SCHEDULE for t in cluster.spec.taints):
        return ()
    return (Taint(key=key, effect=TaintEffect.NO_SCHEDULE),)


def effective_taints(cluster: Cluster) -> tuple[Taint, ...]:
    """``spec.taints`` plus the implicit controller taints."""
    return cluster.spec.taints + implicit_taints(cluster)


@dataclass(frozen=True, slots=True)
class ClusterFacts:
    """What the filters and scores need to know about one cluster, computed once."""

    cluster: Cluster
    name: str
    deleting: bool
    scheduling_taints: tuple[Taint, ...]
    """Effective taints with effect NoSchedule or NoExecute (the only ones the filter considers)."""
    implicit_taints: tuple[Taint, ...]
    provider: str
    region: str
    zones: tuple[str, ...]
    enabled_apis: frozenset[tuple[str, str]] | None
    """(groupVersion, kind) pairs from ``status.apiEnablements``; None when the status does not say."""

    @classmethod
    def of(cls, cluster: Cluster) -> ClusterFacts:
        enablements = cluster.status.api_enablements
        apis = (
            None
            if enablements is None
            else frozenset((e.group_version, r.kind) for e in enablements for r in e.resources)
        )
        extra = implicit_taints(cluster)
        return cls(
            cluster=cluster,
            name=cluster.name,
            deleting=cluster.metadata.deletion_timestamp is not None,
            scheduling_taints=tuple(
                t for t in cluster.spec.taints + extra if t.effect in _SCHEDULING_EFFECTS
            ),
            implicit_taints=extra,
            provider=cluster.spec.provider,
            region=cluster.spec.region,
            zones=cluster.spec.effective_zones(),
            enabled_apis=apis,
        )


class ClusterIndex:
    """The fleet as the scheduler sees it: clusters in input order, their facts, and an estimate memo."""

    __slots__ = ("_by_name", "_facts", "_memo", "_remembered")

    def __init__(self, clusters: Sequence[Cluster]) -> None:
        facts = tuple(ClusterFacts.of(c) for c in clusters)
        by_name: dict[str, ClusterFacts] = {}
        for fact in facts:
            if fact.name in by_name:
                raise InputError(f"cluster {fact.name!r} is defined more than once")
            by_name[fact.name] = fact
        self._facts = facts
        self._by_name = by_name
        self._memo: dict[Hashable, dict[str, Any]] = {}
        self._remembered = RunMemo()  # one run's: never begins another

    def __iter__(self) -> Iterator[ClusterFacts]:
        return iter(self._facts)

    def __len__(self) -> int:
        return len(self._facts)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def facts(self, name: str) -> ClusterFacts:
        return self._by_name[name]

    def shared(self, owner: object, key: Hashable, compute: Callable[[], _T]) -> _T:
        """``compute()`` once per (``owner`` by identity, ``key``) while the index lives. ``owner`` is held,
        so no other object can take its id meanwhile; it need not be hashable (a policy's placement)."""
        return self._remembered.recall("shared", (owner,), key, compute)

    def remembered(self, key: Hashable, compute: Callable[[], _T], *, held: tuple[object, ...] = ()) -> _T:
        """``compute()`` once per (``held`` by identity, ``key`` by value) while the index lives."""
        return self._remembered.recall("remembered", held, key, compute)

    def memo_table(self, key: Hashable) -> dict[str, Any]:
        """A cache of per-cluster answers that depend only on ``key`` and the cluster (by name)."""
        table = self._memo.get(key)
        if table is None:
            table = self._memo[key] = {}
        return table
