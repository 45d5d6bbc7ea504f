"""The whole GitOps loop as repo-layout/ ships it: the workflows' commands in order, and the Flux and Argo CD
wiring checked against those engines' field rules and against what the reconciler really writes."""

from __future__ import annotations

import fnmatch
import re
import shlex
import shutil
from typing import TYPE_CHECKING, Any

import pytest
from ruamel.yaml import YAML

from tests.action.scenarios import REPO_LAYOUT
from tests.builders import deployment
from tests.clirun import cli_in_process
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    import subprocess
    from pathlib import Path

WORKFLOWS = REPO_LAYOUT / ".github" / "workflows"
SYNC = REPO_LAYOUT / "sync"
CLUSTERS = sorted(p.stem for p in (REPO_LAYOUT / "clusters-inventory").glob("*.yaml"))
GO_DURATION = re.compile(r"^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$")

# Flux v1 Kustomization and GitRepository spec fields (kustomize.toolkit.fluxcd.io/v1, source.toolkit.fluxcd.io/v1)
FLUX_KUSTOMIZATION_FIELDS = {
    "commonMetadata", "components", "decryption", "deletionPolicy", "dependsOn", "force", "healthCheckExprs",
    "healthChecks", "images", "interval", "kubeConfig", "namePrefix", "nameSuffix", "patches", "path",
    "postBuild", "prune", "retryInterval", "serviceAccountName", "sourceRef", "suspend", "targetNamespace",
    "timeout", "wait",
}  # fmt: skip
FLUX_GITREPOSITORY_FIELDS = {
    "url", "secretRef", "provider", "interval", "timeout", "ref", "verify", "proxySecretRef", "ignore",
    "suspend", "recurseSubmodules", "include", "sparseCheckout",
}  # fmt: skip


def _yaml(path: Path) -> list[Any]:
    """YAML 1.2, as GitHub Actions, Flux and Argo CD read it (``on:`` stays a string)."""
    return [d for d in YAML(typ="safe").load_all(path.read_text()) if d is not None]


ACTION = "gitops-karmada/gitops-karmada@"
ACTION_COMMANDS = {"reconcile": "gitops-karmada reconcile --push", "verify": "gitops-karmada verify"}
"""What the Action runs in each mode but diff (tests/action/test_action_steps.py runs the Action itself)."""


def _commands(workflow: str) -> list[tuple[list[str], dict[str, str]]]:
    """The gitops-karmada commands of a workflow's steps (``run:`` or the Action), in order, with each
    step's env."""
    (document,) = _yaml(WORKFLOWS / workflow)
    found = []
    for job in document["jobs"].values():
        for step in job["steps"]:
            command = step.get("run", "")
            if str(step.get("uses", "")).startswith(ACTION):
                command = ACTION_COMMANDS[step.get("with", {}).get("mode", "diff")]
            if command.startswith("gitops-karmada "):
                found.append((shlex.split(command), {k: str(v) for k, v in step.get("env", {}).items()}))
    return found


def _run(repo: Path, argv: list[str], env: dict[str, str], ok: int = 0) -> subprocess.CompletedProcess[str]:
    done = cli_in_process(repo, argv[1:], env)
    assert done.returncode == ok, f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture
def fleet(tmp_path: Path) -> tuple[FleetRepo, Path]:
    """repo-layout/ pushed to a bare remote, and a CI runner's clone of it."""
    shutil.copytree(REPO_LAYOUT, tmp_path / "source")
    source = FleetRepo(tmp_path / "source")
    git(source.path, "init", "-q", "-b", "main")
    source.commit("example fleet")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(source.path), str(remote))
    git(tmp_path, "clone", "-q", str(remote), str(tmp_path / "runner"))
    return FleetRepo(tmp_path / "runner"), remote


def test_the_workflows_commands_run_in_order_on_a_fresh_repository(fleet: tuple[FleetRepo, Path]) -> None:
    runner, remote = fleet
    reconcile, verify = _commands("reconcile.yaml"), _commands("verify.yaml")
    assert [argv[:2] for argv, _ in reconcile] == [
        ["gitops-karmada", "reconcile"],
        ["gitops-karmada", "verify"],
    ]
    assert [argv[:2] for argv, _ in verify] == [["gitops-karmada", "verify"]]
    # push to main → the reconcile workflow; its commit reaches the remote
    for argv, env in reconcile:
        _run(runner.path, argv, env)
    tip = git(remote, "rev-parse", "main")
    assert "Rendered-By: gitops-karmada" in git(remote, "log", "-1", "--format=%B", tip)
    assert git(remote, "log", "-1", "--format=%an", tip) == "gitops-karmada"
    # the required check on main
    for argv, env in verify:
        _run(runner.path, argv, env)
    # a pull request: the placement diff (the Action runs `diff`), its checks, then the merge and reconcile
    git(runner.path, "checkout", "-q", "-b", "scale-frontend")
    runner.write("apps/shop/frontend.yaml", _scaled_frontend(runner))
    runner.commit("frontend: 12 replicas")
    markdown = ["gitops-karmada", "diff", "--base", "main", "--head", "HEAD", "-o", "markdown"]
    diff = _run(runner.path, markdown, {}, ok=1)  # 1: the pull request changes the rendered fleet
    assert "| `Deployment.apps/shop/frontend` | pp/frontend | 8 → 12 |" in diff.stdout
    _run(runner.path, ["gitops-karmada", "validate"], {})
    for argv, env in verify:  # on the pull request's head, verify (rightly) says the output is stale
        assert "stale" in _run(runner.path, argv, env, ok=1).stdout
    git(runner.path, "checkout", "-q", "main")
    git(runner.path, "merge", "-q", "--ff-only", "scale-frontend")
    git(runner.path, "push", "-q", "origin", "main")
    for argv, env in reconcile:
        _run(runner.path, argv, env)
    for argv, env in verify:
        _run(runner.path, argv, env)
    assert git(remote, "rev-parse", "main") == runner.head()


