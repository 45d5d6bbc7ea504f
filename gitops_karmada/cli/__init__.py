"""The ``gitops-karmada`` command line (click)."""

from __future__ import annotations


def main() -> None:
    """Entry point of the console script."""
    raise SystemExit("gitops-karmada: the CLI is being assembled")
