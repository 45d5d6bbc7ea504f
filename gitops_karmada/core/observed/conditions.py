"""Karmada's cluster controller (``pkg/controllers/cluster/cluster_controller.go``), pure over ``now``:
Ready turns Unknown when the heartbeat is older than the grace period, and Ready=False/Unknown put the
``not-ready``/``unreachable`` NoSchedule taints on the cluster (Ready=True removes both)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.core.codecs.times import format_time, seconds
from gitops_karmada.model.base import Taint, TaintEffect
from gitops_karmada.model.wellknown import CONDITION_TAINT_KEYS, NOT_READY_TAINT_KEY, UNREACHABLE_TAINT_KEY

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime


def ready_status(
    reported: str | None,
    heartbeat: datetime | None,
    now: datetime,
    *,
    monitor_grace_seconds: float,
    startup_grace_seconds: float,
    ever_reported: bool,
) -> str:
    """Ready's status as Karmada's cluster controller would hold it at ``now``.

    ``reported`` is what the last heartbeat said; a heartbeat older than the grace period (the startup one
    for a cluster that never reported) turns it Unknown, as ``monitorClusterHealth`` does.
    """
    if heartbeat is None or reported is None:
        return "Unknown"
    grace = monitor_grace_seconds if ever_reported else startup_grace_seconds
    if now > heartbeat + seconds(grace):
        return "Unknown"
    return reported


def condition_taints(ready: str, current: Sequence[Taint], now: datetime) -> tuple[Taint, ...]:
    """``current`` with the not-ready/unreachable NoSchedule taints set for Ready's status.

    A taint already present keeps its timeAdded; the other one is removed; the rest are untouched.
    """
    wanted = {"False": NOT_READY_TAINT_KEY, "Unknown": UNREACHABLE_TAINT_KEY}.get(ready)
    kept = [
        t
        for t in current
        if not (t.key in CONDITION_TAINT_KEYS and t.effect is TaintEffect.NO_SCHEDULE and t.key != wanted)
    ]
    if wanted is not None and not any(t.key == wanted and t.effect is TaintEffect.NO_SCHEDULE for t in kept):
        kept.append(Taint(key=wanted, effect=TaintEffect.NO_SCHEDULE, time_added=format_time(now)))
    return tuple(kept)
