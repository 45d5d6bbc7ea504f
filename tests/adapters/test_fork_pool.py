"""Issue 12: independent per-template work across forked processes, with the same results as in one.

Real forks: the children's process ids show the work was spread; a child that fails has its chunk redone
in the parent; and a run of the demo fleet and of a Karmada-scale-shaped fleet makes the same files and
diagnostics with and without children.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from loguru import logger

from benchmarks.fleet import write_karmada_fleet
from gitops_karmada.adapters.fork_pool import ForkPool, configured_workers, usable_cpus
from gitops_karmada.adapters.repository import read_worktree
from gitops_karmada.core.codecs.serialize import dump_yaml
from gitops_karmada.model.errors import AdapterError, RunCancelled
from gitops_karmada.reconcile import reconcile
from tests.builders import deployment, pp_doc
from tests.cli.test_quota import GATES, frq, roomy

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

REPO_LAYOUT = Path(__file__).resolve().parents[2] / "repo-layout"
SPREAD = ForkPool(workers=3, min_per_worker=1, with_threads=True)
"""Forks for any number of items, under pytest's threads too."""


def _tagged(items: Sequence[int]) -> list[tuple[int, int]]:
    return [(item * 2, os.getpid()) for item in items]


def _slow_tagged(items: Sequence[int]) -> list[tuple[int, int]]:
    time.sleep(0.002 * len(items))  # long enough that every process takes slices before they run out
    return _tagged(items)


def test_results_come_back_in_order_from_several_processes() -> None:
    items = list(range(300))

    found = SPREAD(_slow_tagged, items)

    assert [value for value, _pid in found] == [item * 2 for item in items]
    pids = [pid for _value, pid in found]
    assert len(set(pids)) == 3 and pids[0] == os.getpid(), "the parent does the first slice"


def test_a_slower_process_takes_fewer_slices() -> None:
    """The slices are taken from a shared queue, not dealt out beforehand: a process that works more slowly
    (this one here, made three times slower) does less of the work instead of keeping the others waiting."""
    parent = os.getpid()

    def parent_is_slow(items: Sequence[int]) -> list[tuple[int, int]]:
        time.sleep((0.006 if os.getpid() == parent else 0.002) * len(items))
        return _tagged(items)

    found = ForkPool(workers=2, min_per_worker=1, with_threads=True)(parent_is_slow, list(range(400)))

    assert [value for value, _pid in found] == [item * 2 for item in range(400)]
    here = sum(1 for _value, pid in found if pid == parent)
    assert 40 <= here <= 160, f"{here} of 400 items done by the slower process (about 100 expected)"


_SHARED = {"explanation": list(range(1000))}
"""What many results share (a scheduling explanation, a cluster): sent once per child, not once per slice."""


def _sharing(items: Sequence[int]) -> list[tuple[int, dict[str, list[int]]]]:
    time.sleep(0.002 * len(items))
    return [(os.getpid(), _SHARED) for _ in items]


def test_an_object_the_results_share_comes_back_once_per_child() -> None:
    found = SPREAD(_sharing, list(range(300)))

    by_process: dict[int, set[int]] = {}
    for pid, shared in found:
        by_process.setdefault(pid, set()).add(id(shared))
        assert shared == _SHARED
    assert len(by_process) == 3
    assert by_process[os.getpid()] == {id(_SHARED)}
    assert all(len(ids) == 1 for ids in by_process.values()), "one copy per child, however many slices it did"


def test_progress_is_told_in_this_process_counting_up_to_the_total() -> None:
    seen: list[tuple[int, int]] = []

    SPREAD(_tagged, list(range(300)), lambda done: seen.append((done, os.getpid())))

    counts = [done for done, _pid in seen]
    assert counts == sorted(counts) and len(counts) > 10
    assert counts[-1] == 300 and all(done < 300 for done in counts[:-1])
    assert {pid for _done, pid in seen} == {os.getpid()}


def test_too_few_items_are_done_in_this_process() -> None:
    found = ForkPool(workers=4, min_per_worker=50, with_threads=True)(_tagged, list(range(99)))

    assert {pid for _value, pid in found} == {os.getpid()}


def _spread_warning(
    work: Callable[[Sequence[int]], list[int]], items: list[int]
) -> tuple[list[int], list[str]]:
    """``SPREAD(work, items)`` and the warnings it logged."""
    lines: list[str] = []
    sink = logger.add(lambda message: lines.append(str(message)), level="WARNING", format="{message}")
    try:
        return SPREAD(work, items), lines
    finally:
        logger.remove(sink)


