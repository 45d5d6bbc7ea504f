"""Issue 33, item 5: ``simulate`` says why nothing moves, and refuses a cluster or template that is not there.

Each case runs the CLI on a copy of the example fleet (``repo-layout/``, Failover on, the taint manager
evicting, a ClusterTaintPolicy that turns Ready=False into a NoExecute taint), reconciled once at the
pinned commit time 2026-01-02T03:04:05Z, which is when every scenario starts.
"""

from __future__ import annotations

import json
import shutil
from typing import TYPE_CHECKING

import pytest

from tests.action.scenarios import REPO_LAYOUT
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from pathlib import Path

NOTHING = "Failover timeline: nothing is evicted:\n"


@pytest.fixture(scope="module")
def reconciled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("example") / "fleet"
    shutil.copytree(REPO_LAYOUT, path)
    FleetRepo.create(path).cli("reconcile")
    return path


@pytest.fixture
def fleet(reconciled: Path, tmp_path: Path) -> FleetRepo:
    shutil.copytree(reconciled, tmp_path / "fleet", symlinks=True)
    return FleetRepo(tmp_path / "fleet")


def _edit(fleet: FleetRepo, name: str, old: str, new: str) -> None:
    text = fleet.read(name)
    assert old in text, (name, old)
    fleet.write(name, text.replace(old, new, 1))
    fleet.commit(f"edit {name}")


def test_with_the_failover_gate_off_it_says_so(fleet: FleetRepo) -> None:
    _edit(fleet, "gitops-karmada.yaml", "  Failover: true", "  Failover: false")
    done = fleet.cli("simulate", "--cluster-down", "member2", "--after", "1h")
    assert (
        NOTHING
        + (
            "  the Failover feature gate is off (Karmada's default): neither the taint manager nor application "
            "failover runs, so nothing is evicted (featureGates: {Failover: true} in gitops-karmada.yaml turns "
            "them on)\n"
        )
        in done.stdout
    )


def test_with_after_left_at_0s_it_says_when_the_toleration_runs_out(fleet: FleetRepo) -> None:
    done = fleet.cli("simulate", "--cluster-down", "member2")
    assert (
        NOTHING
        + (
            "  what runs on member2 tolerates its NoExecute taint cluster.karmada.io/not-ready:NoExecute for "
            "now: the first eviction from member2 comes at 2026-01-02T03:09:05Z, 5m after the scenario starts "
            "(--after is 0s: the scenario ends as it starts): simulate --after 5m shows it\n"
        )
        in done.stdout
    )
    # and it does
    later = json.loads(fleet.cli("simulate", "--cluster-down", "member2", "--after", "5m", "-o", "json",
                                 check=1).stdout)  # fmt: skip
    evicted = [e for e in later["timeline"] if e["action"] == "evicted"]
    assert evicted and evicted[0]["at"] == "2026-01-02T03:09:05Z" and evicted[0]["cluster"] == "member2"
    assert later["notEvicted"] == []
    shorter = json.loads(
        fleet.cli("simulate", "--cluster-down", "member2", "--after", "4m", "-o", "json").stdout
    )
    assert shorter["timeline"] == []
    [why] = shorter["notEvicted"]
    assert "the first eviction from member2 comes at 2026-01-02T03:09:05Z, 5m after" in why
    assert "--after is 0s" not in why


def test_a_noschedule_taint_never_evicts(fleet: FleetRepo) -> None:
    done = fleet.cli("simulate", "--taint", "member2:maintenance:NoSchedule", "--after", "1h")
    assert (
        NOTHING
        + (
            "  the taint maintenance:NoSchedule on member2 is NoSchedule: that keeps new placements off member2 "
            "but never evicts what runs there (only a NoExecute taint does)\n"
        )
        in done.stdout
    )


def test_a_noexecute_taint_the_taint_manager_may_not_act_on(fleet: FleetRepo) -> None:
    _edit(
        fleet,
        "gitops-karmada.yaml",
        "enableNoExecuteTaintEviction: true",
        "enableNoExecuteTaintEviction: false",
    )
    done = fleet.cli("simulate", "--taint", "member2:maintenance:NoExecute", "--after", "1h")
    assert (
        NOTHING
        + (
            "  member2 has the NoExecute taint maintenance:NoExecute, but the taint manager evicts nothing: "
            "failover.enableNoExecuteTaintEviction is false (Karmada's default)\n"
        )
        in done.stdout
    )


