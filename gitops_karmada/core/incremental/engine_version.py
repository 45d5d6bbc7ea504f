"""The engine's version: what a fingerprint, the state index and a reconcile commit's ``Rendered-By`` name.

A module of its own, importing nothing of the engine: the up-to-date check of a run that has nothing to do
reads it before anything heavy is imported (``usecases.up_to_date``).
"""

from __future__ import annotations

from gitops_karmada import __version__

ENGINE_VERSION = f"{__version__}/6"
"""Changes whenever the tool's output for the same inputs may change: every fingerprint changes with it,
so upgrading the tool re-renders the whole fleet once."""
