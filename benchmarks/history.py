"""Benchmarks that remember: every figure a benchmark measures, appended to benchmarks/history/figures.jsonl.

``python -m benchmarks.history [--all-machines] [--benchmark NAME]`` prints the history's summary: per
figure, the number of runs, the median and the spread, on this machine class unless ``--all-machines``.

One JSON object a line, keys sorted, appended in the order measured (see docs/benchmarks.md, "History"):
``commit`` (short id, ``+`` when tracked files outside the history differ from it), ``date`` (UTC, ISO
8601), ``machine`` (the class: CPU model, logical CPUs, memory rounded to GiB), ``load`` (the 1-minute load
average when the benchmark started: a loaded machine is slower, and the line says so), ``benchmark``,
``fleet`` (the fleet and its size: quick and full runs never compare), ``step``, ``unit``, ``median`` and
``spread`` (max - min of the run's samples; 0 for one sample).

**A regression beyond the noise**: with at least ``MIN_SAMPLES`` earlier runs of the same figure (same
machine class, benchmark, fleet, step and unit), the new median is worse than the history's median of medians
by more than ``K`` times the history's spread, the spread being the median absolute deviation of those
medians but at least ``NOISE_FLOOR`` of their median (a flat history does not flag every wobble). Worse is
higher for seconds, MB and ratios to a floor; lower for rates (units ending in ``/s``).

``BENCH_HISTORY`` names another file; ``BENCH_HISTORY=off`` records and compares nothing.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import statistics
import subprocess
import sys
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

ROOT = Path(__file__).resolve().parents[1]
HISTORY_FOLDER = "benchmarks/history"
HISTORY = ROOT / HISTORY_FOLDER / "figures.jsonl"
MIN_SAMPLES = 3
K = 3.0
NOISE_FLOOR = 0.05


@dataclass(frozen=True)
class Figure:
    """One figure of one run: the median of its samples and their spread."""

    step: str
    median: float
    unit: str = "s"
    spread: float = 0.0

    @property
    def higher_is_better(self) -> bool:
        return self.unit.endswith("/s")

    @staticmethod
    def of(step: str, samples: Sequence[float], unit: str = "s") -> Figure:
        return Figure(step, statistics.median(samples), unit, max(samples) - min(samples))


@dataclass(frozen=True)
class Record:
    """One line of the history file."""

    commit: str
    date: str
    machine: str
    load: float
    benchmark: str
    fleet: str
    step: str
    unit: str
    median: float
    spread: float

    def same_figure(self, other: Record) -> bool:
        return (self.machine, self.benchmark, self.fleet, self.step, self.unit) == (
            other.machine,
            other.benchmark,
            other.fleet,
            other.step,
            other.unit,
        )

    def line(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class Verdict:
    """A new figure against the earlier runs of the same figure on the same machine class."""

    samples: int
    median: float | None
    spread: float | None
    regression: bool

    def describe(self, unit: str) -> str:
        if self.median is None or self.spread is None:
            return "no history on this machine class"
        text = f"{_number(self.median)} {unit} ± {_number(self.spread)} (n={self.samples})"
        if self.samples < MIN_SAMPLES:
            return f"{text}; too few runs to judge"
        return f"{text}; **REGRESSION**" if self.regression else f"{text}; within the noise"


def _number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2f}"


def compare(new: Record, history: Iterable[Record]) -> Verdict:
    """``new`` against the earlier runs of the same figure in ``history`` (see the module's docstring)."""
    medians = [old.median for old in history if old.same_figure(new)]
    if not medians:
        return Verdict(0, None, None, regression=False)
    middle = statistics.median(medians)
    spread = statistics.median(abs(m - middle) for m in medians)
    noise = max(spread, NOISE_FLOOR * abs(middle))
    worse = middle - new.median if new.unit.endswith("/s") else new.median - middle
    return Verdict(len(medians), middle, spread, regression=len(medians) >= MIN_SAMPLES and worse > K * noise)


def load(path: Path) -> list[Record]:
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Record(**json.loads(line)) for line in lines if line.strip()]


