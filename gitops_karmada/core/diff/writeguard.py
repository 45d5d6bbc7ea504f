"""The deletion guard of the write paths: what a commit about to be made does to the fleet, as a ``PlanDiff``.

``reconcile``, ``rollback`` and ``reschedule`` check the repository's ``guardrails`` (``gitops-karmada.yaml``)
before they commit, as the pull-request diff checks ``--fail-on``. The plan is built from the binding
records and the changed paths alone (no file is read or diffed), so the guard costs next to nothing even
when a quarter of a million files are in the tree. Pure.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

from gitops_karmada.core.diff.bound import index_bindings, replicas_by_cluster
from gitops_karmada.core.diff.compare import RELEASED_NOTE
from gitops_karmada.core.diff.guardrails import check_guardrails
from gitops_karmada.core.diff.model import ChangeKind, ClusterChange, ObjectDiff, PlanDiff
from gitops_karmada.core.diff.placement import compare_placement, template_problems

if TYPE_CHECKING:
    from collections.abc import Collection, Container, Iterable, Mapping, Sequence

    from gitops_karmada.core.file_changes import FileChange
    from gitops_karmada.core.layout import RepoLayout
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.guardrails import Guardrail


def write_plan(
    *,
    previous: Iterable[ResourceBinding],
    current: Iterable[ResourceBinding],
    existing: Collection[str],
    changes: Mapping[str, FileChange],
    layout: RepoLayout,
    objects_before: Mapping[str, int] | None = None,
    released: Mapping[str, str] = {},
    diagnostics: Sequence[Diagnostic] = (),
    label: tuple[str, str] = ("before", "after"),
) -> PlanDiff:
    """The plan of a commit: ``existing`` cluster-folder paths before, ``changes`` applied to them.

    ``objects_before`` counts the files of each cluster folder before; when absent, ``existing`` is iterated
    to count them (give the counts when ``existing`` is a lazy view of a large tree).

    ``released`` names the paths the commit releases from management (path → template).

    The plan's ``objects`` are the removed manifests, all the guardrails read of single files; added and
    modified ones are only counted, per cluster, in ``clusters``.
    """
    before_bindings, after_bindings = tuple(previous), tuple(current)
    base, head = index_bindings(before_bindings), index_bindings(after_bindings)
    names = set(released.values())
    released_ids = frozenset(i for i, p in base.items() if str(p.key) in names and i not in head)
    workloads = compare_placement(base, head, released_ids)
    running_after = {**head, **{i: base[i] for i in released_ids}}

    prefix = layout.output_prefix
    if objects_before is None:
        before_paths: Container[str] = {p for p in existing if p.startswith(prefix)}
        objects_before = Counter(p[len(prefix) :].partition("/")[0] for p in existing if p.startswith(prefix))
    else:
        before_paths = existing
    # what the guardrails read of the files: the removed ones by path, the others counted per cluster (a
    # first run writes a quarter of a million; an object each would cost seconds)
    kinds: Counter[tuple[str, ChangeKind]] = Counter()
    removed: list[str] = []
    start = len(prefix)
    for path, content in changes.items():  # millions at a first run: no call a path that can be spared
        if not path.startswith(prefix):
            continue
        known = path in before_paths
        if content is None:
            if not known:
                continue
            removed.append(path)
            kind = ChangeKind.REMOVED
        else:
            kind = ChangeKind.MODIFIED if known else ChangeKind.ADDED
        end = path.find("/", start)
        kinds[path[start:end] if end != -1 else path[start:], kind] += 1
    if removed:
        # an object written at another path of its cluster moved (``output.buckets`` changed): not removed
        written = {layout.object_of(p) for p, c in changes.items() if c is not None and p.startswith(prefix)}
        written.discard(None)
        removed = [p for p in removed if layout.object_of(p) not in written]
    objects = [
        ObjectDiff(
            cluster=path[len(prefix) :].partition("/")[0],
            path=path,
            title=path,
            template=None,
            change=ChangeKind.REMOVED,
            diff="",
            note=RELEASED_NOTE if path in released else "",
        )
        for path in sorted(removed)
    ]
    counts: dict[str, Counter[ChangeKind]] = {}
    for (cluster, kind), count in kinds.items():
        counts.setdefault(cluster, Counter())[kind] = count
    replicas_before, replicas_after = (
        replicas_by_cluster(base.values()),
        replicas_by_cluster(running_after.values()),
    )
    touched = set(counts) | {
        n for n in replicas_before.keys() | replicas_after.keys() if replicas_before[n] != replicas_after[n]
    }
    clusters = tuple(
        ClusterChange(
            cluster=name,
            objects_before=objects_before.get(name, 0),
            objects_after=objects_before.get(name, 0)
            + counts.get(name, Counter())[ChangeKind.ADDED]
            - counts.get(name, Counter())[ChangeKind.REMOVED],
            replicas_before=replicas_before[name],
            replicas_after=replicas_after[name],
            added=counts.get(name, Counter())[ChangeKind.ADDED],
            removed=counts.get(name, Counter())[ChangeKind.REMOVED],
            modified=counts.get(name, Counter())[ChangeKind.MODIFIED],
        )
        for name in sorted(touched)
    )
    old_problems = template_problems(before_bindings, ())
    new_problems = template_problems(after_bindings, diagnostics)
    problems = tuple(replace(p, new=entry not in old_problems) for entry, p in sorted(new_problems.items()))
    return PlanDiff(
        base=label[0],
        head=label[1],
        workloads=workloads,
        clusters=clusters,
        problems=problems,
        objects=tuple(objects),
    )


def guard(plan: PlanDiff, guardrails: Sequence[Guardrail]) -> PlanDiff:
    """``plan`` with the violations of ``guardrails``."""
    return replace(
        plan, fail_on=tuple(str(g) for g in guardrails), violations=check_guardrails(plan, guardrails)
    )
