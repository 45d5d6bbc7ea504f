"""``completion bash|zsh|fish`` and the completion of KIND/NAMESPACE/NAME from the repository's records."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.cli.test_reconcile import shop
from tests.clirun import cli_in_process

if TYPE_CHECKING:
    from pathlib import Path


def _complete(cwd: Path, words: str) -> list[str]:
    """What bash completion offers for the last word of ``words`` (click's bash_complete protocol)."""
    env = {
        "_GITOPS_KARMADA_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
    }
    done = cli_in_process(cwd, [], env)
    assert done.returncode == 0, done.stderr
    return [line.split(",", 1)[1] for line in done.stdout.splitlines() if line]  # "type,value" lines


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_completion_script_for_each_shell(tmp_path: Path, shell: str) -> None:
    done = cli_in_process(tmp_path, ["completion", shell])
    assert done.returncode == 0, done.stderr
    assert "_GITOPS_KARMADA_COMPLETE" in done.stdout


def test_template_references_complete_from_the_last_reconcile(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    assert _complete(repo.path, "gitops-karmada explain dep") == [], "nothing reconciled yet: nothing offered"
    repo.cli("reconcile")
    assert _complete(repo.path, "gitops-karmada explain dep") == ["Deployment.apps/shop/web"]
    assert _complete(repo.path, "gitops-karmada history ConfigMap/") == ["ConfigMap/shop/settings"]
    assert _complete(repo.path, "gitops-karmada reschedule ") == [
        "ConfigMap/shop/settings",
        "Deployment.apps/shop/web",
    ]
    elsewhere = f"gitops-karmada explain --repo {repo.path} Dep"
    assert _complete(tmp_path, elsewhere) == ["Deployment.apps/shop/web"]
    assert "history" in _complete(repo.path, "gitops-karmada hi")
