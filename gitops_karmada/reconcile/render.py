"""Render targets: one placed template's manifest filed in each target cluster's folder (``ensureWork``).

Clusters that get the same replicas, completions, override rules, schema version and injected labels get the
same bytes, so each distinct render key is rendered once (``reconcile.manifest``) and shared. A target whose
folder cannot or must not take the manifest (the cluster left the inventory, dispatching is suspended, a
hand-written file is in the way or in place) keeps what it has and says why; a failure keeps the previous
file and is reported once per cause, naming every cluster it stops.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.core.binding import applied_clusters
from gitops_karmada.core.codecs.serialize import dump_yaml
from gitops_karmada.core.failover.state import labels_to_inject
from gitops_karmada.core.scheduler.assumptions import is_workload
from gitops_karmada.model.bindings import TargetCluster
from gitops_karmada.model.config import FeatureGate
from gitops_karmada.model.diagnostics import Diagnostic, warning
from gitops_karmada.model.errors import GitopsKarmadaError, InterpretError, OverrideError
from gitops_karmada.model.purge_modes import is_directly
from gitops_karmada.reconcile.claims import attached_conflict_resolution, required_clusters
from gitops_karmada.reconcile.dispatch import should_suspend_dispatching
from gitops_karmada.reconcile.manifest import (
    blocking_entry,
    job_completions,
    needs_replica_revision,
    origin,
    provenance_header,
    render_manifest,
    work_conflict_resolution,
)
from gitops_karmada.reconcile.render_problems import (
    failure_key,
    invalid_manifest,
    render_error,
    schema_verdict,
    unchecked_warning,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitops_karmada.core.overrides import OverrideResult
    from gitops_karmada.core.overrides.selection import Rankings
    from gitops_karmada.core.schema_check import SchemaVerdict
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.clusters import Cluster
    from gitops_karmada.model.policies import ConflictResolution, Suspension
    from gitops_karmada.reconcile.context import RunContext
    from gitops_karmada.reconcile.placed import Placed
    from gitops_karmada.reconcile.render_problems import RenderKey, VerdictKey

Rendering = tuple[bytes, "OverrideResult"] | GitopsKarmadaError
"""One render key's manifest and override result, or why it could not be made."""


@dataclass(frozen=True, slots=True)
class RenderedTargets:
    """One template's manifests for its target clusters (and the clusters of the workloads requiring it)."""

    files: Mapping[str, bytes]
    keep: frozenset[str]
    """Files of the template that stay as they are (a cluster left, dispatching suspended, a failure)."""
    paths: Mapping[str, str]
    """Cluster → rendered path."""
    rendered: Mapping[str, tuple[bool, str]]
    """Cluster → (its folder holds our manifest, why not / why it was left as it was)."""
    overrides: Mapping[str, OverrideResult]
    diagnostics: tuple[Diagnostic, ...]


@dataclass(frozen=True, slots=True)
class _Plan:
    """What every target of one template shares: the policy fields that apply, and how to render."""

    placed: Placed
    targets: tuple[TargetCluster, ...]
    """The template's targets, then the clusters of the workloads requiring it."""
    suspension: Suspension | None
    revise: bool
    """Write each cluster's replica count (a Divided placement)."""
    conflict_resolution: str
    header: str
    completions: Mapping[str, int]
    previously: frozenset[str]
    """The clusters whose folders hold this template's manifest now."""


@dataclass(slots=True)
class _Filing:
    """What filing one template's targets collects (private to ``render_targets``)."""

    files: dict[str, bytes] = field(default_factory=dict)
    keep: set[str] = field(default_factory=set)
    paths: dict[str, str] = field(default_factory=dict)
    rendered: dict[str, tuple[bool, str]] = field(default_factory=dict)
    overrides: dict[str, OverrideResult] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    made: dict[RenderKey, Rendering] = field(default_factory=dict)
    """Each distinct render key's rendering: clusters sharing a key share the bytes."""
    sharing: dict[RenderKey, list[str]] = field(default_factory=dict)
    verdicts: dict[VerdictKey, SchemaVerdict] = field(default_factory=dict)
    rankings: Rankings = field(default_factory=dict)
    """The override policies selecting this template, ranked once for all clusters."""


