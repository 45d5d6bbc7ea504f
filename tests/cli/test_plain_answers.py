"""Issue 33, item 11: the smaller answers, through the CLI on a copy of the example fleet, reconciled once.

A commit is announced once; a run that redid nothing prints no empty table; a misspelled kind, a binding
asked for by its template's name and "not found" in every reading verb each get a hint and exit 1.
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


def test_a_commit_is_announced_once(fleet: FleetRepo) -> None:
    fleet.write(
        "apps/shop/cart.yaml", fleet.read("apps/shop/cart.yaml").replace("replicas: 5", "replicas: 6")
    )
    fleet.commit("scale cart")
    done = fleet.cli("reconcile")
    said = (done.stdout + done.stderr).lower()
    assert said.count("committed") == 1, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("committed ")  # the user-facing line, on stdout
    fleet.write(
        "apps/shop/cart.yaml", fleet.read("apps/shop/cart.yaml").replace("replicas: 6", "replicas: 7")
    )
    fleet.commit("scale cart again")
    as_json = fleet.cli("--logging-format", "json", "reconcile", "-o", "json")
    assert json.loads(as_json.stdout)["outcome"] == "committed"
    assert "committed" not in as_json.stderr  # the report says it; the log does not repeat it


def test_a_run_that_redid_nothing_prints_no_empty_table(fleet: FleetRepo) -> None:
    fleet.write("apps/shop/cart.yaml", fleet.read("apps/shop/cart.yaml") + "# a comment changes no object\n")
    fleet.commit("comment")
    done = fleet.cli("reconcile")
    assert done.stdout == "up to date: no commit needed\n"


def test_a_misspelled_kind_gets_the_close_match(fleet: FleetRepo) -> None:
    text = fleet.read("policies/nginx.yaml").replace("kind: PropagationPolicy", "kind: PropagationPolicies")
    fleet.write("policies/nginx.yaml", text)
    fleet.commit("a plural kind")
    done = fleet.cli("validate", check=None)
    assert (
        "policy.karmada.io/v1alpha1 PropagationPolicies is not supported by gitops-karmada; ignored "
        "(did you mean PropagationPolicy?)" in done.stderr
    )
    fleet.write("policies/nginx.yaml", text.replace("policy.karmada.io", "policies.karmada.io"))
    fleet.commit("and a group typo")
    assert "ignored (did you mean PropagationPolicy, apiVersion policy.karmada.io/v1alpha1?)" in (
        fleet.cli("validate", check=None).stderr
    )


def test_a_binding_asked_for_by_its_templates_name_is_hinted(fleet: FleetRepo) -> None:
    done = fleet.cli("get", "rb", "cart", "-n", "shop", check=1)
    assert (
        "bindings 'cart' not found in namespace shop; bindings whose name starts with 'cart': "
        "cart-deployment, cart-service (a binding is named after its template and kind)" in done.stderr
    )
    assert done.stdout == ""
    assert "starts with" not in fleet.cli("get", "rb", "nope", "-n", "shop", check=1).stderr


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (("explain", "Deployment/shop/nope"), "no template 'Deployment/shop/nope' in the repository"),
        (("describe", "Deployment/shop/nope"), "no binding record of Deployment/shop/nope at HEAD"),
        (("describe", "pp/shop/nope"), "no PropagationPolicy shop/nope at HEAD"),
        (("describe", "cpp/nope"), "no ClusterPropagationPolicy nope at HEAD"),
        (("describe", "cluster/nope"), "no cluster 'nope' at HEAD"),
        (("get", "clusters", "nope"), "clusters 'nope' not found"),
        (("get", "pp", "nope", "-n", "shop"), "policies 'nope' not found in namespace shop"),
    ],
)
def test_not_found_exits_1_in_every_reading_verb(
    fleet: FleetRepo, command: tuple[str, ...], message: str
) -> None:
    done = fleet.cli(*command, check=1)
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_describe_lists_the_commits_that_changed_the_policy_not_its_file(fleet: FleetRepo) -> None:
    policies = "policies/shop.yaml"
    text = fleet.read(policies)
    fleet.write(policies, text.replace("[member1, member2, member3]", "[member1, member2]", 1))
    fleet.commit("frontend: two clusters")  # another document of the same file
    text = fleet.read(policies)
    fleet.write(policies, "# the shop's policies\n" + text.replace("  name: cart\n", "  name: 'cart'\n", 1))
    fleet.commit("a comment and quotes")  # the same cart policy, written another way
    text = fleet.read(policies)
    fleet.write(
        policies, text.replace("    name: cart\n  placement:", "    name: cart\n  priority: 5\n  placement:")
    )
    fleet.commit("cart: priority 5")

    def events(reference: str) -> list[str]:
        described = json.loads(fleet.cli("describe", reference, "-o", "json").stdout)
        return [event["SUBJECT"] for event in described["Events"]]

    assert events("pp/shop/cart") == ["cart: priority 5", "initial fleet"]
    assert events("pp/shop/frontend") == ["frontend: two clusters", "initial fleet"]
    fleet.write("clusters-inventory/member1.yaml", "# main\n" + fleet.read("clusters-inventory/member1.yaml"))
    fleet.commit("a comment on member1")
    assert events("cluster/member1") == ["initial fleet"]