def test_what_tolerates_a_taint_forever_is_named(fleet: FleetRepo) -> None:
    done = fleet.cli("simulate", "--cluster-down", "member4", "--after", "1h")
    assert (
        NOTHING
        + (
            "  nothing on member4 is evicted for its NoExecute taint cluster.karmada.io/not-ready:NoExecute: the "
            "policies of what runs there (cpp/fleet-crds) tolerate it with no time limit; what no policy of its "
            "own places there (a Namespace, a dependency) follows the workloads that need it and is never "
            "evicted for a taint\n"
        )
        in done.stdout
    )


def test_an_unhealthy_workload_whose_policy_asks_for_no_application_failover(fleet: FleetRepo) -> None:
    done = fleet.cli("simulate", "--unhealthy", "Deployment/shop/cart@member1", "--after", "1h")
    assert (
        NOTHING
        + (
            "  Deployment.apps/shop/cart's policy pp/shop/cart sets no failover.application: application "
            "failover leaves it alone, however long it stays unhealthy\n"
        )
        in done.stdout
    )
    elsewhere = fleet.cli("simulate", "--unhealthy", "Deployment/shop/cart@member4", "-o", "markdown")
    assert (
        "### Failover timeline: nothing is evicted\n\n- Deployment.apps/shop/cart is not placed on member4 "
        "(it is on member1, member2, member3): nothing of it runs there to fail\n"
    ) in elsewhere.stdout


def test_an_unhealthy_workload_is_evicted_once_its_toleration_has_passed(fleet: FleetRepo) -> None:
    application = (
        "  propagateDeps: true\n  failover:\n    application:\n      decisionConditions:\n"
        "        tolerationSeconds: 120\n      purgeMode: Directly\n  placement:"
    )
    _edit(fleet, "policies/shop.yaml", "    name: cart\n  placement:", "    name: cart\n" + application)
    # the kind without its group names the template (Deployment is apps')
    done = fleet.cli("simulate", "--unhealthy", "Deployment/shop/cart@member1")
    assert (
        NOTHING
        + (
            "  Deployment.apps/shop/cart may stay unhealthy on member1 for its tolerationSeconds (120 s): "
            "application failover evicts it at 2026-01-02T03:06:06Z, 2m1s after the scenario starts (--after is "
            "0s: the scenario ends as it starts): simulate --after 2m1s shows it\n"
        )
        in done.stdout
    )
    later = fleet.cli("simulate", "--unhealthy", "Deployment/shop/cart@member1", "--after", "2m1s", check=1)
    assert (
        "2026-01-02T03:06:06Z  Deployment.apps/shop/cart  evicted member1: the application stayed unhealthy "
        "past its tolerationSeconds"
    ) in later.stdout
    assert "Not evicted" not in later.stdout and "nothing is evicted" not in later.stdout


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--cluster-down", "member9", "--cluster-down: no cluster 'member9' in the inventory (clusters: "
         "member1, member2, member3, member4)"),
        ("--taint", "membr2:maintenance:NoExecute", "--taint: no cluster 'membr2' in the inventory (clusters: "
         "member1, member2, member3, member4); did you mean member2?"),
        ("--capacity", "nowhere:cpu=4", "--capacity: no cluster 'nowhere' in the inventory"),
        ("--unhealthy", "Deployment/shop/cart@nowhere", "--unhealthy: no cluster 'nowhere' in the inventory"),
        ("--unhealthy", "Deployment/shop/nope@member1", "--unhealthy: no template 'Deployment/shop/nope'"),
        ("--unhealthy", "Deploy/shop/cart@member1", "--unhealthy: no template 'Deploy/shop/cart'; templates "
         "named cart: Deployment.apps/shop/cart, Service/shop/cart"),
    ],
)  # fmt: skip
def test_an_unknown_target_is_refused_with_exit_2(
    fleet: FleetRepo, option: str, value: str, message: str
) -> None:
    done = fleet.cli("simulate", option, value, check=2)
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("error: " + message), line
    assert "Traceback" not in done.stderr
