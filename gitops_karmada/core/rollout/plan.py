"""A template's clusters in the order a rollout reaches them: its policy's waves, split into batches of
``maxInProgress`` clusters, then the clusters no wave lists (``model.rollouts.UNLISTED_WAVE``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.selectors import cluster_matches
from gitops_karmada.model.rollouts import UNLISTED_WAVE

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.rollouts import RolloutPolicy


@dataclass(frozen=True, slots=True)
class Step:
    wave: str
    clusters: tuple[str, ...]
    label: str
    """The wave's name, with the batch (``rest 2/3``) when ``maxInProgress`` splits it."""


def rollout_steps(
    policy: RolloutPolicy, inventory: Mapping[str, Cluster], involved: Iterable[str]
) -> tuple[Step, ...]:
    """The steps that reach ``involved`` (the clusters the template is or was on): a cluster belongs to the
    first wave that selects it; waves that select none of them are left out."""
    remaining = sorted({c for c in involved if c in inventory})
    steps: list[Step] = []
    for wave in policy.spec.waves:
        members = [c for c in remaining if cluster_matches(inventory[c], wave.clusters)]
        remaining = [c for c in remaining if c not in members]
        steps.extend(_batches(wave.name, members, policy.spec.max_in_progress))
    steps.extend(_batches(UNLISTED_WAVE, remaining, policy.spec.max_in_progress))
    return tuple(steps)


def _batches(wave: str, members: list[str], size: int | None) -> list[Step]:
    if not members:
        return []
    if size is None or len(members) <= size:
        return [Step(wave, tuple(members), wave)]
    chunks = [members[i : i + size] for i in range(0, len(members), size)]
    return [Step(wave, tuple(chunk), f"{wave} {n}/{len(chunks)}") for n, chunk in enumerate(chunks, 1)]


def reached_clusters(steps: Iterable[Step], reached: Iterable[str]) -> frozenset[str]:
    labels = set(reached)
    return frozenset(c for step in steps if step.label in labels for c in step.clusters)
