"""What the pipeline produces for one template: a frozen value that owns its files.

Every phase (claim → place → admit → render targets → record) returns plain values; the outcome of a
template carries the binding, the files it writes, the managed paths it keeps as they are, and its
diagnostics, so a run's result is the merge of its outcomes (and an unchanged template's outcome can be
reused whole from the previous run).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.core.rollout.state import RolloutPhase

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.core.detector import PolicyMatch
    from gitops_karmada.core.overrides import OverrideResult
    from gitops_karmada.core.rollout.advance import Decision
    from gitops_karmada.core.scheduler import ScheduleResult
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.keys import ObjectKey

Identity = tuple[str, str, str, str]
ROLLOUT_WORDS = {
    RolloutPhase.PROGRESSING: "rolling-out",
    RolloutPhase.ROLLED_BACK: "rolled-back",
    RolloutPhase.HELD: "held",
}


@dataclass(frozen=True, slots=True)
class TemplateOutcome:
    """What happened to one template, for the result, reports and ``explain``."""

    key: ObjectKey
    match: PolicyMatch
    binding: ResourceBinding | None = None
    schedule: ScheduleResult | None = None
    scheduling_reason: str | None = None
    """Why scheduling ran; None when the previous result was kept."""
    overrides: Mapping[str, OverrideResult] = field(default_factory=dict)
    paths: Mapping[str, str] = field(default_factory=dict)
    """Cluster → rendered path."""
    diagnostics: tuple[Diagnostic, ...] = ()
    released: tuple[str, ...] = ()
    """Paths released from management (template deleted, preserveResourcesOnDeletion)."""
    lazy_hold: bool = False
    """A Lazy policy changed but the template did not: the previous placement was kept."""
    interpreted_by: str = ""
    """Who answered for replicas or components: customization/<name>, thirdparty or native."""
    removed: bool = False
    """Its binding is gone (template deleted, or a dependency nothing requires any more)."""
    files: Mapping[str, bytes] = field(default_factory=dict)
    """The files this template writes (rendered manifests; the binding record is added by the run)."""
    stored: Mapping[str, str] = field(default_factory=dict)
    """Files this template writes that are already in the object database (``Ports.store``):
    path → blob id, their contents not held (not in ``files``)."""
    keep: frozenset[str] = frozenset()
    """Managed paths of this template that stay exactly as they are (a failure, a suspended cluster)."""
    fingerprint: str = ""
    """The fingerprint of its inputs (empty for templates without a binding)."""
    reused: bool = False
    """Taken whole from the previous run: its inputs' fingerprint did not change."""
    rollout: Decision | None = None
    """What its RolloutPolicy's rollout decided this run (None: none governs it, or it was reused)."""
    tiers: Mapping[str, str] = field(default_factory=dict)
    """With overflow affinities, the tier each target cluster is in, by name (for the index and ``diff``)."""

    @property
    def failed(self) -> bool:
        return any(d.is_error for d in self.diagnostics)

    @property
    def status(self) -> str:
        """One word for the run's table and report: ``failed``, where its rollout stands when not done
        (``rolling-out``, ``rolled-back``, ``held``), or ``ok``."""
        if self.failed:
            return "failed"
        state = self.rollout.state if self.rollout is not None else None
        return ROLLOUT_WORDS.get(state.phase, "ok") if state is not None else "ok"
