"""Purge mode names across Karmada versions: the deprecated aliases mean exactly the current modes.

v1.12-v1.14 named them Immediately/Graciously/Never; v1.15-v1.18 renamed them Directly/Gracefully and kept
the old names as aliases handled identically everywhere (``propagation_types.go``). We accept both and
compare through :func:`canonical_purge_mode`; a task keeps the name its producer wrote.
"""

from __future__ import annotations

from gitops_karmada.model.policies import PurgeMode

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
