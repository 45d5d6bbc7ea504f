"""One contract per verb, in a real process: ``python -m gitops_karmada VERB ...`` answers with the exit code,
stdout and stderr that the in-process runner (``tests.clirun``, which every other CLI test uses) gives for
the same call on an identical repository. Each verb runs once as a process here, so a verb that only works
in a fresh interpreter (its lazily imported module, the entry point, the process's streams) fails here.

Every call runs on its own copy of one fleet (reconciled twice, the second time after a scale-up), so verbs
that commit (``reconcile``, ``reschedule``, ``rollback``, ``collect``) make the same commits both ways; the
copies' paths are the only difference, and are replaced by ``<repo>`` before comparing.
"""

from __future__ import annotations

import re
import shutil
from typing import TYPE_CHECKING

import pytest
import yaml

from gitops_karmada.cli import VERBS
from tests.builders import deployment
from tests.cli.test_reconcile import shop
from tests.fleet import FIXED_DATE, FleetRepo

if TYPE_CHECKING:
    import subprocess
    from pathlib import Path

SECONDS = re.compile(r"· \d+(\.\d+)? s\b")
LINE_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+[+-]\d\d:\d\d ", re.MULTILINE)
SNAPSHOT = {
    "apiVersion": "status.gitops-karmada.io/v1alpha1",
    "kind": "ClusterStatusSnapshot",
    "metadata": {"name": "member2"},
    "collectedAt": FIXED_DATE,
    "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "ClusterReady"}]},
}

CALLS: dict[str, tuple[tuple[str, ...], int]] = {
    "approve": (("approve", "shop/web"), 1),  # the shop fleet has no RolloutPolicy: named, exit 1
    "collect": (("collect", "--cluster", "member2", "--snapshot", "<repo>/member2.snapshot"), 0),
    "completion": (("completion", "bash"), 0),
    "demo": (("demo", "--source", "<root>/repo-layout", "--workdir", "<repo>/demo"), 0),
    "describe": (("describe", "Deployment/shop/web"), 0),
    "diff": (("diff", "--base", "HEAD~2", "--head", "HEAD"), 1),
    "explain": (("explain", "Deployment.apps/shop/web"), 0),
    "get": (("get", "bindings", "-A", "-o", "wide"), 0),
    "history": (("history", "Deployment/shop/web"), 0),
    "interpret": (("interpret", "--check"), 0),
    "reconcile": (("--log-level", "debug", "reconcile", "--full"), 0),
    "render": (("render", "-o", "yaml"), 0),
    "reschedule": (("reschedule", "--dry-run", "Deployment/shop/web"), 0),
    "rollback": (("rollback", "HEAD~2"), 0),
    "simulate": (("simulate", "--cluster-down", "member1"), 0),
    "trace": (("trace", "clusters/member1/shop/deployment.apps/web.yaml", "-o", "json"), 0),
    "validate": (("validate",), 0),  # the shop fleet creates no Namespace: a warning, exit 0
    "verify": (("verify", "--rev", "HEAD~1"), 1),
    "watch": (("watch", "--listen", "nowhere"), 2),
}
"""Verb → an ordinary call of it (``<repo>``: the repository's copy) and the exit code it must give."""


def test_every_verb_has_a_contract() -> None:
    assert sorted(CALLS) == sorted(VERBS)


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> FleetRepo:
    """The shop fleet reconciled, scaled up and reconciled again."""
    repo = shop(tmp_path_factory.mktemp("contract"))
    repo.cli("reconcile")
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=6))
    repo.commit("scale web")
    repo.cli("reconcile")
    (repo.path / "member2.snapshot").write_text(yaml.safe_dump(SNAPSHOT))
    return repo


def _copy(fleet: FleetRepo, path: Path) -> FleetRepo:
    shutil.copytree(fleet.path, path, symlinks=True)
    return FleetRepo(path)


def _normalised(done: subprocess.CompletedProcess[str], repo: FleetRepo) -> tuple[int, str, str]:
    """The answer with the copy's path, the run's duration (``· 0.6 s``) and the daemon's line times left
    out."""

    def text(output: str) -> str:
        output = LINE_TIME.sub("<time> ", output)
        return SECONDS.sub("· <seconds>", output.replace(str(repo.path), "<repo>"))

    return done.returncode, text(done.stdout), text(done.stderr)


@pytest.mark.parametrize("verb", sorted(CALLS))
def test_a_verb_in_a_process_answers_as_in_process(
    verb: str, fleet: FleetRepo, tmp_path: Path, pytestconfig: pytest.Config
) -> None:
    call, code = CALLS[verb]
    answers = []
    for process in (True, False):
        repo = _copy(fleet, tmp_path / ("process" if process else "in-process"))
        args = [
            a.replace("<repo>", str(repo.path)).replace("<root>", str(pytestconfig.rootpath)) for a in call
        ]
        answers.append(_normalised(repo.cli(*args, check=code, process=process), repo))
    in_a_process, in_process = answers
    assert in_a_process == in_process
    assert in_a_process[1] or in_a_process[2], "the call says something"
