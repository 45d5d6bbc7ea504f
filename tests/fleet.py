"""A fleet repository for end-to-end tests: real files, real commits, the real CLI (in this process by
default, in a subprocess when asked: ``tests.clirun``)."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import yaml

from gitops_karmada.adapters.external_sources import render_sources
from gitops_karmada.core.codecs.serialize import dump_yaml_documents
from gitops_karmada.core.inputs.external_sources import source_plan
from tests.builders import cluster_doc
from tests.clirun import cli_in_process, cli_process
from tests.gitrepos import git

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from gitops_karmada.model.config import ToolConfig

FIXED_DATE = "2026-01-02T03:04:05+00:00"


@dataclass
class FleetRepo:
    path: Path

    @classmethod
    def create(cls, path: Path, files: dict[str, Any] | None = None, *, clusters: int = 0) -> FleetRepo:
        path.mkdir(parents=True, exist_ok=True)
        git(path, "init", "-q", "-b", "main")
        repo = cls(path)
        for i in range(1, clusters + 1):
            repo.write(f"inventory/member{i}.yaml", cluster_doc(f"member{i}", labels={"env": "prod"}))
        for name, content in (files or {}).items():
            repo.write(name, content)
        repo.commit("initial fleet")
        return repo

    def write(self, name: str, content: Any) -> None:
        """Write a file: text as is, a dict as one YAML document, a list as several."""
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            target.write_text(content)
        elif isinstance(content, list):
            target.write_text(dump_yaml_documents(content))
        else:
            target.write_text(dump_yaml_documents([content]))

    def delete(self, name: str) -> None:
        (self.path / name).unlink()

    def commit(self, message: str = "change") -> str:
        """Commit everything with the pinned date, so commit times (and binding times) are reproducible."""
        git(self.path, "add", "-A")
        env = {**os.environ, "GIT_AUTHOR_DATE": FIXED_DATE, "GIT_COMMITTER_DATE": FIXED_DATE}
        subprocess.run(
            ["git", "commit", "-q", "--allow-empty", "-m", message],
            cwd=self.path,
            env=env,
            check=True,
            capture_output=True,
        )
        return self.head()

    def head(self) -> str:
        return git(self.path, "rev-parse", "HEAD")

    def commit_count(self) -> int:
        return int(git(self.path, "rev-list", "--count", "HEAD"))

    def status(self) -> str:
        return git(self.path, "status", "--porcelain")

    def read(self, name: str) -> str:
        return (self.path / name).read_text()

    def load(self, name: str) -> Any:
        return yaml.safe_load(self.read(name))

    def exists(self, name: str) -> bool:
        return (self.path / name).exists()

    def tree(self, prefix: str = "") -> list[str]:
        listing = git(self.path, "ls-tree", "-r", "--name-only", "HEAD", *([prefix] if prefix else []))
        return listing.splitlines() if listing else []

    def cli(
        self,
        *args: str,
        check: int | None = 0,
        env: Mapping[str, str] | None = None,
        process: bool = False,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``gitops-karmada`` in this repository (in this process; ``process``: in a subprocess, for what
        only a process shows); assert the exit code unless ``check`` is None. Commits it makes carry the
        pinned date; ``env``: more variables set for this run."""
        variables = {
            "GIT_AUTHOR_DATE": FIXED_DATE,
            "GIT_COMMITTER_DATE": FIXED_DATE,
            "COLUMNS": "200",
            **(env or {}),
        }
        done = (cli_process if process else cli_in_process)(self.path, args, variables)
        if check is not None:
            assert done.returncode == check, (
                f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
            )
        return done

    def cli_process(
        self, *args: str, check: int | None = 0, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``cli`` in a subprocess."""
        return self.cli(*args, check=check, env=env, process=True)

    def render_json(self, *args: str) -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self.cli("render", "-o", "json", *args).stdout)
        return result


def placement(render_list: dict[str, Any]) -> dict[str, dict[str, int]]:
    """``{template name: {cluster: replicas}}`` from a ``render -o json`` List."""
    return {
        f"{item['spec']['resource']['kind']}/{item['spec']['resource']['name']}": {
            c["name"]: c.get("replicas", 0) for c in item["spec"].get("clusters", [])
        }
        for item in render_list["items"]
    }


def plain_inputs(root: Path, files: dict[str, bytes], config: ToolConfig) -> dict[str, bytes]:
    """``files`` with each Kustomize/Helm source folder replaced by its rendered output (the real kubectl),
    as one plain file beside its kustomization: for in-process tests that shuffle or edit documents."""
    plan = source_plan(files)
    plain = {path: content for path, content in files.items() if not plan.consumes(path)}
    for origin, source in render_sources(plan, root, config).items():
        assert source.output is not None, source.problem
        plain[origin.rpartition("/")[0] + "/rendered.yaml"] = source.output
    return plain
