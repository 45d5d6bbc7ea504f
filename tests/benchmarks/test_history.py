"""The benchmarks' history: what is a regression beyond the noise, the file's format, and the tool timed as
installed (benchmarks/history.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import gitops_karmada
from benchmarks.history import (
    HISTORY,
    MIN_SAMPLES,
    NOISE_FLOOR,
    Figure,
    K,
    Record,
    Recorder,
    append,
    compare,
    compile_tool,
    current_commit,
    load,
)
from tests.gitrepos import git

if TYPE_CHECKING:
    import pytest

MACHINE = "AMD EPYC x2, 24 GiB"


def _record(
    median: float, *, unit: str = "s", machine: str = MACHINE, step: str = "first reconcile"
) -> Record:
    return Record(
        "abc1234",
        "2026-11-29T00:00:00Z",
        machine,
        1.0,
        "bench_incremental",
        "M 500x250x10",
        step,
        unit,
        median,
        0.0,
    )


def _history(*medians: float, unit: str = "s") -> list[Record]:
    return [_record(m, unit=unit) for m in medians]


def test_no_verdict_before_enough_earlier_runs() -> None:
    verdict = compare(_record(100.0), _history(*[1.0] * (MIN_SAMPLES - 1)))
    assert verdict.samples == MIN_SAMPLES - 1
    assert not verdict.regression
    assert "too few runs" in verdict.describe("s")


def test_a_figure_within_k_spreads_of_the_history_is_noise() -> None:
    history = _history(10.0, 11.0, 9.0, 10.0, 12.0)  # median 10, median absolute deviation 1
    assert not compare(_record(10.0 + K * 1.0), history).regression
    assert compare(_record(10.0 + K * 1.0 + 0.01), history).regression
    assert not compare(_record(1.0), history).regression  # faster is never a regression


def test_a_flat_history_still_allows_the_noise_floor() -> None:
    history = _history(2.0, 2.0, 2.0)
    assert not compare(_record(2.0 * (1 + K * NOISE_FLOOR) - 0.001), history).regression
    assert compare(_record(2.0 * (1 + K * NOISE_FLOOR) + 0.001), history).regression


def test_for_rates_lower_is_worse() -> None:
    history = _history(1000.0, 1000.0, 1000.0, unit="bindings/s")
    assert compare(_record(500.0, unit="bindings/s"), history).regression
    assert not compare(_record(5000.0, unit="bindings/s"), history).regression


def test_only_the_same_figure_on_the_same_machine_class_counts() -> None:
    history = [
        *_history(1.0, 1.0, 1.0),
        _record(50.0, machine="another machine"),
        _record(50.0, step="another step"),
        _record(50.0, unit="MB"),
    ]
    verdict = compare(_record(1.0), history)
    assert (verdict.samples, verdict.median, verdict.spread) == (3, 1.0, 0.0)
    assert (
        compare(_record(1.0, machine="a new machine"), history).describe("s")
        == "no history on this machine class"
    )


def test_the_file_is_one_sorted_json_object_a_line_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "history" / "figures.jsonl"
    records = _history(1.5, 2.25)
    append(path, records[:1])
    append(path, records[1:])
    lines = path.read_text().splitlines()
    assert len(lines) == 2
    assert list(json.loads(lines[0])) == sorted(json.loads(lines[0]))
    assert load(path) == records


def test_a_recorder_compares_with_what_was_there_then_appends(tmp_path: Path) -> None:
    path = tmp_path / "figures.jsonl"
    recorder = Recorder("bench_incremental", path, "abc1234", MACHINE, 3.5, "2026-11-29T00:00:00Z")
    for seconds in (1.0, 1.1, 0.9):
        recorder.remember("M 500x250x10", [Figure.of("first reconcile", [seconds])])
    table = recorder.remember("M 500x250x10", [Figure.of("first reconcile", [3.0, 2.0, 4.0])])
    assert "| first reconcile | 3.00 s | 1.00 s ± 0.10 (n=3); **REGRESSION** |" in table
    assert "load 3.5" in table
    last = load(path)[-1]
    assert (last.median, last.spread, last.load, last.commit) == (3.0, 2.0, 3.5, "abc1234")
    assert len(load(path)) == 4


def test_the_repository_s_history_reads_back_line_for_line() -> None:
    """Every line of benchmarks/history/figures.jsonl is a record, written as ``Record.line`` writes it."""
    lines = [line for line in HISTORY.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert [record.line() for record in load(HISTORY)] == lines


def test_the_commit_is_marked_when_files_other_than_the_history_differ(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "benchmarks" / "history").mkdir(parents=True)
    (tmp_path / "benchmarks" / "history" / "figures.jsonl").write_text("")
    (tmp_path / "code.py").write_text("x = 1\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "one")
    short = git(tmp_path, "rev-parse", "--short=7", "HEAD")
    (tmp_path / "benchmarks" / "history" / "figures.jsonl").write_text("{}\n")
    assert current_commit(tmp_path) == short
    (tmp_path / "code.py").write_text("x = 2\n")
    assert current_commit(tmp_path) == short + "+"
    assert current_commit(tmp_path / "benchmarks" / "history" / "figures.jsonl") == "unknown"


def test_the_tool_is_timed_as_pip_installs_it_its_bytecode_compiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a copy of the package, so the checkout's own bytecode is not touched
    package = tmp_path / "gitops_karmada"
    shutil.copytree(
        Path(gitops_karmada.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__")
    )
    monkeypatch.setattr(gitops_karmada, "__file__", str(package / "__init__.py"))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    compile_tool()
    sources = sorted(package.rglob("*.py"))
    compiled = {p.parent.parent / p.name.split(".")[0] for p in package.rglob("__pycache__/*.pyc")}
    assert sources and all(s.with_suffix("") in compiled for s in sources)