def test_a_chunk_whose_child_fails_is_redone_here_and_named() -> None:
    parent = os.getpid()

    def fails_in_children(items: Sequence[int]) -> list[int]:
        if os.getpid() != parent:
            raise RuntimeError("out of luck")
        time.sleep(0.005 * len(items))  # the children take slices while this process works
        return [item + 1 for item in items]

    found, lines = _spread_warning(fails_in_children, list(range(30)))

    assert found == list(range(1, 31))
    assert len(lines) == 2, "each child that failed is named once"
    assert all(
        re.search(
            r"a worker process failed on [1-9]\d* item\(s\): RuntimeError: out of luck; they are redone", line
        )
        for line in lines
    )


def test_a_child_that_dies_has_its_slices_redone_here() -> None:
    parent = os.getpid()

    def dies_in_children(items: Sequence[int]) -> list[int]:
        if os.getpid() != parent:
            os._exit(3)  # as if killed: no message, no result
        time.sleep(0.001 * len(items))
        return [item * 3 for item in items]

    found, lines = _spread_warning(dies_in_children, list(range(60)))

    assert found == [item * 3 for item in range(60)]
    assert lines and all("a worker process failed on" in line and "wait status" in line for line in lines)


DEPLOYMENT_RIC: dict[str, Any] = {
    "apiVersion": "config.karmada.io/v1alpha1",
    "kind": "ResourceInterpreterCustomization",
    "metadata": {"name": "deployments"},
    "spec": {
        "target": {"apiVersion": "apps/v1", "kind": "Deployment"},
        "customizations": {
            "replicaResource": {
                "luaScript": "function GetReplicas(obj)\n  return obj.spec.replicas, {}\nend\n"
            }
        },
    },
}
"""Every Deployment's replicas asked of Lua: each forked child starts a Lua worker of its own."""


def _children() -> set[int]:
    found: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(OSError):
            found |= {int(pid) for pid in (task / "children").read_text().split()}
    return found


