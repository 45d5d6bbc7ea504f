"""The run's steps one at a time (``reconcile.run``: prepare → scope → judge → redo → assemble → guard), each
asked for its frozen value on a small fleet built in process, and the reader of the previous state."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any

import pytest

from gitops_karmada.core.codecs.serialize import dump_yaml_documents
from gitops_karmada.core.detector import ClaimState
from gitops_karmada.core.incremental.change_scope import ChangedInputs
from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.inputs.loading import load
from gitops_karmada.model.diagnostics import SourceRef, error
from gitops_karmada.reconcile import RunMode, reconcile
from gitops_karmada.reconcile.judge import UNMADE, judge
from gitops_karmada.reconcile.order import order
from gitops_karmada.reconcile.prepare import Prepared, Refused, prepare
from gitops_karmada.reconcile.previous import PreviousRun
from gitops_karmada.reconcile.redo import redo
from gitops_karmada.reconcile.scope import Scope, scope
from tests.builders import cluster_doc, configmap, deployment, pp_doc
from tests.inprocess import Tree, commit, request

NOW = "2026-01-02T03:04:05Z"
WEB = ("apps", "Deployment", "shop", "web")
API = ("apps", "Deployment", "shop", "api")
CONFIG = ("", "ConfigMap", "other", "settings")


def _yaml(*bodies: dict[str, Any]) -> bytes:
    return dump_yaml_documents(list(bodies)).encode()


def fleet() -> Tree:
    """Two Deployments of one namespace on two clusters, and a ConfigMap of another namespace."""
    selectors = [{"apiVersion": "apps/v1", "kind": "Deployment"}, {"apiVersion": "v1", "kind": "ConfigMap"}]
    placement = {"clusterAffinity": {"clusterNames": ["m1", "m2"]}}
    return {
        "inventory.yaml": _yaml(cluster_doc("m1"), cluster_doc("m2")),
        "policies.yaml": _yaml(
            pp_doc("shop", "shop", selectors, placement=placement),
            pp_doc("other", "other", selectors, placement=placement),
        ),
        "apps/web.yaml": _yaml(deployment("web", "shop", replicas=2)),
        "apps/api.yaml": _yaml(deployment("api", "shop", replicas=2)),
        "apps/settings.yaml": _yaml(configmap("settings", "other")),
    }


def reconciled() -> Tree:
    tree = fleet()
    return commit(tree, reconcile(request(tree, NOW)))


def prepared(tree: Tree, mode: RunMode | None = None) -> Prepared:
    found = prepare(request(tree, NOW, mode=mode or RunMode()))
    assert isinstance(found, Prepared), found
    return found


# -- prepare -------------------------------------------------------------------------------------------------


def test_prepare_refuses_a_broken_configuration_before_reading_an_input() -> None:
    tree = {**fleet(), "apps/bad.yaml": b"kind: [\n"}
    broken = request(tree, NOW).with_snapshot(
        config_diagnostics=(error("unknown field", SourceRef("gitops-karmada.yaml"), "exlude"),)
    )
    refused = prepare(broken)
    assert isinstance(refused, Refused)
    assert [str(d) for d in refused.diagnostics if d.is_error] == [
        "gitops-karmada.yaml[0] exlude: unknown field"
    ]
    assert "the inputs were not checked" in refused.diagnostics[-1].message  # apps/bad.yaml was not read


def test_prepare_gives_a_read_only_ground_the_steps_share() -> None:
    ground = prepared(reconciled())
    assert [t.key.identity for t in ground.templates] == sorted(t.key.identity for t in ground.templates)
    assert ground.had == frozenset({WEB, API, CONFIG}) == ground.current
    assert ground.failover is None  # the gate is off, as in Karmada
    with pytest.raises(FrozenInstanceError):
        ground.templates = ()  # type: ignore[misc]


def test_the_previous_state_is_read_never_written_and_an_overlay_stands_beside_it() -> None:
    previous = PreviousRun.open(request(reconciled(), NOW))
    record = previous.binding(WEB)
    assert record is not None and record.spec.replicas == 2
    changed = record.model_copy(update={"spec": record.spec.model_copy(update={"replicas": 9})})
    overlaid = previous.with_overlay({WEB: changed})
    assert overlaid.binding(WEB) is changed
    assert previous.binding(WEB) is record  # the reader the overlay stands on is as it was
    assert overlaid.binding(API) == previous.binding(API)


# -- scope ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "judged", "kept"),
    [
        (RunMode(), None, {WEB, API, CONFIG}),
        # explain: the focused template, and its namespace's (the quota fold admits them in order)
        (RunMode(focus=lambda key: key.name == "web", explain=True), {WEB, API}, {WEB, API}),
        (RunMode(focus=lambda key: key.name == "settings", explain=True), {CONFIG}, {CONFIG}),
    ],
    ids=["every-template", "focus-on-a-workload", "focus-on-another-namespace"],
)
def test_scope_says_which_templates_a_run_judges_and_keeps(
    mode: RunMode, judged: set[tuple[str, str, str, str]] | None, kept: set[tuple[str, str, str, str]]
) -> None:
    tree = reconciled()
    found: Scope = scope(prepared(tree, mode), request(tree, NOW, mode=mode))
    assert found.judged == (frozenset(judged) if judged is not None else None)
    assert {t.key.identity for t in found.templates} == kept
    assert found.keeps_part is (mode.focus is not None)
    claims = {i: (m.state, m.policy.name if m.policy else None) for i, m in found.matches.items()}
    expected = {WEB: "shop", API: "shop", CONFIG: "other"}
    assert claims == {i: (ClaimState.STICKY, expected[i]) for i in kept}  # the claims recorded before


def test_a_change_scoped_run_matches_only_what_the_change_touches() -> None:
    """The templates a change does not touch keep the claims the index records: no candidates are weighed
    for them (matching would list every policy selecting them)."""
    tree = reconciled()
    before = load({"apps/web.yaml": tree["apps/web.yaml"]}, load_config(None)[0]).inputs
    tree["apps/web.yaml"] = _yaml(deployment("web", "shop", replicas=3))
    run = request(tree, NOW, changed=ChangedInputs(frozenset({"apps/web.yaml"}), before))
    found = scope(prepared(tree), run)
    assert found.by_change and found.judged == frozenset({WEB})
    assert {i: (m.state, m.policy.name if m.policy else None) for i, m in found.matches.items()} == {
        WEB: (ClaimState.STICKY, "shop"),
        API: (ClaimState.STICKY, "shop"),
        CONFIG: (ClaimState.STICKY, "other"),
    }
    assert [bool(found.matches[i].candidates) for i in (WEB, API, CONFIG)] == [True, False, False]
    assert reconcile(run).files == reconcile(request(tree, NOW)).files  # what judging every template gives


# -- judge ---------------------------------------------------------------------------------------------------


def _verdicts(tree: Tree, mode: RunMode | None = None) -> dict[tuple[str, str, str, str], str]:
    mode = mode or RunMode()
    ground = prepared(tree, mode)
    run = request(tree, NOW, mode=mode)
    judged = judge(ground, scope(ground, run), run)
    return {
        identity: "unmade" if v.fingerprint is UNMADE else "reuse" if v.entry is not None else "redo"
        for identity, v in judged.verdicts.items()
    }


def test_judge_reuses_what_did_not_change_and_redoes_the_rest() -> None:
    assert _verdicts(fleet()) == {WEB: "unmade", API: "unmade", CONFIG: "unmade"}  # nothing recorded yet
    tree = reconciled()
    assert _verdicts(tree) == {WEB: "reuse", API: "reuse", CONFIG: "reuse"}
    tree["apps/web.yaml"] = _yaml(deployment("web", "shop", replicas=3))
    assert _verdicts(tree) == {WEB: "redo", API: "reuse", CONFIG: "reuse"}
    assert _verdicts(tree, RunMode(reschedule=frozenset({API}))) == {
        WEB: "redo",
        API: "redo",
        CONFIG: "reuse",
    }
    assert _verdicts(tree, RunMode(full=True)) == {WEB: "unmade", API: "unmade", CONFIG: "unmade"}


# -- redo ----------------------------------------------------------------------------------------------------


def test_redo_hands_independent_templates_to_the_fan_out_and_keeps_the_scope_order() -> None:
    tree = fleet()
    handed: list[str] = []

    def fan_out(work: Any, items: Any, done: Any = None) -> list[Any]:
        handed.extend(t.key.name for t in items)
        return list(work(items))

    run = request(tree, NOW).with_ports(fan_out=fan_out)
    ground = prepared(tree)
    scoped = scope(ground, run)
    judged = judge(ground, scoped, run)
    redone = redo(ground, scoped, judged, order(ground, scoped, judged), run)
    assert [o.key.identity for o in redone.outcomes] == [t.key.identity for t in scoped.templates]
    assert sorted(handed) == ["api", "settings", "web"]
    assert set(redone.made) == {WEB, API, CONFIG}  # records and index entries made where redone
    assert reconcile(run).files == reconcile(request(tree, NOW)).files  # the same as one by one


# -- assemble and guard --------------------------------------------------------------------------------------


def test_assemble_returns_no_files_for_a_focused_run_and_the_whole_tree_otherwise() -> None:
    tree = reconciled()
    focused = reconcile(request(tree, NOW, mode=RunMode(focus=lambda key: key.name == "web", explain=True)))
    assert focused.files == {} and [o.key.name for o in focused.outcomes] == ["api", "web"]
    whole = reconcile(request(fleet(), NOW))
    assert whole.index is not None and set(whole.index.entries) == {WEB, API, CONFIG}
    assert "clusters/m1/shop/deployment.apps/web.yaml" in whole.files


def test_guard_names_the_cause_of_each_removal_and_refuses_what_the_change_does_not_say() -> None:
    tree = reconciled()
    tree["inventory.yaml"] = _yaml(cluster_doc("m1", labels={"env": "dev"}), cluster_doc("m2"))
    del tree["apps/settings.yaml"]
    result = reconcile(request(tree, NOW, mode=RunMode(guard=frozenset())))
    assert result.guarded is not None
    causes = {g.cause.value: g.owners for g in result.guarded.plan.removals}
    assert causes == {"template-deleted": ("ConfigMap/other/settings",)}
    assert not result.guarded.refused
    assert not reconcile(request(tree, NOW)).guarded  # a run not asked to guard is not guarded
    tree["apps/web.yaml"] = _yaml(deployment("web", "default", replicas=2))  # its own edit: a new identity
    refused = reconcile(request(tree, NOW, mode=RunMode(guard=frozenset())))
    assert refused.guarded is not None and refused.guarded.refused
    assert [v.guardrail for v in refused.guarded.plan.violations] == ["template-edited"]
    allowed = reconcile(request(tree, NOW, mode=RunMode(guard=frozenset({"template-edited"}))))
    assert allowed.guarded is not None and not allowed.guarded.refused