def append(path: Path, records: Sequence[Record]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.writelines(record.line() + "\n" for record in records)


def machine_class() -> str:
    """CPU model, logical CPUs and memory rounded to GiB: figures compare only within one class."""
    model = platform.processor() or platform.machine()
    memory = 0.0
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8")
        names = [
            line.partition(":")[2].strip() for line in cpuinfo.splitlines() if line.startswith("model name")
        ]
        model = names[0] if names else model
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                memory = int(line.split()[1]) / (1 << 20)
    except OSError:
        pass
    return f"{model} x{os.cpu_count()}, {round(memory)} GiB"


def current_commit(root: Path = ROOT) -> str:
    """The short commit id, with ``+`` when tracked files (other than the history) differ from it; ``unknown``
    outside a clone."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout

    try:
        commit = git("rev-parse", "--short=7", "HEAD").strip()
        outside_history = f":(exclude){HISTORY_FOLDER}"
        changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", outside_history)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"  # not run from a clone of the repository
    return commit + ("+" if changed.strip() else "")


def compile_tool() -> None:
    """Compile the tool's modules to bytecode, as ``pip install`` does: a timed command then loads them as an
    installed tool would, not compiling some 250 modules from source (about 0.3 s a process) where
    ``PYTHONDONTWRITEBYTECODE`` is set or the checkout is new."""
    import gitops_karmada

    compileall.compile_dir(Path(gitops_karmada.__file__).parent, quiet=1)


def history_path() -> Path | None:
    configured = os.environ.get("BENCH_HISTORY")
    if configured == "off":
        return None
    return Path(configured) if configured else HISTORY


@dataclass
class Recorder:
    """What a benchmark run remembers: its figures, compared with the history then appended to it."""

    benchmark: str
    path: Path | None = None
    commit: str = ""
    machine: str = ""
    load: float = 0.0
    date: str = ""

    @staticmethod
    def start(benchmark: str) -> Recorder:
        """A recorder for ``benchmark``, with the tool's bytecode compiled first (``compile_tool``)."""
        compile_tool()
        return Recorder(
            benchmark,
            history_path(),
            current_commit(),
            machine_class(),
            round(os.getloadavg()[0], 1),
            datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        )

    def record(self, fleet: str, figure: Figure) -> Record:
        return Record(
            self.commit,
            self.date,
            self.machine,
            self.load,
            self.benchmark,
            fleet,
            figure.step,
            figure.unit,
            round(figure.median, 4),
            round(figure.spread, 4),
        )

    def remember(self, fleet: str, figures: Sequence[Figure]) -> str:
        """Compare ``figures`` with the history, append them, and return the comparison as a table."""
        records = [self.record(fleet, figure) for figure in figures]
        if self.path is None:
            return ""
        history = load(self.path)
        rows = [
            f"History of {self.benchmark}, fleet {fleet}, on {self.machine} (commit {self.commit}, "
            f"load {self.load:g} at the start):",
            "",
            "| figure | now | history: median ± spread (runs); verdict |",
            "|---|---:|---|",
        ]
        for record in records:
            verdict = compare(record, history)
            now = f"{_number(record.median)} {record.unit}"
            rows.append(f"| {record.step} | {now} | {verdict.describe(record.unit)} |")
        append(self.path, records)
        return "\n".join(rows)


def summary(records: Sequence[Record], machine: str | None, benchmark: str | None) -> str:
    groups: dict[tuple[str, str, str, str, str], list[Record]] = {}
    for record in records:
        if (machine is None or record.machine == machine) and benchmark in (None, record.benchmark):
            key = (record.machine, record.benchmark, record.fleet, record.step, record.unit)
            groups.setdefault(key, []).append(record)
    rows = ["| machine | benchmark | fleet | figure | runs | median | spread | last | last commit |"]
    rows.append("|---|---|---|---|---:|---:|---:|---:|---|")
    for (machine_name, name, fleet, step, unit), group in groups.items():
        medians = [r.median for r in group]
        middle = statistics.median(medians)
        spread = statistics.median(abs(m - middle) for m in medians)
        rows.append(
            f"| {machine_name} | {name} | {fleet} | {step} | {len(group)} | {_number(middle)} {unit} "
            f"| {_number(spread)} | {_number(group[-1].median)} {unit} | {group[-1].commit} |"
        )
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--all-machines", action="store_true", help="every machine class, not only this one")
    parser.add_argument("--benchmark", help="one benchmark only (e.g. bench_incremental)")
    args = parser.parse_args(argv)
    path = history_path() or HISTORY
    machine = None if args.all_machines else machine_class()
    print(summary(load(path), machine, args.benchmark))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
