"""Whether a new round of status snapshots is a heartbeat and nothing else (issue 38).

The collector records a round when something changed or when the heartbeat is half the monitor grace period
old, so that a silent cluster turns Unknown in time. A round that only refreshes ``collectedAt`` changes no
run's output, provided that every heartbeat was fresh both when the last reconcile ran and now: Ready is
judged from the heartbeat's age alone (``core.observed.conditions``), and with both fresh, every cluster
reads as it did. Anything else, a cluster added or gone, one field of a status, an object's health, or a
heartbeat that was or is past the grace period, is a change a run must see.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.core.codecs.times import parse_time, seconds

if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

    from gitops_karmada.model.status import ClusterStatusSnapshot

_ANY_TIME = "1970-01-01T00:00:00Z"


def heartbeat_only(
    before: Mapping[str, ClusterStatusSnapshot],
    after: Mapping[str, ClusterStatusSnapshot],
    *,
    judged_at: datetime,
    now: datetime,
    grace_seconds: float,
) -> bool:
    """``after`` differs from ``before`` in ``collectedAt`` alone, and every heartbeat was fresh at
    ``judged_at`` (when the run that read ``before`` ran) and is fresh at ``now``."""
    if before.keys() != after.keys():
        return False
    grace = seconds(grace_seconds)
    for cluster, old in before.items():
        new = after[cluster]
        if old.model_copy(update={"collected_at": _ANY_TIME}) != new.model_copy(
            update={"collected_at": _ANY_TIME}
        ):
            return False
        if judged_at - parse_time(old.collected_at) > grace or now - parse_time(new.collected_at) > grace:
            return False
    return True
