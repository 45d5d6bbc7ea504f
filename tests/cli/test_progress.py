"""Progress of long runs: a bar on a terminal, JSON events under --logging-format json, nothing otherwise."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gitops_karmada.cli.progress import MIN_TEMPLATES
from tests.builders import configmap, cpp_doc
from tests.cli.test_trust import _on_a_terminal
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from pathlib import Path


def _big(tmp_path: Path, templates: int) -> FleetRepo:
    files: dict[str, Any] = {"policies/all.yaml": cpp_doc("all", [{"apiVersion": "v1", "kind": "ConfigMap"}])}
    files["apps/configs.yaml"] = [configmap(f"c{i:04}", "default") for i in range(templates)]
    return FleetRepo.create(tmp_path / "fleet", files, clusters=1)


def test_json_progress_events_count_up_to_the_total(tmp_path: Path) -> None:
    repo = _big(tmp_path, MIN_TEMPLATES)
    entries = [
        json.loads(line) for line in repo.cli("--logging-format", "json", "reconcile").stderr.splitlines()
    ]
    events = [e for e in entries if e["logger"] == "progress"]
    assert [e["done"] for e in events] == [MIN_TEMPLATES * i // 10 for i in range(11)]
    assert {e["total"] for e in events} == {MIN_TEMPLATES}
    assert events[-1]["msg"] == f"placing templates: {MIN_TEMPLATES} of {MIN_TEMPLATES}"


def test_a_small_run_or_a_pipe_shows_no_progress(tmp_path: Path) -> None:
    small = _big(tmp_path / "small", MIN_TEMPLATES - 1)
    assert "progress" not in small.cli("--logging-format", "json", "validate").stderr
    big = _big(tmp_path / "big", MIN_TEMPLATES)
    assert "templates" not in big.cli("validate").stderr  # stderr is a pipe here: no bar


def test_a_terminal_gets_a_bar_that_clears_itself(tmp_path: Path) -> None:
    repo = _big(tmp_path, MIN_TEMPLATES * 2)
    shown = _on_a_terminal(repo, {"NO_COLOR": "1"}, "render").decode(errors="replace")
    assert "placing templates" in shown
    assert f"/{MIN_TEMPLATES * 2}" in shown
