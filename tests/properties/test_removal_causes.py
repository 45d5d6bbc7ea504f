"""Every file that leaves a cluster folder is named with a cause; only deliberate causes pass unasked.

A generated fleet is reconciled and committed, one random ordinary edit is made, and the write path's run
(``RunMode.guard``) is asked what committing it would do. Whatever the edit, each removed manifest is named
in a removal group with its cause; the commit is refused exactly when a cause the change does not say itself
is among them; and the edit's own kind decides the cause (a deleted template is "template-deleted", a
template that changed identity is "template-edited", a Cluster whose labels changed is "cluster-changed"...).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gitops_karmada.core.codecs.serialize import dump_yaml_documents
from gitops_karmada.core.diff.removals import InputHistory
from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.inputs.loading import input_path_filter, load
from gitops_karmada.model.guardrails import DELIBERATE, RemovalCause
from gitops_karmada.model.wellknown import CONFIG_FILE
from gitops_karmada.reconcile import RunMode, reconcile
from tests.builders import cluster_doc, pp_doc
from tests.inprocess import Tree, commit, request

NOW = "2026-01-02T03:04:05Z"
LATER = "2026-01-02T04:04:05Z"
CLUSTERS = ("c1", "c2", "c3")
DEPLOYMENTS = ("api", "web", "worker")

CAUSES = frozenset(c.value for c in RemovalCause)
EXPECTED: dict[str, set[RemovalCause]] = {
    "delete-template": {RemovalCause.TEMPLATE_DELETED},
    "rename-template": {RemovalCause.TEMPLATE_EDITED},
    "move-namespace": {RemovalCause.TEMPLATE_EDITED},
    "relabel-template": {RemovalCause.TEMPLATE_EDITED},
    "delete-policy": {RemovalCause.POLICY_CHANGED},
    "narrow-policy": {RemovalCause.POLICY_CHANGED},
    "delete-cluster": {RemovalCause.CLUSTER_DELETED},
    "relabel-cluster": {RemovalCause.CLUSTER_CHANGED},
}


def _yaml(*bodies: dict[str, Any]) -> bytes:
    return dump_yaml_documents(list(bodies)).encode()


def _deployment(name: str, namespace: str = "shop", tier: str = "front") -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": {"tier": tier}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


def _policy(name: str, clusters: tuple[str, ...] | None) -> dict[str, Any]:
    placement: dict[str, Any] = {
        "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
        "clusterAffinity": {"clusterNames": list(clusters)}
        if clusters is not None
        else {"labelSelector": {"matchLabels": {"env": "prod"}}},
    }
    selector = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "labelSelector": {"matchLabels": {"tier": "front"}},
    }
    return pp_doc(name, "shop", [selector], placement=placement)


@st.composite
def fleets(draw: st.DrawFn) -> tuple[Tree, str]:
    """A fleet of front-tier Deployments propagated (Duplicated) to the production clusters, and an edit."""
    deployments = draw(st.lists(st.sampled_from(DEPLOYMENTS), min_size=1, max_size=3, unique=True))
    pinned = draw(st.booleans())  # a policy naming clusters rather than selecting them by label
    tree: Tree = {
        f"inventory/{name}.yaml": _yaml(cluster_doc(name, labels={"env": "prod"})) for name in CLUSTERS
    }
    tree["policies/front.yaml"] = _yaml(_policy("front", CLUSTERS if pinned else None))
    for name in deployments:
        tree[f"apps/{name}.yaml"] = _yaml(_deployment(name))
    edit = draw(st.sampled_from(sorted(EXPECTED)))
    return tree, edit


def _edited(tree: Tree, edit: str, seed: int) -> Tree:
    after = dict(tree)
    apps = sorted(p for p in tree if p.startswith("apps/"))
    app = apps[seed % len(apps)]
    name = app.removeprefix("apps/").removesuffix(".yaml")
    cluster = CLUSTERS[seed % len(CLUSTERS)]
    if edit == "delete-template":
        del after[app]
    elif edit == "rename-template":
        after[app] = _yaml(_deployment(f"{name}-v2"))
    elif edit == "move-namespace":
        after[app] = _yaml(_deployment(name, namespace="default"))
    elif edit == "relabel-template":
        after[app] = _yaml(_deployment(name, tier="back"))
    elif edit == "delete-policy":
        del after["policies/front.yaml"]
    elif edit == "narrow-policy":
        after["policies/front.yaml"] = _yaml(_policy("front", tuple(c for c in CLUSTERS if c != cluster)))
    elif edit == "delete-cluster":
        del after[f"inventory/{cluster}.yaml"]
    elif edit == "relabel-cluster":
        after[f"inventory/{cluster}.yaml"] = _yaml(cluster_doc(cluster, labels={"env": "dev"}))
    return after


def _history(before: Tree, after: Tree) -> InputHistory:
    """What the adapters tell the guard: the input files that changed, as they were before."""
    config, _ = load_config(after.get(CONFIG_FILE))
    is_input = input_path_filter(config)
    paths = frozenset(
        p for p in before.keys() | after.keys() if is_input(p) and before.get(p) != after.get(p)
    )
    loaded = load({p: before[p] for p in paths if p in before}, config)
    return InputHistory(paths, loaded.inputs)


@settings(max_examples=60, deadline=None)
@given(fleets(), st.integers(min_value=0, max_value=11))
def test_every_removal_is_named_with_a_cause_and_only_deliberate_ones_pass(
    fleet: tuple[Tree, str], seed: int
) -> None:
    tree, edit = fleet
    first = reconcile(request(tree, NOW))
    assert first.input_ok, first.diagnostics
    committed = commit(tree, first)
    changed = _edited(committed, edit, seed)
    run = request(changed, LATER, mode=RunMode(guard=frozenset()))
    run = run.with_snapshot(history=_history(committed, changed))
    result = reconcile(run)
    assert result.input_ok and result.guarded is not None, result.diagnostics
    removed = {p for p, c in result.guarded.changes.items() if c is None and p.startswith("clusters/")}
    groups = result.guarded.plan.removals
    named = {path for group in groups for path in group.paths}
    assert removed == named, f"{edit}: unnamed removals {sorted(removed - named)}"
    causes = {group.cause for group in groups}
    if removed:
        assert causes <= EXPECTED[edit], f"{edit}: {[(g.cause, g.change) for g in groups]}"
    # the causes that refuse are exactly those the change does not say itself (the repository's own
    # guardrails, cluster-emptied among them, still apply besides)
    refusing = {v.guardrail for v in result.guarded.plan.violations if v.guardrail in CAUSES}
    assert refusing == {c.value for c in causes - DELIBERATE}, (edit, causes, refusing)
    # allowing every cause lets the same commit through
    allowed = reconcile(run.with_mode(guard=frozenset({"all"})))
    assert allowed.guarded is not None and not allowed.guarded.refused