def render_targets(ctx: RunContext, placed: Placed) -> RenderedTargets:
    """Render ``placed`` once per distinct render key and file it per cluster."""
    plan = _plan(ctx, placed)
    filing = _Filing()
    for target in plan.targets:
        _file(ctx, plan, target, filing)
    prev = placed.claim.previous
    if prev is not None:
        _keep_evicted(ctx, prev, plan, filing)
    _report(ctx, placed, filing)
    return RenderedTargets(
        files=filing.files,
        keep=frozenset(filing.keep),
        # every path is the layout's for its cluster: made again when asked, not held per cluster
        paths=ctx.layout.manifest_paths(tuple(filing.paths), placed.claim.template.key),
        rendered=filing.rendered,
        overrides=filing.overrides,
        diagnostics=tuple(filing.diagnostics),
    )


def _plan(ctx: RunContext, placed: Placed) -> _Plan:
    claim = placed.claim
    template, match, prev, required = claim.template, claim.match, claim.previous, claim.required
    binding_resolution: ConflictResolution | None
    if claim.attached:
        placement, binding_resolution, suspension = None, attached_conflict_resolution(required), None
    elif placed.lazy_hold or match.policy is None:
        effective = prev.spec if prev is not None else None
        placement = effective.placement if effective is not None else None
        binding_resolution = effective.conflict_resolution if effective is not None else None
        suspension = effective.suspension if effective is not None else None
    else:
        spec = match.policy.spec
        placement, binding_resolution, suspension = spec.placement, spec.conflict_resolution, spec.suspension
    strategy = placement.replica_scheduling if placement is not None else None
    revise = needs_replica_revision(
        strategy.replica_scheduling_type if strategy is not None else None,
        workload=is_workload(placed.replicas, placed.requirements, placed.components),
        replicas=placed.replicas,
        version=ctx.config.karmada_version,
    )
    own = {t.name for t in placed.targets}
    return _Plan(
        placed=placed,
        targets=(
            *placed.targets,
            *(TargetCluster(name=t.name) for t in required_clusters(required) if t.name not in own),
        ),
        suspension=suspension,
        revise=revise,
        conflict_resolution=work_conflict_resolution(template.annotations, binding_resolution),
        header=provenance_header(str(template.source), origin(match)),
        # Job completions are divided for replicas > 0 only (applyJobCompletions)
        completions=job_completions(template, placed.targets) if revise and placed.replicas > 0 else {},
        previously=frozenset(applied_clusters(prev)) if prev is not None else frozenset(),
    )


def _file(ctx: RunContext, plan: _Plan, target: TargetCluster, filing: _Filing) -> None:
    """File the manifest of one target cluster, or say why its folder is left as it is."""
    template = plan.placed.claim.template
    path = ctx.layout.manifest_path(target.name, template.key)
    filing.paths[target.name] = path
    ours = target.name in plan.previously
    cluster = ctx.clusters.get(target.name)
    if cluster is None or should_suspend_dispatching(plan.suspension, target.name):
        # a target that left the inventory (and could not be rescheduled) or whose dispatching is
        # suspended: what is in its folder stays exactly as it is
        if ours:
            filing.keep.add(path)
        why = "the cluster left the inventory" if cluster is None else "dispatching is suspended"
        filing.rendered[target.name] = (ours, f"{why}: the folder was left as it was")
        return
    blocked = _blocked(ctx, plan, path, ours)
    if blocked is not None:
        filing.rendered[target.name] = (False, blocked)
        filing.diagnostics.append(warning(blocked, template.source, subject=str(template.key)))
        return
    injected = _injected(ctx, plan, target)
    signature: RenderKey = (
        target.replicas if plan.revise else None,
        plan.completions.get(target.name),
        ctx.override_signatures.get(target.name, frozenset()),
        ctx.schema_check.version_for(cluster.status.kubernetes_version) if ctx.schema_check else None,
        tuple(sorted(injected.items())),
    )
    filing.sharing.setdefault(signature, []).append(target.name)
    if signature not in filing.made:
        filing.made[signature] = _render(ctx, plan, target, cluster, injected, signature, filing)
    done = filing.made[signature]
    if isinstance(done, GitopsKarmadaError):
        # reported once per distinct failure (``_report``), naming every cluster it stops
        if ours:
            filing.keep.add(path)
        filing.rendered[target.name] = (ours, f"cannot render: {done}" if not ours else "")
        return
    content, result = done
    filing.overrides[target.name] = result  # shared by every cluster with the same render key
    filing.files[path] = content
    filing.rendered[target.name] = (True, "")


