"""``collect`` against kubectls that misbehave: a real executable standing in for kubectl (a shell script,
through ``GITOPS_KARMADA_KUBECTL``) hangs, prints garbage, prints without end, or stops half-way, for one
cluster each, while the real kubectl reads a healthy cluster on a loopback API server. The daemon's collect
loop runs in process on a real repository, with a kubectl bound of 1.5 s instead of 10 s, so a round with a
hung cluster lasts seconds.
"""

from __future__ import annotations

import resource
import signal
import stat
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from loguru import logger

from gitops_karmada.adapters.external_sources import kubectl_path
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.daemon.collect_loop import CollectLoop
from gitops_karmada.daemon.metrics import DaemonMetrics
from gitops_karmada.daemon.settings import CollectLoopSettings, WorkerSettings
from gitops_karmada.daemon.status import DaemonStatus, Snapshot
from gitops_karmada.usecases.collect import Member
from tests.builders import cluster_doc, configmap
from tests.cli.test_watch_collect import ready, snapshot_at, status_commits
from tests.cli.watch_harness import TIMEOUT as DAEMON_TIMEOUT
from tests.cli.watch_harness import Daemon, wait_for
from tests.fleet import FleetRepo
from tests.kube_api import Answer, KubeApi, closed_port, kubeconfig, object_list

if TYPE_CHECKING:
    from collections.abc import Iterator

    from loguru import Record

TIMEOUT = 0.5
MARGIN = 1.0
BOUND = TIMEOUT + MARGIN
"""What one kubectl call may last before it is killed."""

FAKE_KUBECTL = """#!/bin/sh
# the last argument is the path asked; the kubeconfig's file name says how to misbehave
for arg; do
  case "$arg" in --kubeconfig=*) config="${arg#--kubeconfig=}" ;; esac
  path="$arg"
done
case "$(basename "$config")" in
  hang.*) exec sleep 3600 ;;
  garbage.*) printf '\\377\\376<html>\\000{{ not: [json\\n' ; exit 0 ;;
  endless.*) exec cat /dev/zero ;;
  endless-stderr.*) exec cat /dev/zero >&2 ;;
  half.*|crash.*)
    case "$path" in
      /readyz) printf ok ; exit 0 ;;
      /version) printf '{"gitVersion": "v1.30.2"}' ; exit 0 ;;
    esac
    printf '{"kind": "List", "items": [{"metadata": {"name": "n1"'
    case "$(basename "$config")" in half.*) exit 0 ;; esac
    kill -SEGV $$ ;;
esac
exec "$REAL_KUBECTL" "$@"
"""

MISBEHAVING = ("hang", "garbage", "endless", "endless-stderr", "half", "crash")


@pytest.fixture
def fake_kubectl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    real = kubectl_path()
    assert real is not None
    script = tmp_path / "bin" / "kubectl"
    script.parent.mkdir()
    script.write_text(FAKE_KUBECTL)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("REAL_KUBECTL", real)
    monkeypatch.setenv("GITOPS_KARMADA_KUBECTL", str(script))
    return script


@pytest.fixture
def api() -> Iterator[KubeApi]:
    with KubeApi(
        {
            "/readyz": Answer("ok"),
            "/version": Answer({"major": "1", "minor": "30", "gitVersion": "v1.30.2"}),
            "/api/v1/nodes": object_list("NodeList", []),
            "/api/v1/pods": object_list("PodList", []),
            "/api/v1/configmaps": object_list("ConfigMapList", [configmap("settings", "shop")]),
        }
    ) as served:
        yield served


@pytest.fixture
def log() -> Iterator[list[Record]]:
    records: list[Record] = []
    sink = logger.add(lambda m: records.append(m.record), level="DEBUG", format="{message}")
    yield records
    logger.remove(sink)


HUNG = tuple(f"hang{i}" for i in range(1, 8))


def fleet(tmp_path: Path) -> FleetRepo:
    """member1 (healthy), one cluster per misbehaviour and seven more, each with a manifest in its folder."""
    names = ["member1", *MISBEHAVING, *HUNG]
    files: dict[str, Any] = {
        f"clusters/{n}/shop/configmap/settings.yaml": configmap("settings", "shop") for n in names
    }
    files |= {f"inventory/{n}.yaml": cluster_doc(n) for n in names}
    return FleetRepo.create(tmp_path / "fleet", files)


