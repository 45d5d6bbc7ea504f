"""``get`` and ``describe``: kubectl-style reading of the committed fleet (golden outputs on the example fleet),
their filters, their errors, and tables that fit a real terminal."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gitops_karmada.cli.tables import fitted_widths, plain_table, totals_line
from gitops_karmada.core.selectors import labels_match
from gitops_karmada.core.views.label_query import SelectorSyntaxError, parse_label_query
from tests.builders import cluster_doc, deployment, pp_doc
from tests.fleet import FIXED_DATE, FleetRepo
from tests.gitrepos import git

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "repo-layout" / "reading"

READING_COMMANDS = {
    "get-bindings-all": ("get", "bindings", "-A"),
    "get-bindings-wide": ("get", "rb", "-n", "shop", "-o", "wide"),
    "get-clusters-wide": ("get", "clusters", "-o", "wide"),
    "get-policies-all": ("get", "policies", "-A", "-o", "wide"),
    "get-overrides-all": ("get", "overrides", "-A"),
    "get-quotas-all": ("get", "frq", "-A"),
    "describe-binding": ("describe", "Deployment/shop/cart"),
    "describe-policy": ("describe", "pp/shop/cart"),
    "describe-cluster-policy": ("describe", "cpp/fleet-configmaps"),
    "describe-cluster": ("describe", "cluster/member1"),
}


@pytest.fixture(scope="module")
def example_fleet(tmp_path_factory: pytest.TempPathFactory) -> FleetRepo:
    work = tmp_path_factory.mktemp("reading") / "fleet"
    shutil.copytree(ROOT / "repo-layout", work)
    git(work, "init", "-q", "-b", "main")
    repo = FleetRepo(work)
    repo.commit("fleet")
    repo.cli("reconcile")
    return repo


@pytest.mark.parametrize("name", sorted(READING_COMMANDS))
def test_reading_commands_match_their_golden_output(
    name: str, example_fleet: FleetRepo, request: pytest.FixtureRequest
) -> None:
    # commit ids change with any edit of the example fleet: the goldens hold a placeholder
    actual = re.sub(
        r"(?<![-0-9a-f])[0-9a-f]{12}(?![-0-9a-f])",
        "<commit>",
        example_fleet.cli(*READING_COMMANDS[name]).stdout,
    )
    golden = GOLDEN / f"{name}.txt"
    if request.config.getoption("--update-golden"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual)
    assert actual == golden.read_text()


def test_get_follows_kubectl_namespaces_and_names(example_fleet: FleetRepo) -> None:
    default_only = example_fleet.cli("get", "bindings").stdout
    assert "nginx-deployment" in default_only and "cart-deployment" not in default_only
    assert "NAMESPACE" not in default_only.splitlines()[0]  # one namespace: no namespace column
    shop = example_fleet.cli("get", "rb", "-n", "shop", "-o", "name").stdout.split()
    assert "resourcebinding/cart-deployment" in shop
    assert not [n for n in shop if n.startswith("clusterresourcebinding/")]  # -n leaves them out
    crb = example_fleet.cli("get", "crb", "-o", "name").stdout.split()
    assert crb == [
        "clusterresourcebinding/flinkdeployments.flink.apache.org-customresourcedefinition",
        "clusterresourcebinding/analytics-namespace",
        "clusterresourcebinding/shop-namespace",
    ]
    one = yaml.safe_load(example_fleet.cli("get", "rb", "-n", "shop", "cart-deployment", "-o", "yaml").stdout)
    assert one["kind"] == "ResourceBinding" and one["spec"]["resource"]["name"] == "cart"
    listed = json.loads(example_fleet.cli("get", "clusters", "-o", "json").stdout)
    assert listed["kind"] == "List" and [c["metadata"]["name"] for c in listed["items"]] == [
        "member1",
        "member2",
        "member3",
        "member4",
    ]
    missing = example_fleet.cli("get", "rb", "-n", "shop", "nope", check=1)
    assert "bindings 'nope' not found in namespace shop" in missing.stderr
    empty = example_fleet.cli("get", "rb", "-n", "nowhere")
    assert (
        empty.stdout == ""
        and "No bindings found in nowhere namespace (-A lists every namespace)" in empty.stderr
    )


def test_get_filters_by_label_cluster_and_status(example_fleet: FleetRepo) -> None:
    gpu = example_fleet.cli("get", "clusters", "-l", "tier=gpu", "-o", "name").stdout.split()
    assert gpu == ["cluster/member4"]
    not_gpu = example_fleet.cli("get", "clusters", "-l", "tier notin (gpu),env", "-o", "name").stdout.split()
    assert not_gpu == ["cluster/member1", "cluster/member2", "cluster/member3"]
    on_member4 = example_fleet.cli(
        "get", "bindings", "-A", "--cluster", "member4", "-o", "name"
    ).stdout.split()
    assert on_member4 == [
        "clusterresourcebinding/flinkdeployments.flink.apache.org-customresourcedefinition",
        "clusterresourcebinding/analytics-namespace",
        "clusterresourcebinding/shop-namespace",
    ]
    ok = example_fleet.cli("get", "bindings", "-A", "--status", "ok").stdout
    assert ok.splitlines()[-1] == "14 bindings · 22 replicas"
    assert example_fleet.cli("get", "bindings", "-A", "--status", "unschedulable").stdout == ""
    bad_status = example_fleet.cli("get", "policies", "--status", "ok", check=2)
    assert "policies can be filtered by nothing" in bad_status.stderr
    bad_selector = example_fleet.cli("get", "clusters", "-l", "tier gpu", check=2)
    assert "expected a comma before 'gpu'" in bad_selector.stderr
    assert "is not one of" in example_fleet.cli("get", "pods", check=2).stderr


def _pinned_policy(name: str, cluster: str) -> dict[str, object]:
    selector = {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}
    return pp_doc(name, "default", [selector], placement={"clusterAffinity": {"clusterNames": [cluster]}})


def test_status_names_unschedulable_bindings(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "apps/web.yaml": deployment("web", replicas=2),
            "apps/lonely.yaml": deployment("lonely", replicas=1),
            "policies/web.yaml": _pinned_policy("web", "member1"),
            "policies/lonely.yaml": _pinned_policy("lonely", "nowhere"),
        },
        clusters=1,
    )
    repo.cli("reconcile", check=1)  # committed, and the unschedulable template is an error
    table = repo.cli("get", "bindings", "--status", "unschedulable").stdout
    assert "lonely-deployment" in table and "web-deployment" not in table
    assert table.splitlines()[-1] == "1 binding · 0 replicas · 1 unschedulable"
    described = repo.cli("describe", "Deployment/default/lonely").stdout
    assert re.search(r"^Status: +unschedulable$", described, re.MULTILINE), described
    assert "Scheduled  False" in described


def test_describe_events_follow_the_history(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "apps/web.yaml": deployment("web", replicas=2),
            "policies/web.yaml": pp_doc(
                "web", "default", [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}]
            ),
        },
        clusters=2,
    )
    repo.cli("reconcile")
    repo.write("apps/web.yaml", deployment("web", replicas=4))
    repo.commit("scale web")
    repo.cli("reconcile")
    events = repo.cli("describe", "Deployment/default/web").stdout.split("Events:\n")[1].splitlines()
    assert events[0].split() == ["COMMIT", "DATE", "ORIGIN", "RECORD", "CLUSTERS"]
    assert len(events) == 3  # two reconciles, newest first
    assert "updated" in events[1] and "member1 2→4" in events[1]
    assert "created" in events[2]
    repo.write("inventory/member2.yaml", cluster_doc("member2", labels={"env": "staging"}))
    repo.commit("relabel member2")
    cluster_events = repo.cli("describe", "cluster/member2").stdout.split("Events:\n")[1]
    assert "relabel member2" in cluster_events and "initial fleet" in cluster_events
    policy = json.loads(repo.cli("describe", "pp/default/web", "-o", "json").stdout)
    assert policy["Kind"] == "PropagationPolicy"
    assert [b["RESOURCE"] for b in policy["Bindings"]] == ["Deployment.apps/default/web"]
    assert "no cluster 'member9'" in repo.cli("describe", "cluster/member9", check=1).stderr
    assert "is not pp/NAMESPACE/NAME" in repo.cli("describe", "pp/web", check=2).stderr


def test_tables_fit_a_real_terminal(example_fleet: FleetRepo) -> None:
    """On a terminal of 70 columns every line fits and long cells end in an ellipsis; piped, nothing is cut."""
    primary, secondary = pty.openpty()
    env = {**os.environ, "COLUMNS": "70", "LINES": "40", "GIT_COMMITTER_DATE": FIXED_DATE}
    done = subprocess.run(
        [sys.executable, "-m", "gitops_karmada", "get", "bindings", "-A"],
        cwd=example_fleet.path,
        env=env,
        stdout=secondary,
        stderr=subprocess.PIPE,
        check=True,
    )
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(primary)
    lines = b"".join(chunks).decode().replace("\r\n", "\n").splitlines()
    assert done.returncode == 0 and lines
    assert max(len(line) for line in lines) <= 70
    assert any("…" in line for line in lines)
    assert lines[-1] == "14 bindings · 22 replicas"
    piped = example_fleet.cli("get", "bindings", "-A").stdout
    assert "…" not in piped and max(len(line) for line in piped.splitlines()) > 70


def test_fitted_widths_give_way_widest_first_and_name_last() -> None:
    assert fitted_widths([4, 4], [[10, 20]], 100) == [10, 20]
    assert fitted_widths([4, 4], [[10, 20]], 24) == [10, 12]
    assert fitted_widths([4, 4], [[10, 20]], 10) == [4, 4]  # the name column too, down to its header
    assert fitted_widths([1, 1], [[10, 20]], 2) == [3, 3]  # never below three characters
    table = plain_table(["NAME", "COUNT"], [["a-long-name", "7"]], width=12, right=frozenset({"COUNT"}))
    assert table == "NAME   COUNT\na-lo…      7\n"
    assert (
        totals_line({"bindings": 1, "policies": 2, "replicas": 1}) == "1 binding · 2 policies · 1 replica\n"
    )


@pytest.mark.parametrize(
    ("query", "labels", "selected"),
    [
        ("env=prod", {"env": "prod"}, True),
        ("env==prod", {"env": "dev"}, False),
        ("env!=prod", {}, True),
        ("env!=prod", {"env": "prod"}, False),
        ("env in (dev, prod),tier", {"env": "prod", "tier": "x"}, True),
        ("env in (dev, prod),tier", {"env": "prod"}, False),
        ("env notin (prod)", {"env": "dev"}, True),
        ("!gpu", {"gpu": "yes"}, False),
        ("!gpu", {}, True),
        ("", {"any": "thing"}, True),
    ],
)
def test_label_query_has_kubectl_semantics(query: str, labels: dict[str, str], selected: bool) -> None:
    assert labels_match(parse_label_query(query), labels) is selected


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ("env=prod,", "ends with a comma"),
        ("env prod", "expected a comma"),
        ("=prod", "cannot parse"),
        ("env in (a,b", "unbalanced parentheses"),
        ("bad key!/x=1", "expected a comma"),
        ("-bad=1", "must be 63 characters or less"),
    ],
)
def test_label_query_errors_name_the_part(query: str, problem: str) -> None:
    with pytest.raises(SelectorSyntaxError, match=problem):
        parse_label_query(query)
