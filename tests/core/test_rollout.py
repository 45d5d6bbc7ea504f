"""Issue 37, the pure core of rollouts: the order of waves, what counts as a fresh healthy report, the gate's
arithmetic, and each rule of ``advance`` (Restart, Queue, Rollback, Hold)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from gitops_karmada.core.codecs.times import format_time
from gitops_karmada.core.rollout.advance import FilesFrom, Moment, Rollout, advance
from gitops_karmada.core.rollout.gates import (
    NO_SIGNALS,
    ClusterReport,
    Gating,
    Signals,
    Verdict,
    judge_gate,
)
from gitops_karmada.core.rollout.plan import Step, rollout_steps
from gitops_karmada.core.rollout.state import RolloutPhase, RolloutState, read_state
from gitops_karmada.core.rollout.synced import is_synced
from gitops_karmada.model.clusters import Cluster
from gitops_karmada.model.durations import parse_go_duration
from gitops_karmada.model.rollouts import UNLISTED_WAVE, RolloutGate, RolloutPolicy
from tests.builders import cluster_doc

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def at(seconds: float) -> str:
    return format_time(T0 + timedelta(seconds=seconds))


def policy(**spec: Any) -> RolloutPolicy:
    return RolloutPolicy.model_validate(
        {
            "apiVersion": "gitops-karmada.io/v1alpha1",
            "kind": "RolloutPolicy",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {
                "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
                "waves": [
                    {"name": "canary", "clusters": {"clusterNames": ["m1"]}},
                    {"name": "rest", "clusters": {"labelSelector": {"matchLabels": {"tier": "rest"}}}},
                ],
                **spec,
            },
        }
    )


def inventory(names: dict[str, dict[str, str]]) -> dict[str, Cluster]:
    return {name: Cluster.model_validate(cluster_doc(name, labels=labels)) for name, labels in names.items()}


FLEET = inventory({"m1": {}, "m2": {"tier": "rest"}, "m3": {"tier": "rest"}, "m4": {}})


# -- plan ------------------------------------------------------------------------------------------------------


def test_clusters_go_to_the_first_wave_that_selects_them_and_the_rest_go_last() -> None:
    steps = rollout_steps(policy(), FLEET, ["m4", "m3", "m2", "m1"])
    assert steps == (
        Step("canary", ("m1",), "canary"),
        Step("rest", ("m2", "m3"), "rest"),
        Step(UNLISTED_WAVE, ("m4",), UNLISTED_WAVE),
    )


def test_max_in_progress_splits_a_wave_into_batches() -> None:
    steps = rollout_steps(policy(maxInProgress=1), FLEET, ["m1", "m2", "m3"])
    assert [s.label for s in steps] == ["canary", "rest 1/2", "rest 2/2"]
    assert steps[2].clusters == ("m3",)


# -- reports and gates -----------------------------------------------------------------------------------------


def test_a_manifest_is_synced_when_the_cluster_holds_every_field_it_sets_quantities_by_value() -> None:
    manifest = {
        "kind": "Deployment",
        "spec": {"replicas": 2, "cpu": "0.5"},
        "metadata": {"labels": {"a": "1"}},
    }
    observed = {"spec": {"replicas": 2, "cpu": "500m", "extra": True}, "metadata": {"labels": {"a": "1"}}}
    assert is_synced(manifest, observed)
    assert not is_synced(manifest, {**observed, "spec": {"replicas": 3, "cpu": "500m"}})
    assert not is_synced(manifest, {**observed, "metadata": {"labels": {}}})


def gating(
    reports: list[ClusterReport], gate: dict[str, Any], signals: Signals = NO_SIGNALS, bake: float = 0
) -> Gating:
    return Gating("default/web", "canary", RolloutGate.model_validate(gate), bake, reports, signals)


def state(**fields: Any) -> RolloutState:
    return RolloutState(
        **{
            "policy": "default/web",
            "revision": "r2",
            "phase": RolloutPhase.PROGRESSING,
            "since": at(0),
            **fields,
        }
    )


def test_healthy_for_counts_from_the_first_healthy_run_and_names_when_it_is_due() -> None:
    healthy = [ClusterReport("m1", Verdict.HEALTHY)]
    first = judge_gate(gating(healthy, {"healthyFor": "5m"}), state(), T0 + timedelta(seconds=60))
    assert not first.passed
    assert first.healthy_since == at(60)
    assert first.due == at(360)
    later = judge_gate(
        gating(healthy, {"healthyFor": "5m"}), state(healthy_since=at(60)), T0 + timedelta(seconds=360)
    )
    assert later.passed


def test_a_pending_report_waits_and_resets_nothing_but_an_unhealthy_one_fails() -> None:
    pending = [ClusterReport("m1", Verdict.PENDING, "last report is stale")]
    waiting = judge_gate(gating(pending, {"healthyFor": "1m"}), state(), T0 + timedelta(hours=1))
    assert not waiting.passed and not waiting.failed
    assert waiting.waiting == ("m1: last report is stale",)
    assert waiting.due == ""  # only a new report can open it
    unhealthy = [ClusterReport("m1", Verdict.UNHEALTHY, "reported Unhealthy")]
    assert (
        judge_gate(gating(unhealthy, {}), state(), T0 + timedelta(seconds=1)).failed
        == "m1 reported Unhealthy"
    )


def test_commit_statuses_older_than_the_wave_do_not_count_and_a_failure_fails() -> None:
    old = Signals({}, {"e2e": "success"}, at(-10))
    verdict = judge_gate(gating([], {"commitStatus": "e2e"}, old), state(), T0 + timedelta(seconds=5))
    assert not verdict.passed
    assert verdict.external == ("commit-status:e2e",)
    assert verdict.due == at(35)  # looked at again after 30 s
    fresh = Signals({}, {"e2e": "success"}, at(1))
    assert judge_gate(gating([], {"commitStatus": "e2e"}, fresh), state(), T0 + timedelta(seconds=5)).passed
    failed = Signals({}, {"e2e": "failure"}, at(1))
    assert judge_gate(gating([], {"commitStatus": "e2e"}, failed), state(), T0 + timedelta(seconds=5)).failed


def test_an_approval_counts_only_when_made_after_the_promotion_and_the_bake_time_holds() -> None:
    before = Signals({("default/web", "canary"): (at(-1),)}, {})
    assert not judge_gate(gating([], {"approval": True}, before), state(), T0 + timedelta(seconds=9)).passed
    after = Signals({("default/web", "canary"): (at(3),)}, {})
    assert judge_gate(gating([], {"approval": True}, after), state(), T0 + timedelta(seconds=9)).passed
    baking = judge_gate(gating([], {"approval": True}, after, bake=60), state(), T0 + timedelta(seconds=9))
    assert not baking.passed
    assert baking.waiting[0].startswith("bake time until")


# -- advance ----------------------------------------------------------------------------------------------------


def rollout(
    pol: RolloutPolicy, revision: str, differs: set[str], verdict: Verdict = Verdict.PENDING
) -> Rollout:
    steps = rollout_steps(pol, FLEET, ["m1", "m2", "m3"])
    return Rollout(
        policy=pol,
        steps=steps,
        revision=revision,
        differs=frozenset(differs),
        reports=lambda step, _since: [ClusterReport(c, verdict) for c in step.clusters],
        signals=NO_SIGNALS,
    )


def test_a_new_revision_promotes_the_first_wave_and_keeps_the_others_files() -> None:
    decision = advance(rollout(policy(), "r2", {"m1", "m2", "m3"}), None, Moment(at(0), "s2", "s2"))
    assert decision.state.reached == ("canary",)
    assert decision.files_from == {"m2": FilesFrom.KEPT, "m3": FilesFrom.KEPT}
    assert decision.due == at(1)  # judged from the next run on
    again = advance(rollout(policy(), "r2", {"m2", "m3"}), decision.state, Moment(at(0), "s2", "s2"))
    assert again.state == decision.state  # a rerun at the same time makes the same state


def test_a_passed_gate_promotes_the_next_wave_and_the_last_one_succeeds() -> None:
    first = advance(rollout(policy(), "r2", {"m1", "m2", "m3"}), None, Moment(at(0), "s2", "s2")).state
    second = advance(rollout(policy(), "r2", {"m2", "m3"}, Verdict.HEALTHY), first, Moment(at(5), "s2", "s3"))
    assert second.state.reached == ("canary", "rest")
    assert second.files_from == {}
    done = advance(rollout(policy(), "r2", set(), Verdict.HEALTHY), second.state, Moment(at(9), "s2", "s4"))
    assert done.state.phase is RolloutPhase.SUCCEEDED


@pytest.mark.parametrize(
    ("rule", "phase"), [("Rollback", RolloutPhase.ROLLED_BACK), ("Hold", RolloutPhase.HELD)]
)
def test_a_failed_wave_rolls_back_or_holds(rule: str, phase: RolloutPhase) -> None:
    pol = policy(onFailure=rule)
    first = advance(rollout(pol, "r2", {"m1", "m2", "m3"}), None, Moment(at(0), "s2", "s1")).state
    failed = advance(rollout(pol, "r2", {"m2", "m3"}, Verdict.UNHEALTHY), first, Moment(at(5), "s2", "s3"))
    assert failed.state.phase is phase
    kept = {"m2": FilesFrom.KEPT, "m3": FilesFrom.KEPT}
    assert failed.files_from == ({**kept, "m1": FilesFrom.BASE} if rule == "Rollback" else kept)
    assert failed.state.base == "s1"
    assert f"onFailure: {rule}" in failed.state.message


def test_a_revision_during_a_rollout_restarts_or_queues_behind_the_wave_in_progress() -> None:
    first = advance(rollout(policy(), "r2", {"m1", "m2", "m3"}), None, Moment(at(0), "s2", "s1")).state
    restarted = advance(rollout(policy(), "r3", {"m1", "m2", "m3"}), first, Moment(at(5), "s3", "s2"))
    assert restarted.state.revision == "r3"
    assert restarted.state.reached == ("canary",)
    assert restarted.state.base == "s1"  # still the last promoted render
    queued_policy = policy(onNewRevision="Queue", gate={"healthyFor": "0s"})
    queued = advance(rollout(queued_policy, "r3", {"m1", "m2", "m3"}), first, Moment(at(5), "s3", "s2"))
    assert queued.state.revision == "r2"
    assert set(queued.files_from.values()) == {FilesFrom.KEPT}
    passed = advance(
        rollout(queued_policy, "r3", {"m1", "m2", "m3"}, Verdict.HEALTHY), first, Moment(at(6), "s3", "s2")
    )
    assert passed.state.revision == "r3"
    assert passed.state.reached == ("canary",)


def test_the_state_reads_back_from_its_annotation_and_a_hand_edit_is_ignored() -> None:
    original = state(reached=("canary",), sources={"m1": "s2"}, message="wave canary promoted")
    assert read_state({"gitops-karmada.io/rollout": original.to_annotation()}) == original
    assert read_state({"gitops-karmada.io/rollout": "{not json"}) is None


@pytest.mark.parametrize(("text", "seconds"), [("5m", 300.0), ("1h30m", 5400.0), ("1.5s", 1.5), ("0", 0.0)])
def test_go_durations(text: str, seconds: float) -> None:
    assert parse_go_duration(text) == seconds


def test_a_go_duration_without_a_unit_is_an_error() -> None:
    with pytest.raises(ValueError, match="duration"):
        parse_go_duration("5")


def test_a_cluster_joining_after_the_rollout_succeeded_gets_the_revision_at_once() -> None:
    done = advance(rollout(policy(), "r2", set(), Verdict.HEALTHY), None, Moment(at(0), "s2", "s2")).state
    assert done.phase is RolloutPhase.SUCCEEDED
    joined = advance(rollout(policy(), "r2", {"m3"}), done, Moment(at(9), "s3", "s3"))
    assert joined.files_from == {}
    assert joined.state.phase is RolloutPhase.SUCCEEDED