def collector(repo: FleetRepo, members: tuple[Member, ...]) -> CollectLoop:
    return CollectLoop(
        GitStore.open(repo.path),
        CollectLoopSettings(members, interval=20, timeout=TIMEOUT, margin=MARGIN),
        WorkerSettings(branch="main", remote=None, push=False, interval=60),
        DaemonStatus(Snapshot(repository=str(repo.path), branch="main", mode="local")),
        DaemonMetrics(),
        lambda: None,
    )


def members(tmp_path: Path, api: KubeApi) -> tuple[Member, ...]:
    unused = f"http://127.0.0.1:{closed_port()}"
    bad = tuple(Member(n, kubeconfig(tmp_path / f"{n}.kubeconfig", unused)) for n in MISBEHAVING)
    return (Member("member1", api.kubeconfig(tmp_path / "member1.kubeconfig")), *bad)


def kubectls_left(script: Path) -> list[str]:
    """Processes started as the fake kubectl (or what it exec'd), found by the variable naming it (a daemon
    started by a test has it too)."""
    mark = f"GITOPS_KARMADA_KUBECTL={script}".encode()
    left = []
    for process in Path("/proc").iterdir():
        if not process.name.isdigit():
            continue
        try:
            if mark in (process / "environ").read_bytes().split(b"\0"):
                command = (process / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                if "-m gitops_karmada " not in command:  # the daemon that runs them
                    left.append(command)
        except OSError:
            continue
    return left


def test_each_misbehaving_kubectl_is_bounded_and_named_and_the_others_are_recorded(
    tmp_path: Path, api: KubeApi, fake_kubectl: Path, log: list[Record]
) -> None:
    repo = fleet(tmp_path)
    loop = collector(repo, members(tmp_path, api))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    assert loop.run_round_guarded() == "recorded"
    took = time.monotonic() - started
    # read at once: the hung cluster and the endless stderr each cost one bound, together, not one after
    # the other (in turn the round takes two bounds and more)
    assert BOUND <= took < BOUND + 1.2, took
    # 64 MiB at most was kept of the endless answer (it never ends by itself: it was cut off)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 200 * 1024, "KiB"
    assert kubectls_left(fake_kubectl) == []
    # the healthy cluster is recorded with what it holds
    assert ready(repo.path, cluster="member1") == ("True", "ClusterReady")
    member1 = snapshot_at(repo.path, "gitops-karmada-status", "member1")
    assert member1 is not None and [o.get("observed") is not None for o in member1["objects"]] == [True]
    # each misbehaving one is recorded as Karmada would, or not at all when kubectl failed, and named
    assert ready(repo.path, cluster="hang") == ("False", "ClusterNotReachable")
    assert ready(repo.path, cluster="endless-stderr") == ("False", "ClusterNotReachable")
    assert ready(repo.path, cluster="garbage") == ("False", "ClusterNotReady")
    assert ready(repo.path, cluster="endless") == ("False", "ClusterNotReady")
    half = snapshot_at(repo.path, "gitops-karmada-status", "half")
    assert half is not None and half["status"]["kubernetesVersion"] == "v1.30.2"
    assert "nodeSummary" not in half["status"], "a list cut half-way is not summarised"
    assert [o["error"] for o in half["objects"]] == ["the answer to /api/v1/configmaps is not JSON"]
    assert ready(repo.path, cluster="crash") is None, "a kubectl that crashed says nothing of the cluster"
    lines: dict[str, list[str]] = {}
    for record in log:
        if record["level"].name in ("WARNING", "ERROR"):
            lines.setdefault(record["extra"].get("cluster", ""), []).append(record["message"])
    # the cause, in each round; the change of Ready, once
    unreachable = "Ready=False (ClusterNotReachable: cluster is not reachable)"
    not_ready = "Ready=False (ClusterNotReady: cluster is reachable but health endpoint responded without ok)"
    assert lines.pop("hang") == [
        f"hang is not reachable: no answer to /readyz within {BOUND:g} s",
        f"hang is {unreachable}",
    ]
    assert lines.pop("endless-stderr") == [
        f"endless-stderr is not reachable: no answer to /readyz within {BOUND:g} s",
        f"endless-stderr is {unreachable}",
    ]
    assert lines.pop("garbage") == [
        "garbage is not healthy: /readyz answered '\ufffd\ufffd<html>\\x00{{ not: [json\\n', not ok",
        f"garbage is {not_ready}",
    ]
    assert lines.pop("endless") == [
        "endless is not healthy: /readyz answered TooLarge: the answer to /readyz is larger than "
        "67108864 bytes",
        f"endless is {not_ready}",
    ]
    assert lines.pop("half") == [
        "cannot list /api/v1/nodes: the answer to /api/v1/nodes is not JSON; the summaries that need it "
        "are left out",
        "cannot list /api/v1/pods: the answer to /api/v1/pods is not JSON; the summaries that need it "
        "are left out",
    ]
    assert lines.pop("crash") == [
        "cannot collect crash: kubectl was killed by SIGSEGV while asking /api/v1/nodes?limit=500"
    ]
    assert lines == {}, lines


def test_a_hung_cluster_costs_a_round_one_bound_and_stopping_kills_it(
    tmp_path: Path, api: KubeApi, fake_kubectl: Path
) -> None:
    """Seven clusters hang: read in turn the round would take 7 bounds (10.5 s); at once it takes one, and
    the healthy cluster is recorded. Stopping during the next round kills the calls in flight at once."""
    repo = fleet(tmp_path)
    healthy, hung = members(tmp_path, api)[:2]
    many = (healthy, *(Member(name, hung.kubeconfig) for name in HUNG))
    loop = collector(repo, many)
    started = time.monotonic()
    loop.run_round_guarded()
    took = time.monotonic() - started
    assert BOUND <= took < BOUND + 1.5, took
    assert ready(repo.path, cluster="member1") == ("True", "ClusterReady")
    commits = status_commits(repo.path)
    stopper = threading.Timer(0.3, loop.stop)
    stopper.start()
    started = time.monotonic()
    assert loop.run_round_guarded() is None, "a round stopped midway records nothing"
    assert time.monotonic() - started < 0.3 + 0.5
    assert status_commits(repo.path) == commits
    wait = time.monotonic() + 2
    while kubectls_left(fake_kubectl) and time.monotonic() < wait:
        time.sleep(0.05)
    assert kubectls_left(fake_kubectl) == [], "no kubectl left behind"


def test_sigterm_during_a_hung_collection_stops_the_daemon_at_once_and_leaves_no_kubectl(
    tmp_path: Path, fake_kubectl: Path
) -> None:
    """The real daemon (a subprocess) collecting a cluster whose kubectl hangs, with the smallest
    ``--collect-timeout`` (a bound of 10.1 s): SIGTERM kills the call in flight and the daemon exits 0 at
    once; it used to wait the bound out and exit leaving the hung kubectl running in its own session."""
    repo = fleet(tmp_path)
    config = kubeconfig(tmp_path / "hang.kubeconfig", f"http://127.0.0.1:{closed_port()}")
    args = (
        "--interval",
        "60",
        "--collect-interval",
        "30",
        "--collect-timeout",
        "0.1",
        "--collect",
        f"hang1={config}",
    )
    with Daemon.start(repo.path, *args, log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: kubectls_left(fake_kubectl) != [], "the hung kubectl")
        daemon.process.send_signal(signal.SIGTERM)
        began = time.monotonic()
        assert daemon.process.wait(timeout=DAEMON_TIMEOUT) == 0, daemon.log()
        assert time.monotonic() - began < 3, "SIGTERM waited for the hung kubectl"
    wait_for(lambda: kubectls_left(fake_kubectl) == [], "no kubectl left behind", timeout=5)
    entries = daemon.entries()
    assert not [e for e in entries if e["level"] in ("error", "warning") and "hang1" in e["msg"]], entries
    assert entries[-1]["msg"] == "stopped"
