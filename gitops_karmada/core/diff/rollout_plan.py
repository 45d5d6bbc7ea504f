"""The wave plan of a change: for each template a RolloutPolicy governs whose rollout the head side starts
or moves, the waves in order, which are reached, and what the next one waits for. Pure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.diff.bound import binding_key
from gitops_karmada.core.rollout.plan import rollout_steps
from gitops_karmada.core.rollout.state import RolloutPhase, read_state

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.inputs import Inputs
    from gitops_karmada.model.rollouts import RolloutGate


@dataclass(frozen=True, slots=True)
class WavePlan:
    label: str
    clusters: tuple[str, ...]
    reached: bool
    gate: str
    """What the wave waits for before the next one goes."""


@dataclass(frozen=True, slots=True)
class RolloutPlan:
    template: str
    policy: str
    phase: str
    waves: tuple[WavePlan, ...]
    message: str


def rollout_plans(
    base: Sequence[ResourceBinding], head: Sequence[ResourceBinding], inputs: Inputs | None
) -> tuple[RolloutPlan, ...]:
    """The rollouts the head side starts, moves or ends differently from the base side."""
    if inputs is None or not inputs.rollout_policies:
        return ()
    before = {str(binding_key(b)): read_state(b.metadata.annotations) for b in base}
    policies = {p.ref: p for p in inputs.rollout_policies}
    inventory = {c.name: c for c in inputs.clusters}
    plans = []
    for binding in head:
        state = read_state(binding.metadata.annotations)
        template = str(binding_key(binding))
        if state is None or state.phase is RolloutPhase.SUCCEEDED or before.get(template) == state:
            continue
        policy = policies.get(state.policy)
        if policy is None:
            continue
        steps = rollout_steps(policy, inventory, (t.name for t in binding.spec.clusters))
        waves = tuple(
            WavePlan(s.label, s.clusters, s.label in state.reached, gate_words(policy.spec.gate_of(s.wave)))
            for s in steps
        )
        plans.append(RolloutPlan(template, state.policy, state.phase.value, waves, state.message))
    return tuple(sorted(plans, key=lambda p: p.template))


def gate_words(gate: RolloutGate) -> str:
    parts = []
    if gate.healthy_for is not None:
        parts.append(f"healthy for {gate.healthy_for}")
    if gate.commit_status is not None:
        parts.append(f"commit status {gate.commit_status}")
    if gate.approval:
        parts.append("an approval")
    return " and ".join(parts) or "nothing"
