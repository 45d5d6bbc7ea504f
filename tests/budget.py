"""How many examples and trials the long tests run.

The default keeps ``.ci/run`` within its minutes on a 2-core machine; ``GITOPS_KARMADA_THOROUGH=1`` runs the
deliberate soak (the counts these tests had before the budget was set), for a change to the incremental
engine, failover or the daemon's crash handling.
"""

from __future__ import annotations

import os

THOROUGH = os.environ.get("GITOPS_KARMADA_THOROUGH") == "1"


def budget(default: int, thorough: int) -> int:
    """``thorough`` when the soak was asked for, else ``default``."""
    return thorough if THOROUGH else default