def _scaled_frontend(repo: FleetRepo) -> str:
    text = repo.read("apps/shop/frontend.yaml")
    changed = re.sub(r"replicas: \d+", "replicas: 12", text, count=1)
    assert changed != text
    return changed


def test_the_workflows_are_guarded_as_the_readme_says() -> None:
    (reconcile,) = _yaml(WORKFLOWS / "reconcile.yaml")
    assert reconcile["on"]["push"]["branches"] == ["main"]
    assert {"clusters/**", "karmada-state/**"} <= set(reconcile["on"]["push"]["paths-ignore"])
    assert reconcile["permissions"] == {"contents": "write"}
    assert reconcile["concurrency"]["cancel-in-progress"] is False
    (verify,) = _yaml(WORKFLOWS / "verify.yaml")
    assert verify["permissions"] == {"contents": "read"}
    assert set(verify["on"]) == {"pull_request", "push"}


def test_flux_wiring_follows_fluxs_fields_and_points_at_every_cluster_folder(tmp_path: Path) -> None:
    (source,) = _yaml(SYNC / "flux" / "fleet.yaml")
    assert (source["apiVersion"], source["kind"]) == ("source.toolkit.fluxcd.io/v1", "GitRepository")
    assert set(source["spec"]) <= FLUX_GITREPOSITORY_FIELDS
    assert GO_DURATION.match(source["spec"]["interval"]) and source["spec"]["ref"] == {"branch": "main"}
    assert "!/clusters/" in source["spec"]["ignore"].split()
    rendered = _reconciled_example(tmp_path)
    assert sorted(p.name for p in (rendered / "clusters").iterdir()) == CLUSTERS
    for cluster in CLUSTERS:
        (kustomization,) = _yaml(SYNC / "flux" / f"{cluster}.yaml")
        spec = kustomization["spec"]
        assert (kustomization["apiVersion"], kustomization["kind"]) == (
            "kustomize.toolkit.fluxcd.io/v1",
            "Kustomization",
        )
        assert set(spec) <= FLUX_KUSTOMIZATION_FIELDS, cluster
        assert spec["sourceRef"] == {"kind": "GitRepository", "name": source["metadata"]["name"]}
        assert kustomization["metadata"]["namespace"] == source["metadata"]["namespace"]
        assert spec["path"] == f"./clusters/{cluster}" and (rendered / spec["path"]).is_dir()
        assert spec["prune"] is True and GO_DURATION.match(spec["interval"])


def test_argo_cd_applicationset_generates_one_application_per_cluster_folder(tmp_path: Path) -> None:
    (appset,) = _yaml(SYNC / "argocd" / "applicationset.yaml")
    assert (appset["apiVersion"], appset["kind"]) == ("argoproj.io/v1alpha1", "ApplicationSet")
    spec = appset["spec"]
    (generator,) = spec["generators"]
    (directories,) = generator["git"]["directories"]
    rendered = _reconciled_example(tmp_path)
    folders = sorted(
        str(p.relative_to(rendered)) for p in rendered.glob("*/*") if p.is_dir() and ".git" not in p.parts
    )
    matched = [f for f in folders if fnmatch.fnmatchcase(f, directories["path"])]
    assert matched == [f"clusters/{c}" for c in CLUSTERS], (
        "the generator must see exactly the cluster folders"
    )
    template = spec["template"]
    # goTemplate: placeholders are Go templates over the generator's parameters
    assert spec["goTemplate"] is True
    assert template["spec"]["destination"] == {"name": "{{.path.basename}}"}
    assert template["spec"]["source"]["path"] == "{{.path.path}}"
    assert template["spec"]["source"]["directory"]["recurse"] is True
    assert template["spec"]["syncPolicy"]["automated"]["prune"] is True
    assert generator["git"]["repoURL"] == template["spec"]["source"]["repoURL"]


def test_the_sync_folder_is_not_fleet_input(tmp_path: Path) -> None:
    repo = FleetRepo(tmp_path / "example")
    shutil.copytree(REPO_LAYOUT, repo.path)
    git(repo.path, "init", "-q", "-b", "main")
    repo.commit("example fleet")
    validated = repo.cli("validate", "--strict")
    assert "sync/" not in validated.stderr


def _reconciled_example(tmp_path: Path) -> Path:
    repo = FleetRepo(tmp_path / "reconciled")
    shutil.copytree(REPO_LAYOUT, repo.path)
    git(repo.path, "init", "-q", "-b", "main")
    repo.write(
        "apps/extra.yaml", deployment("extra", "shop")
    )  # a template no policy selects: still one folder each
    repo.commit("example fleet")
    repo.cli("reconcile")
    return repo.path
