"""One ``-o`` vocabulary on every command, and JSON reports of ``reconcile`` and ``rollback`` for every outcome."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from gitops_karmada.cli import cli
from gitops_karmada.cli.options import OUTPUT_HELP
from tests.builders import deployment, pp_doc

if TYPE_CHECKING:
    from pathlib import Path

from tests.fleet import FleetRepo

REPORTING_COMMANDS = {
    "validate",
    "render",
    "reconcile",
    "diff",
    "rollback",
    "history",
    "verify",
    "trace",
    "explain",
    "get",
    "describe",
}


def _output_option(command: click.Command) -> click.Option | None:
    return next((p for p in command.params if isinstance(p, click.Option) and "-o" in p.opts), None)


def test_every_reporting_command_has_the_same_output_option() -> None:
    with_output = {
        name for name, command in cli.all_commands().items() if _output_option(command) is not None
    }
    assert with_output >= REPORTING_COMMANDS
    for name in sorted(with_output):
        option = _output_option(cli.all_commands()[name])
        assert option is not None
        assert option.opts == ["-o", "--output"] and option.name == "output_format", name
        assert isinstance(option.type, click.Choice)
        assert set(option.type.choices) <= set(OUTPUT_HELP), name
        assert option.default == "text", name


def _fleet(tmp_path: Path) -> FleetRepo:
    selector = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    return FleetRepo.create(
        tmp_path / "fleet",
        {
            "apps/web.yaml": deployment("web", replicas=2),
            "policies/web.yaml": pp_doc(
                "web", "default", [selector], placement={"clusterAffinity": {"clusterNames": ["member1"]}}
            ),
        },
        clusters=2,
    )


def _json(done: Any) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def test_table_is_still_accepted_as_text(tmp_path: Path) -> None:
    repo = _fleet(tmp_path)
    assert repo.cli("render", "-o", "table").stdout == repo.cli("render", "-o", "text").stdout
    assert "'xml' is not one of 'text', 'yaml', 'json'" in repo.cli("render", "-o", "xml", check=2).stderr


def test_reconcile_json_reports_each_outcome(tmp_path: Path) -> None:
    repo = _fleet(tmp_path)
    committed = _json(repo.cli("reconcile", "-o", "json"))
    assert committed["kind"] == "ReconcileReport" and committed["outcome"] == "committed"
    assert committed["exitCode"] == 0 and committed["commit"] == repo.head()
    assert {"path": "clusters/member1/default/deployment.apps/web.yaml", "action": "write"} in committed[
        "changes"
    ]
    assert committed["placement"] == [
        {
            "template": "Deployment.apps/default/web",
            "policy": "pp/web",
            "clusters": {"member1": 2},
            "status": "ok",
        }
    ]
    current = _json(repo.cli("reconcile", "-o", "json"))
    assert (
        current["outcome"] == "up-to-date"
        and current["commit"] is None
        and current["reconciled"] == repo.head()
    )

    # moving the only workload off member1 empties it: the default guardrail refuses, exit 3
    selector = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    repo.write(
        "policies/web.yaml",
        pp_doc("web", "default", [selector], placement={"clusterAffinity": {"clusterNames": ["member2"]}}),
    )
    repo.commit("move web")
    refused = _json(repo.cli("reconcile", "-o", "json", check=3))
    assert refused["outcome"] == "refused" and refused["exitCode"] == 3 and refused["commit"] is None
    assert [v["guardrail"] for v in refused["violations"]] == ["cluster-emptied"]
    assert "cluster-emptied" in repo.cli("reconcile", "-o", "json", check=3).stderr

    repo.write("apps/web.yaml", "kind: [unclosed\n")
    repo.commit("break web")
    invalid = _json(repo.cli("reconcile", "-o", "json", check=1))
    assert invalid["outcome"] == "invalid" and invalid["exitCode"] == 1
    errors = [d for d in invalid["diagnostics"] if d["severity"] == "error"]
    assert errors and errors[0]["file"] == "apps/web.yaml"


def test_rollback_json_reports_the_rollback_and_its_reconcile(tmp_path: Path) -> None:
    repo = _fleet(tmp_path)
    repo.cli("reconcile")
    first = repo.head()
    repo.write("apps/web.yaml", deployment("web", replicas=5))
    repo.commit("scale web")
    repo.cli("reconcile")
    planned = _json(repo.cli("rollback", first, "--dry-run", "-o", "json"))
    assert planned["outcome"] == "dry-run" and planned["commit"] is None
    assert {c["path"] for c in planned["changes"]} >= {"apps/web.yaml"}
    assert planned["outputFrom"]["commit"] == first
    done = _json(repo.cli("rollback", first, "-o", "json"))
    assert done["kind"] == "RollbackReport" and done["outcome"] == "committed" and done["exitCode"] == 0
    assert done["commit"] is not None and done["target"] == first
    assert done["reconcile"]["kind"] == "ReconcileReport"
    assert repo.load("clusters/member1/default/deployment.apps/web.yaml")["spec"]["replicas"] == 2
