"""``compare(base, head)``: the whole pull-request diff of two rendered sides, as one ``PlanDiff``."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

from gitops_karmada.core.diff.bound import (
    BoundPlacement,
    binding_key,
    claimed_policy,
    index_bindings,
    replicas_after,
    replicas_by_cluster,
)
from gitops_karmada.core.diff.guardrails import check_guardrails
from gitops_karmada.core.diff.impact import InputKey, input_changes
from gitops_karmada.core.diff.manifests import (
    ManifestRef,
    cluster_manifests,
    compare_manifests,
    count_by_cluster,
)
from gitops_karmada.core.diff.model import ChangeKind, ClusterChange, PlanDiff
from gitops_karmada.core.diff.placement import Identity, compare_placement, template_problems
from gitops_karmada.core.diff.removals import RemovalFacts, attribute_removals, group_removals
from gitops_karmada.core.diff.rollout_plan import rollout_plans
from gitops_karmada.core.ownership import released_entries

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

    from gitops_karmada.core.diff.model import DiffSide, ObjectDiff, WorkloadPlacement
    from gitops_karmada.core.diff.removals import RemovalGroup
    from gitops_karmada.model.guardrails import Guardrail
    from gitops_karmada.model.keys import ObjectKey


def compare(
    base: DiffSide,
    head: DiffSide,
    guardrails: Sequence[Guardrail] = (),
    *,
    candidates: Collection[str] | None = None,
) -> PlanDiff:
    """What merging ``head`` does to the fleet rendered from ``base``, checked against ``guardrails``.

    ``candidates``: every managed path whose blob may differ between the sides (the adapter asked git); with
    both sides' ``blobs`` and ``cluster_counts`` only those are compared, instead of every file.
    """
    base_placements, head_placements = _placements(base), _placements(head)
    released_paths = _newly_released(base, head)
    released = _released_templates(released_paths, base_placements)
    workloads = compare_placement(base_placements, head_placements, released)
    # a released workload keeps running where it was: its replicas still count for its clusters
    running_after = {**head_placements, **{i: base_placements[i] for i in released}}

    keys: dict[str, ObjectKey] = {
        side.layout.object_path(p.key): p.key
        for side, index in ((base, base_placements), (head, head_placements))
        for p in index.values()
    }
    base_manifests, head_manifests, counts_before, counts_after = _manifests(base, head, candidates)
    objects = tuple(
        replace(o, note=RELEASED_NOTE) if o.path in released_paths else o
        for o in compare_manifests(base_manifests, head_manifests, head.layout, keys)
    )
    before = replicas_by_cluster(base_placements.values())
    clusters = _cluster_changes(
        workloads,
        objects,
        objects_before=counts_before,
        objects_after=counts_after,
        replicas_before=before,
        replicas_after=replicas_after(before, base_placements, running_after),
    )

    old_problems = template_problems(base.bindings, base.diagnostics)
    new_problems = template_problems(head.bindings, head.diagnostics)
    problems = tuple(
        replace(problem, new=entry not in old_problems) for entry, problem in sorted(new_problems.items())
    )
    resolved = tuple(
        replace(problem, new=False)
        for entry, problem in sorted(old_problems.items())
        if entry not in new_problems
    )

    touched = _touched(workloads, objects)
    placed: dict[str, set[str]] = {}
    claims: dict[InputKey, set[str]] = {}
    for binding in (*base.bindings, *head.bindings):
        template = str(binding_key(binding))
        placed.setdefault(template, set()).update(target.name for target in binding.spec.clusters)
        claim = claimed_policy(binding)
        if claim is not None:
            claims.setdefault(claim, set()).add(template)
    inputs = input_changes(
        base.inputs,
        head.inputs,
        touched=touched,
        placed={template: frozenset(names) for template, names in placed.items()},
        claims={key: frozenset(templates) for key, templates in claims.items()},
    )

    removed = [o.path for o in objects if o.change is ChangeKind.REMOVED and o.note != RELEASED_NOTE]
    diff = PlanDiff(
        base=base.revision,
        head=head.revision,
        workloads=workloads,
        clusters=clusters,
        problems=problems,
        resolved=resolved,
        inputs=inputs,
        objects=objects,
        unmatched=tuple(sorted(set(head.unmatched) - set(base.unmatched))),
        base_errors=tuple(str(d) for d in base.input_errors),
        head_errors=tuple(str(d) for d in head.input_errors),
        fail_on=tuple(str(g) for g in guardrails),
        removals=_removals(base, head, removed, base_placements, head_placements),
        rollouts=rollout_plans(base.bindings, head.bindings, head.inputs),
    )
    return replace(diff, violations=check_guardrails(diff, guardrails))


def _removals(
    base: DiffSide,
    head: DiffSide,
    removed: Sequence[str],
    base_placements: Mapping[Identity, BoundPlacement],
    head_placements: Mapping[Identity, BoundPlacement],
) -> tuple[RemovalGroup, ...]:
    """The files the change removes, by cause (nothing when a side does not load: its errors are the
    report)."""
    if not removed or base.inputs is None or head.inputs is None:
        return ()
    owners = {
        base.layout.manifest_path(cluster, placement.key): identity
        for identity, placement in base_placements.items()
        for cluster in placement.replicas
    }
    rendered: dict[str, dict[tuple[str, str], list[str]]] = {}
    for placement in head_placements.values():
        for cluster in placement.replicas:
            kind = (placement.key.group, placement.key.kind)
            rendered.setdefault(cluster, {}).setdefault(kind, []).append(str(placement.key))
    facts = RemovalFacts(
        before=base.inputs,
        after=head.inputs,
        previous={binding_key(b).identity: b for b in base.bindings},
        current={binding_key(b).identity: b for b in head.bindings if claimed_policy(b) is not None},
        rendered={c: {k: tuple(sorted(v)) for k, v in kinds.items()} for c, kinds in rendered.items()},
        config_changed=base.inputs.config.to_api() != head.inputs.config.to_api(),
        owners=owners,
        had=frozenset(base_placements),
        layout=base.layout,
    )
    return group_removals(attribute_removals(removed, facts))


RELEASED_NOTE = (
    "released from management (its template was deleted under preserveResourcesOnDeletion): the file stays, "
    "and no later run rewrites or deletes it"
)


def _newly_released(base: DiffSide, head: DiffSide) -> dict[str, str]:
    """Rendered paths the head side releases that the base side did not: path → template."""

    def released(side: DiffSide) -> dict[str, str]:
        path = side.layout.released_path
        raw = side.files([path]).get(path)
        return {path: entry.get("template", "") for path, entry in released_entries(raw).items()}

    before = released(base)
    return {path: template for path, template in released(head).items() if path not in before}


def _released_templates(
    paths: Mapping[str, str], placements: Mapping[Identity, BoundPlacement]
) -> frozenset[Identity]:
    names = set(paths.values())
    return frozenset(identity for identity, p in placements.items() if str(p.key) in names)


def _placements(side: DiffSide) -> Mapping[Identity, BoundPlacement]:
    return side.placements if side.placements is not None else index_bindings(side.bindings)


def _manifests(
    base: DiffSide, head: DiffSide, candidates: Collection[str] | None = None
) -> tuple[dict[ManifestRef, bytes], dict[ManifestRef, bytes], Counter[str], Counter[str]]:
    """The manifests that may differ on each side, and each side's object count per cluster.

    With blob ids on both sides, only files whose blob differs are read; otherwise the trees are compared.
    With ``candidates`` and both sides' counts too, only the candidates are looked at.
    """
    if base.blobs is None or head.blobs is None:
        base_all = cluster_manifests(base.tree, base.layout)
        head_all = cluster_manifests(head.tree, head.layout)
        return base_all, head_all, count_by_cluster(base_all), count_by_cluster(head_all)
    base_prefix, head_prefix = base.layout.output_prefix, head.layout.output_prefix
    if candidates is not None and base.cluster_counts is not None and head.cluster_counts is not None:
        maybe = [
            p
            for p in candidates
            if (p.startswith(base_prefix) and p in base.blobs)
            or (p.startswith(head_prefix) and p in head.blobs)
        ]
        counts_before, counts_after = Counter(base.cluster_counts), Counter(head.cluster_counts)
    else:
        base_paths = [p for p in base.blobs if p.startswith(base_prefix)]
        head_paths = [p for p in head.blobs if p.startswith(head_prefix)]
        maybe = [*base_paths, *head_paths]
        counts_before = count_by_cluster(
            dict.fromkeys(cluster_manifests(dict.fromkeys(base_paths, b""), base.layout), b"")
        )
        counts_after = count_by_cluster(
            dict.fromkeys(cluster_manifests(dict.fromkeys(head_paths, b""), head.layout), b"")
        )
    differ = sorted(p for p in set(maybe) if base.blobs.get(p) != head.blobs.get(p))
    base_differ = cluster_manifests(base.files([p for p in differ if p in base.blobs]), base.layout)
    head_differ = cluster_manifests(head.files([p for p in differ if p in head.blobs]), head.layout)
    return base_differ, head_differ, counts_before, counts_after


def _touched(
    workloads: Sequence[WorkloadPlacement], objects: Sequence[ObjectDiff]
) -> dict[str, frozenset[str]]:
    """Template → clusters where its placement or one of its manifests changes."""
    touched: dict[str, set[str]] = {}
    for workload in workloads:
        touched.setdefault(workload.template, set()).update(c.cluster for c in workload.cells if c.changed)
    for obj in objects:
        if obj.template is not None:
            touched.setdefault(obj.template, set()).add(obj.cluster)
    return {template: frozenset(clusters) for template, clusters in touched.items()}


def _cluster_changes(
    workloads: Sequence[WorkloadPlacement],
    objects: Sequence[ObjectDiff],
    *,
    objects_before: Counter[str],
    objects_after: Counter[str],
    replicas_before: Counter[str],
    replicas_after: Counter[str],
) -> tuple[ClusterChange, ...]:
    """Every cluster whose folder or replica count changes, by name."""
    counts: dict[str, Counter[ChangeKind]] = {}
    for obj in objects:
        counts.setdefault(obj.cluster, Counter())[obj.change] += 1
    names = set(counts)
    names.update(c.cluster for w in workloads for c in w.cells if c.changed)
    names.update(
        n for n in replicas_before.keys() | replicas_after.keys() if replicas_before[n] != replicas_after[n]
    )
    return tuple(
        ClusterChange(
            cluster=name,
            objects_before=objects_before[name],
            objects_after=objects_after[name],
            replicas_before=replicas_before[name],
            replicas_after=replicas_after[name],
            added=counts.get(name, Counter())[ChangeKind.ADDED],
            removed=counts.get(name, Counter())[ChangeKind.REMOVED],
            modified=counts.get(name, Counter())[ChangeKind.MODIFIED],
        )
        for name in sorted(names)
    )
