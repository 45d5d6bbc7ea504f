"""Purge mode names across Karmada versions: the deprecated aliases mean exactly the current modes.

v1.12-v1.14 named them Immediately/Graciously/Never; v1.15-v1.18 renamed them Directly/Gracefully and kept
the old names as aliases handled identically everywhere (``propagation_types.go``); v1.19 removed them
(its CRD rejects them). A policy's old names are rewritten to the new ones when it is loaded, with a
warning (``renamed_purge_modes``); a task read from a record is compared through
:func:`canonical_purge_mode`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.model.policies import PurgeMode

if TYPE_CHECKING:
    from gitops_karmada.model.policies import FailoverBehavior

_ALIASES = {PurgeMode.IMMEDIATELY: PurgeMode.DIRECTLY, PurgeMode.GRACIOUSLY: PurgeMode.GRACEFULLY}


def canonical_purge_mode(value: str | PurgeMode | None) -> PurgeMode:
    """The current name of a purge mode; empty or unknown values mean Gracefully, Karmada's default."""
    try:
        mode = PurgeMode(value) if value else PurgeMode.GRACEFULLY
    except ValueError:
        return PurgeMode.GRACEFULLY
    return _ALIASES.get(mode, mode)


def is_directly(value: str | PurgeMode | None) -> bool:
    return bool(value) and canonical_purge_mode(value) is PurgeMode.DIRECTLY


def flag_purge_mode(flag_value: str) -> PurgeMode:
    """``--no-execute-taint-eviction-purge-mode``: Directly stays Directly, anything else is Gracefully."""
    return (
        PurgeMode.DIRECTLY if canonical_purge_mode(flag_value) is PurgeMode.DIRECTLY else PurgeMode.GRACEFULLY
    )


def renamed_purge_modes(
    failover: FailoverBehavior,
) -> tuple[FailoverBehavior, tuple[tuple[str, PurgeMode], ...]]:
    """``failover`` with ``Immediately``/``Graciously`` written as ``Directly``/``Gracefully``, and the
    fields renamed (their path under ``spec.failover`` and the old name)."""
    renamed: list[tuple[str, PurgeMode]] = []
    update: dict[str, object] = {}
    for part, behavior in (("application", failover.application), ("cluster", failover.cluster)):
        if behavior is None or behavior.purge_mode not in _ALIASES:
            continue
        assert behavior.purge_mode is not None
        renamed.append((f"{part}.purgeMode", behavior.purge_mode))
        update[part] = behavior.model_copy(update={"purge_mode": _ALIASES[behavior.purge_mode]})
    return (failover.model_copy(update=update) if update else failover), tuple(renamed)