def _group() -> set[int]:
    """This process group's processes but this one, its ancestors and their other children (pytest-xdist's
    workers, which may still be starting when this test runs): forked children, their Lua workers (a worker
    whose child was killed would be left here, reparented)."""
    ancestors, pid = set(), os.getpid()
    while pid > 1:
        ancestors.add(pid)
        stat = Path(f"/proc/{pid}/stat").read_text()
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    siblings_of = ancestors - {os.getpid()}
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) not in ancestors:
            with contextlib.suppress(OSError, IndexError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == os.getpgrp() and int(fields[1]) not in siblings_of:
                    found.add(int(entry.name))
    return found


def test_a_child_killed_mid_run_has_its_slices_redone_and_leaves_no_process(tmp_path: Path) -> None:
    """A first reconcile of 600 templates over two forked children (the default of 256 items per process
    and more), one of them killed with SIGKILL while it works: the files are the ones a run without children
    makes, byte for byte, the death is one warning, the dead child is reaped and its Lua worker gone."""
    root = tmp_path / "fleet"
    write_karmada_fleet(root, 600, 60, 6)
    (root / "interpreters.yaml").write_text(dump_yaml(DEPLOYMENT_RIC))
    state = read_worktree(root, datetime(2026, 1, 1, tzinfo=UTC))
    alone = reconcile(state.request.with_ports(fan_out=None))
    assert alone.input_ok and alone.files
    children, group = _children(), _group()  # the Lua worker of this process, among others
    killed: list[int] = []
    its_lua: list[str] = []

    over = threading.Event()

    def kill_one() -> None:
        while not over.is_set():
            # the first child forked, once it is at work: it has started its Lua worker
            for pid in sorted(_children() - children)[:1]:
                with contextlib.suppress(OSError):
                    its_lua.extend(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
                if its_lua:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    return
            time.sleep(0.001)

    killer = threading.Thread(target=kill_one)
    lines: list[str] = []
    sink = logger.add(lambda message: lines.append(str(message)), level="WARNING", format="{message}")
    try:
        killer.start()
        spread = reconcile(state.request.with_ports(fan_out=ForkPool(workers=2, with_threads=True)))
    finally:
        over.set()
        killer.join()
        logger.remove(sink)

    assert killed, "a child was forked and killed"
    assert its_lua, "the killed child had started its Lua worker"
    assert spread.files == alone.files
    assert spread.diagnostics == alone.diagnostics
    assert [line for line in lines if "worker process" in line] == [
        next(line for line in lines if "no result (wait status 9)" in line)
    ], lines
    # reaped: a zombie would still be listed among this process's children
    assert _children() == children
    deadline = time.monotonic() + 5
    while (left := _group() - group) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not left, [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in left]


def test_an_error_everywhere_raises_in_the_parent() -> None:
    def broken(items: Sequence[int]) -> list[int]:
        raise ValueError(f"bad item {items[0]}")

    with pytest.raises(ValueError, match="bad item 0"):
        SPREAD(broken, list(range(30)))


def _quota_fold(root: Path) -> None:
    """Ten workloads of 6 CPUs against a quota of 10 in one namespace: the first is admitted, the others
    are refused because it was (the quota fold is ordered), and ten more in another namespace."""
    files: dict[str, Any] = {
        "gitops-karmada.yaml": GATES,
        "inventory/member1.yaml": roomy("member1"),
        "inventory/member2.yaml": roomy("member2"),
        "quota.yaml": frq("shop", {"cpu": "10"}),
    }
    for namespace in ("shop", "free"):
        selectors = [{"apiVersion": "apps/v1", "kind": "Deployment"}]
        files[f"policies/{namespace}.yaml"] = pp_doc("all", namespace, selectors)
        for index in range(10):
            files[f"apps/{namespace}-{index}.yaml"] = deployment(
                f"web-{index}", namespace, replicas=3, requests={"cpu": "1", "memory": "1Gi"}
            )
    for path, document in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(document if isinstance(document, str) else dump_yaml(document))


@pytest.mark.parametrize("fleet", ["repo-layout", "karmada-shaped", "quota-fold"])
def test_a_run_spread_over_processes_makes_what_one_process_makes(tmp_path: Path, fleet: str) -> None:
    root = tmp_path / "fleet"
    if fleet == "repo-layout":
        shutil.copytree(REPO_LAYOUT, root)
    elif fleet == "karmada-shaped":
        write_karmada_fleet(root, 120, 60, 6)
    else:
        _quota_fold(root)
    state = read_worktree(root, datetime(2026, 1, 1, tzinfo=UTC))

    spread_items: list[int] = []

    def counted(
        work: Callable[[Sequence[Any]], list[Any]],
        items: Sequence[Any],
        done: Callable[[int], None] | None = None,
    ) -> list[Any]:
        spread_items.append(len(items))
        return SPREAD(work, items, done)

    alone = reconcile(state.request.with_ports(fan_out=None))
    spread = reconcile(state.request.with_ports(fan_out=counted))

    assert spread_items and spread_items[0] >= 3, "enough independent templates for three processes"
    assert alone.input_ok and alone.files
    if fleet == "quota-fold":
        refused = [o for o in alone.outcomes if o.key.namespace == "shop" and o.failed]
        assert len(refused) == 9, "all but the first exceed the quota"
    assert spread.files == alone.files
    assert spread.diagnostics == alone.diagnostics
    assert [(o.key, o.match, o.binding, o.paths) for o in spread.outcomes] == [
        (o.key, o.match, o.binding, o.paths) for o in alone.outcomes
    ]


@pytest.mark.parametrize(
    ("cpu_max", "expected"),
    [("max 100000\n", 2), ("150000 100000\n", 2), ("50000 100000\n", 1), ("nonsense", 2)],
    ids=["no-quota", "one-and-a-half-cpus", "half-a-cpu", "unreadable"],
)
def test_a_cgroup_quota_caps_the_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cpu_max: str, expected: int
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    quota = tmp_path / "cpu.max"
    quota.write_text(cpu_max)

    assert usable_cpus(quota) == expected
    assert usable_cpus(tmp_path / "absent") == 2


def test_the_environment_sets_the_processes_and_a_bad_value_is_named() -> None:
    assert configured_workers({"GITOPS_KARMADA_WORKERS": "3"}) == 3
    assert configured_workers({}) == usable_cpus()
    for bad in ("0", "two", "-1", "1.5"):
        with pytest.raises(AdapterError, match=f"GITOPS_KARMADA_WORKERS must be a whole number.*{bad!r}"):
            configured_workers({"GITOPS_KARMADA_WORKERS": bad})


def test_a_run_is_asked_whether_it_is_cancelled_between_independent_templates(tmp_path: Path) -> None:
    """The daemon's status runs give way to a user commit between templates: templates redone ahead of the
    run's loop are no exception."""
    root = tmp_path / "fleet"
    write_karmada_fleet(root, 120, 60, 6)
    state = read_worktree(root, datetime(2026, 1, 1, tzinfo=UTC))
    asked: list[int] = []
    spreading: list[int] = []
    returned: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return bool(spreading) and len(asked) > spreading[0] + 10

    def watched(
        work: Callable[[Sequence[Any]], list[Any]],
        items: Sequence[Any],
        done: Callable[[int], None] | None = None,
    ) -> list[Any]:
        spreading.append(len(asked))
        found = ForkPool(workers=1)(work, items, done)
        returned.append(len(found))
        return found

    with pytest.raises(RunCancelled):
        reconcile(state.request.with_ports(fan_out=watched, cancelled=cancelled))
    assert spreading, "the templates were redone ahead of the loop"
    assert not returned, "the run stopped while they were redone"