def _blocked(ctx: RunContext, plan: _Plan, path: str, ours: bool) -> str | None:
    """Why ``path`` must not be written: a file the tool did not write is in the way or in its place."""
    blocker = blocking_entry(path, ctx.shallow_outputs) if ctx.shallow_outputs else None
    if blocker is not None:
        return (
            f"{blocker} is a file or symbolic link gitops-karmada did not write, where {path} needs a "
            "folder: nothing was written there (move it away to let the tool write)"
        )
    # ``ours`` first: asking the committed tree for a path costs a Git lookup
    if not ours and plan.conflict_resolution != "overwrite" and path in ctx.output_blobs:
        return (
            f"{path} exists and was not written by gitops-karmada; conflictResolution is Abort, "
            "so it was left untouched (set the policy's conflictResolution: Overwrite, or annotate the "
            "template work.karmada.io/conflict-resolution: overwrite, to take it over)"
        )
    return None


def _injected(ctx: RunContext, plan: _Plan, target: TargetCluster) -> Mapping[str, str]:
    """The labels a failover preserved for this cluster's copy (StatefulFailoverInjection)."""
    prev = plan.placed.claim.previous
    if prev is None or not prev.spec.graceful_eviction_tasks:
        return {}
    gate = ctx.gate(FeatureGate.STATEFUL_FAILOVER_INJECTION)
    return labels_to_inject(prev.spec, target.name, target_cluster_count=len(plan.targets), gate_on=gate)


def _render(
    ctx: RunContext,
    plan: _Plan,
    target: TargetCluster,
    cluster: Cluster,
    injected: Mapping[str, str],
    signature: RenderKey,
    filing: _Filing,
) -> Rendering:
    """One render key's file (header and YAML) and override result, checked against the cluster's schema."""
    claim = plan.placed.claim
    try:
        body, result = render_manifest(
            ctx,
            claim.template,
            claim.match,
            target.replicas,
            cluster,
            plan.revise,
            plan.completions.get(target.name),
            plan.conflict_resolution,
            injected,
            filing.rankings,
        )
        verdict = schema_verdict(ctx, body, cluster, signature, filing.verdicts)
        invalid = invalid_manifest(ctx, verdict, result)
        # the object lives on in the file; a run that explains nothing does not keep it twice
        kept = result if ctx.explain else result.without_object()
        return invalid or ((plan.header + dump_yaml(body)).encode(), kept)
    except (OverrideError, InterpretError) as err:
        return err


def _report(ctx: RunContext, placed: Placed, filing: _Filing) -> None:
    """The renders' warnings (once per render key) and failures (once per cause, with every cluster)."""
    template = placed.claim.template
    subject = str(template.key)
    failures: dict[object, tuple[GitopsKarmadaError, list[str]]] = {}
    for signature, names in filing.sharing.items():
        done = filing.made[signature]
        if isinstance(done, GitopsKarmadaError):
            failures.setdefault(failure_key(done), (done, []))[1].extend(names)
        else:
            also = f" (the same on {', '.join(names[1:])})" if len(names) > 1 else ""
            filing.diagnostics.extend(
                warning(w + also, template.source, subject=subject) for w in done[1].warnings
            )
    filing.diagnostics.extend(
        render_error(ctx, template, sorted(names), err) for err, names in failures.values()
    )
    unchecked = unchecked_warning(ctx, template, filing.verdicts.values())
    if unchecked is not None:
        filing.diagnostics.append(unchecked)


def _keep_evicted(ctx: RunContext, prev: ResourceBinding, plan: _Plan, filing: _Filing) -> None:
    """Keep the copy in each cluster a Gracefully or Never eviction task still holds (Karmada keeps that
    Work until the task ends); a Directly task's copy goes at once, with the task's cluster out of the
    result."""
    key = plan.placed.claim.template.key
    for task in prev.spec.graceful_eviction_tasks:
        name = task.from_cluster
        if name in filing.paths or name not in plan.previously or is_directly(task.purge_mode):
            continue
        path = ctx.layout.manifest_path(name, key)
        filing.paths[name] = path
        filing.keep.add(path)
        until = (
            "a user sets suppressDeletion to false"
            if task.suppress_deletion
            else "the new placement reports healthy or the grace period ends"
        )
        filing.rendered[name] = (
            True,
            f"evicted ({task.reason or 'failover'}, purgeMode {task.purge_mode}): kept until {until}",
        )
