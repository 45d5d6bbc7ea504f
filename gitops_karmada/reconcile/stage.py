"""Stage: a template a RolloutPolicy governs reaches its clusters wave by wave (between render and record).

The render of the inputs now is what every cluster gets in the end; until its wave is reached a cluster's
folder keeps what it holds (``FilesFrom.KEPT``), and a rolled back revision gives the reached clusters the
files of the last promoted render back (``FilesFrom.BASE``, read at the commit that held them). The
decision is ``core.rollout.advance``'s; the record carries the state it leaves. Templates no RolloutPolicy
governs pass through unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.binding import applied_clusters
from gitops_karmada.core.codecs.digest import digest
from gitops_karmada.core.codecs.times import parse_time
from gitops_karmada.core.codecs.yaml_input import load_yaml_documents
from gitops_karmada.core.rollout.advance import Decision, FilesFrom, Moment, Rollout, advance
from gitops_karmada.core.rollout.gates import NO_SIGNALS, ClusterReport, cluster_report
from gitops_karmada.core.rollout.plan import Step, rollout_steps
from gitops_karmada.core.rollout.state import RolloutState, read_state
from gitops_karmada.core.selectors import ImplicitPriority, resource_match_selectors_priority
from gitops_karmada.model.errors import InputError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitops_karmada.model.manifest import Manifest
    from gitops_karmada.model.rollouts import RolloutPolicy
    from gitops_karmada.reconcile.context import RunContext
    from gitops_karmada.reconcile.placed import Placed
    from gitops_karmada.reconcile.render import RenderedTargets


@dataclass(frozen=True, slots=True)
class Staged:
    targets: RenderedTargets
    """The files each cluster gets this run."""
    decision: Decision | None = None
    """The rollout's decision; None when no RolloutPolicy governs the template."""

    @property
    def state(self) -> RolloutState | None:
        return self.decision.state if self.decision is not None else None


def governing_policy(policies: Sequence[RolloutPolicy], template: Manifest) -> RolloutPolicy | None:
    """The RolloutPolicy of the template's namespace whose selectors select it (the first by name)."""
    namespace = template.key.namespace
    for policy in policies:
        if policy.namespace != namespace:
            continue
        if resource_match_selectors_priority(template.body, policy.spec.resource_selectors) is not (
            ImplicitPriority.MISMATCH
        ):
            return policy
    return None


def stage(ctx: RunContext, placed: Placed, targets: RenderedTargets) -> Staged:
    template = placed.claim.template
    policy = governing_policy(ctx.inputs.rollout_policies, template)
    if policy is None:
        return Staged(targets)
    previous = placed.claim.previous
    before = frozenset(applied_clusters(previous)) if previous is not None else frozenset()
    paths = {**{c: ctx.layout.manifest_path(c, template.key) for c in before}, **targets.paths}
    kept = {c for c, path in paths.items() if path in targets.keep}
    # a cluster deleted from the inventory is in no wave: its files go as they would without a rollout
    involved = sorted(
        c
        for c in {*before, *(c for c, p in paths.items() if p in targets.files)}
        if c not in kept and c in ctx.clusters
    )
    wanted = {
        c: ctx.hash_blob(targets.files[paths[c]]) if paths[c] in targets.files else "" for c in involved
    }
    held = {c: ctx.output_blobs.get(paths[c], "") if c in before else "" for c in involved}
    rollout = Rollout(
        policy=policy,
        steps=rollout_steps(policy, ctx.clusters, involved),
        # what is rolled out, whichever clusters get it: a cluster leaving does not restart the rollout
        revision=digest(sorted(set(wanted.values()))),
        differs=frozenset(c for c in involved if wanted[c] != held[c]),
        reports=lambda step, since: _reports(ctx, template, paths, step, since),
        signals=ctx.rollout_signals or NO_SIGNALS,
    )
    decision = advance(
        rollout,
        read_state(previous.metadata.annotations) if previous is not None else None,
        Moment(ctx.now, ctx.commit, ctx.commit),
    )
    return Staged(_apply(ctx, targets, decision, paths, before, rollout.steps), decision)


def _reports(
    ctx: RunContext, template: Manifest, paths: Mapping[str, str], step: Step, since: str
) -> list[ClusterReport]:
    """What the step's clusters reported since ``since`` of what their folders hold."""
    now = parse_time(ctx.now)
    grace = float(ctx.config.failover.cluster_monitor_grace_period_seconds)
    found = []
    for cluster in step.clusters:
        raw = ctx.read_output(paths[cluster]) if ctx.read_output is not None and cluster in paths else None
        found.append(
            cluster_report(
                cluster,
                template.key.identity,
                _manifest(raw),
                ctx.observed,
                since=parse_time(since),
                now=now,
                grace_seconds=grace,
                health_of=ctx.interpreter.work_status_health,
            )
        )
    return found


def _manifest(raw: bytes | None) -> Mapping[str, Any] | None:
    if raw is None:
        return None
    try:
        documents = [d.body for d in load_yaml_documents(raw) if isinstance(d.body, dict)]
    except InputError:
        return None
    return documents[0] if documents else None


def _apply(
    ctx: RunContext,
    targets: RenderedTargets,
    decision: Decision,
    paths: Mapping[str, str],
    before: frozenset[str],
    steps: Sequence[Step],
) -> RenderedTargets:
    """``targets`` with each cluster's files taken from where the decision says."""
    if not decision.files_from:
        return targets
    files, keep, rendered = dict(targets.files), set(targets.keep), dict(targets.rendered)
    wave_of = {c: step.label for step in steps for c in step.clusters}
    for cluster, origin in sorted(decision.files_from.items()):
        path = paths[cluster]
        files.pop(path, None)
        if origin is FilesFrom.KEPT:
            note = f"waits for wave {wave_of.get(cluster, '?')} of rollout {decision.state.policy}"
            if cluster in before:
                keep.add(path)
            rendered[cluster] = (cluster in before, note)
            continue
        restored = _at_base(ctx, decision.state.base, path)
        note = f"rolled back to the files of {decision.state.base[:12]}: {decision.state.message}"
        if restored is not None:
            files[path] = restored
        rendered[cluster] = (restored is not None, note)
    return replace(targets, files=files, keep=frozenset(keep), rendered=rendered)


def _at_base(ctx: RunContext, base: str, path: str) -> bytes | None:
    if not base or ctx.read_output_at is None:
        return None
    return ctx.read_output_at(base, path)
