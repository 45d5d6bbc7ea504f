"""Where each rollout stands, as ``get rollouts`` lists it and ``describe rollout/NS/NAME`` shows it. Pure.

Read from the committed records alone: each binding a RolloutPolicy governs carries its rollout's state
(``core.rollout.state``), written by the last run that redid it.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from gitops_karmada.core.diff.rollout_plan import gate_words
from gitops_karmada.core.ownership import binding_key
from gitops_karmada.core.rollout.state import RolloutPhase, RolloutState, read_state
from gitops_karmada.core.views.description import Description, Section
from gitops_karmada.core.views.listing import Listed, ListedKind, Listing, rollout_totals

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.rollouts import RolloutPolicy

ROLLOUT_COLUMNS = ("NAMESPACE", "NAME", "WAVES", "TEMPLATES", "PROGRESSING", "ROLLED-BACK", "HELD")
ROLLOUT_WIDE_COLUMNS = ("WAITING",)


def governed_states(
    policy: RolloutPolicy, bindings: Iterable[ResourceBinding]
) -> list[tuple[ResourceBinding, RolloutState]]:
    """The bindings whose rollout ``policy`` governs, with their state, by template."""
    found = [
        (binding, state)
        for binding in bindings
        if (state := read_state(binding.metadata.annotations)) is not None and state.policy == policy.ref
    ]
    return sorted(found, key=lambda pair: str(binding_key(pair[0])))


def rollout_listing(policies: Sequence[RolloutPolicy], bindings: Sequence[ResourceBinding]) -> Listing:
    items = []
    for policy in policies:
        states = governed_states(policy, bindings)
        phases = Counter(state.phase for _, state in states)
        waiting = next((s.message for _, s in states if s.phase is RolloutPhase.PROGRESSING), "")
        cells = {
            "NAMESPACE": policy.namespace,
            "NAME": policy.name,
            "WAVES": ",".join(wave.name for wave in policy.spec.waves),
            "TEMPLATES": str(len(states)),
            "PROGRESSING": str(phases[RolloutPhase.PROGRESSING]),
            "ROLLED-BACK": str(phases[RolloutPhase.ROLLED_BACK]),
            "HELD": str(phases[RolloutPhase.HELD]),
            "WAITING": waiting or "-",
        }
        items.append(
            Listed(
                kind=policy.kind,
                namespace=policy.namespace,
                name=policy.name,
                labels=policy.metadata.labels,
                cells=cells,
                api=policy.model_dump(mode="json", by_alias=True, exclude_none=True),
                status="progressing" if phases[RolloutPhase.PROGRESSING] else "",
            )
        )
    items.sort(key=lambda i: (i.namespace, i.name))
    return Listing(
        ListedKind.ROLLOUTS, ROLLOUT_COLUMNS, ROLLOUT_WIDE_COLUMNS, tuple(items), rollout_totals(items)
    )


def describe_rollout(policy: RolloutPolicy, bindings: Iterable[ResourceBinding], path: str) -> Description:
    spec = policy.spec
    fields = (
        ("Name", policy.name),
        ("Namespace", policy.namespace),
        ("Source", path),
        ("Gate", gate_words(spec.gate)),
        ("Bake Time", spec.bake_time),
        ("On Failure", spec.on_failure.value),
        ("On New Revision", spec.on_new_revision.value),
        ("Max In Progress", str(spec.max_in_progress) if spec.max_in_progress is not None else "-"),
    )
    waves = Section(
        "Waves",
        ("WAVE", "CLUSTERS", "GATE"),
        tuple(
            (wave.name, _clusters(wave.clusters.to_api()), gate_words(spec.gate_of(wave.name)))
            for wave in spec.waves
        ),
    )
    templates = Section(
        "Templates",
        ("TEMPLATE", "PHASE", "REACHED", "SINCE", "MESSAGE"),
        tuple(
            (
                str(binding_key(binding)),
                state.phase.value,
                ",".join(state.reached) or "-",
                state.since or "-",
                state.message or "-",
            )
            for binding, state in governed_states(policy, bindings)
        ),
    )
    return Description(fields, (waves, templates))


def _clusters(affinity: dict[str, object]) -> str:
    names = affinity.get("clusterNames")
    shown = [",".join(str(n) for n in names)] if isinstance(names, list) and names else []
    shown += [f"{key}: {value}" for key, value in sorted(affinity.items()) if key != "clusterNames"]
    return "; ".join(shown) or "-"
