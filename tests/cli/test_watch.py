"""``gitops-karmada watch``: the daemon as a subprocess against real repositories, remotes and HTTP."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import signal
import time
from typing import TYPE_CHECKING

import pytest

from tests.budget import budget
from tests.cli.watch_harness import Daemon, Remote, clone, wait_for
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

FAST = ("--interval", "0.3")


def _remote_daemon(remote: Remote, tmp_path: Path, name: str, *args: str) -> Daemon:
    work = tmp_path / name
    if not work.exists():
        clone(remote.bare, work)
    return Daemon.start(work, "--remote", "origin", *FAST, *args, log_path=tmp_path / f"{name}.log")


# -- local mode: a ref event starts a run ---------------------------------------------------------------------


def test_local_mode_reconciles_each_push_once_and_ignores_its_own_commits(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    initial = remote.tip()
    with Daemon.start(remote.bare, "--interval", "60", log_path=tmp_path / "daemon.log") as daemon:
        # the first run needs no trigger: the branch has never been reconciled
        wait_for(lambda: remote.reconciled(remote.user.head()), "the initial reconcile")
        first = remote.push_change(8)
        # the interval is 60 s: only the ref event can have started this run
        wait_for(lambda: remote.reconciled(first), "the reconcile of a push", timeout=20)
        wait_for(lambda: daemon.runs() == 2, "two runs")
        assert daemon.runs("committed") == 2, daemon.log()
        assert daemon.get("/readyz") == (200, "ready\n")
        # the daemon's own commits moved the ref twice; neither started a run
        assert daemon.runs() == 2
        assert remote.tool_commits() == [initial, first]
        assert daemon.terminate() == 0
    assert any(e["msg"] == "stopped" for e in daemon.entries())
    entries = [e for e in daemon.entries() if e.get("logger") == "watch" and e.get("result") == "committed"]
    assert entries and all("source" in e and "durationSeconds" in e for e in entries)
    # how much each run redid: the whole fleet at first, then the one template the push changed
    assert entries[0]["redone"] >= 1 and entries[1]["redone"] == 1, entries


def test_a_burst_of_commits_is_one_run_of_the_newest(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    with Daemon.start(remote.bare, "--interval", "60", log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: daemon.runs() == 1, "the initial reconcile")
        git(remote.user.path, "fetch", "-q", "origin")
        git(remote.user.path, "reset", "-q", "--hard", "origin/main")
        from tests.builders import deployment

        for replicas in range(5, 10):
            remote.user.write("apps/web.yaml", deployment("web", "shop", replicas=replicas))
            newest = remote.user.commit(f"web: {replicas}")
        git(remote.user.path, "push", "-q", "origin", "main")
        wait_for(lambda: remote.reconciled(newest), "the reconcile of the newest commit", timeout=20)
        # the branch moves when the run commits; the run is counted just after
        wait_for(lambda: daemon.runs() >= 2, "the run to be counted")
        time.sleep(0.5)  # a second run, if there were one, would start within the debounce
        assert daemon.runs() == 2, "five commits, one push: one run"
        assert len(remote.tool_commits()) == 2


# -- remote mode: fetch, reconcile, push -----------------------------------------------------------------------


def test_remote_mode_pushes_a_reconcile_commit_with_the_source_trailer(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    with _remote_daemon(remote, tmp_path, "daemon") as daemon:
        wait_for(lambda: remote.reconciled(remote.user.head()), "the initial reconcile")
        source = remote.push_change(6)
        wait_for(lambda: remote.reconciled(source), "the reconcile of the push")
        trailers = remote.trailers(remote.tip())
        assert trailers["Rendered-By"].startswith("gitops-karmada ")
        replicas = git(remote.bare, "show", "main:clusters/member1/shop/deployment.apps/web.yaml")
        assert "replicas: 5" in replicas or "replicas: 4" in replicas  # 6 split 3:1 over two clusters
        assert daemon.terminate() == 0


def test_remote_mode_reaches_an_ssh_remote_through_the_given_ssh_command(tmp_path: Path) -> None:
    """--ssh-command is used for the fetch (GitPython) and the push: a script standing in for ssh runs git's
    server side locally, as sshd would, and logs what it was asked."""
    remote = Remote.create(tmp_path)
    work = tmp_path / "daemon"
    clone(remote.bare, work)
    git(work, "remote", "set-url", "origin", f"ssh://fleet.example{remote.bare}")
    log = tmp_path / "ssh.log"
    ssh = tmp_path / "fake-ssh"
    ssh.write_text(f'#!/bin/bash\necho "$@" >> {log}\nexec bash -c "${{@: -1}}"\n')
    ssh.chmod(0o755)
    with _remote_daemon(remote, tmp_path, "daemon", "--ssh-command", str(ssh)) as daemon:
        wait_for(lambda: remote.reconciled(remote.user.head()), "the initial reconcile")
        source = remote.push_change(6)
        wait_for(lambda: remote.reconciled(source), "the reconcile of the push")
        asked = log.read_text()
        assert "fleet.example git-upload-pack" in asked and "fleet.example git-receive-pack" in asked
        assert daemon.terminate() == 0


def test_invalid_input_is_reported_once_and_the_last_good_output_stays(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    with _remote_daemon(remote, tmp_path, "daemon") as daemon:
        wait_for(lambda: remote.reconciled(remote.user.head()), "the initial reconcile")
        good = remote.tip()
        git(remote.user.path, "fetch", "-q", "origin")
        git(remote.user.path, "reset", "-q", "--hard", "origin/main")
        remote.user.write(
            "apps/web.yaml", remote.user.read("apps/web.yaml").replace("apiVersion: apps/v1\n", "")
        )
        bad = remote.user.commit("lost the apiVersion line")
        git(remote.user.path, "push", "-q", "origin", "main")
        wait_for(lambda: daemon.runs("invalid") == 1, "the invalid run")
        time.sleep(2)  # about six more polls of the same commit
        assert daemon.runs("invalid") == 1, "reported once per source commit, not on every poll"
        assert sum(1 for e in daemon.entries() if "has input errors" in e["msg"]) == 1
        assert remote.tip() == bad, "nothing written on top of an invalid commit"
        assert git(remote.bare, "rev-parse", f"{bad}~1") == good
        status, page = daemon.get("/")
        assert status == 200
        assert "apps/web.yaml[0] apiVersion: is required" in page
        assert daemon.get("/readyz")[0] == 200, "bad input is not the daemon being unhealthy"


def test_a_lost_remote_backs_off_turns_not_ready_and_recovers(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    with _remote_daemon(remote, tmp_path, "daemon", "--retry-budget", "1") as daemon:
        wait_for(lambda: daemon.get("/readyz")[0] == 200, "ready")
        hidden = tmp_path / "hidden.git"
        remote.bare.rename(hidden)
        wait_for(lambda: daemon.runs("error") >= 2, "failed fetches")
        wait_for(lambda: daemon.get("/readyz")[0] == 503, "not ready after the retry budget")
        delays = [e["retryIn"] for e in daemon.entries() if "retryIn" in e]
        assert delays[:2] == [1.0, 2.0], "exponential backoff"
        hidden.rename(remote.bare)
        source = remote.push_change(7)
        wait_for(lambda: remote.reconciled(source), "recovery", timeout=30)
        wait_for(lambda: daemon.get("/readyz")[0] == 200, "ready again")
        _, metrics = daemon.get("/metrics")
        assert 'gitops_karmada_git_errors_total{operation="fetch"}' in metrics


# -- several replicas, crashes, signals ---------------------------------------------------------------------------


@pytest.mark.long
def test_three_daemons_on_one_remote_lose_nothing_and_never_reconcile_twice(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    daemons = [_remote_daemon(remote, tmp_path, f"daemon{i}") for i in range(3)]
    try:
        rng = random.Random(7)
        for round_ in range(20):
            remote.push_change(2 + round_ % 7)
            time.sleep(rng.uniform(0.0, 0.4))  # sometimes before, sometimes during the daemons' runs
            if round_ == 9:
                # half way, a replica count no other round uses, and the daemons catch up with it however
                # slow the machine: at least one reconcile commit along the way
                middle = remote.push_change(9)
                wait_for(lambda: remote.reconciled(middle), "a reconcile half way")  # noqa: B023 - called here
        last = remote.pushed[-1]
        wait_for(lambda: remote.reconciled(last), "convergence on the last user commit")
        history = git(remote.bare, "rev-list", "refs/heads/main").splitlines()
        assert all(sha in history for sha in remote.pushed), "a user commit was lost"
        sources = remote.tool_commits()
        assert len(sources) == len(set(sources)), f"a source commit was reconciled twice: {sources}"
        assert len(sources) >= 3, "the daemons reconciled along the way, not only at the start and the end"
        races = sum(1 for d in daemons for e in d.entries() if e["msg"].startswith("push rejected"))
        pushers = sum(1 for d in daemons if any(e.get("pushed") and e.get("commit") for e in d.entries()))
        assert pushers >= 2 or races >= 1, "the replicas never competed"
        assert all(d.terminate() == 0 for d in daemons)
    finally:
        for daemon in daemons:
            daemon.__exit__()


@pytest.mark.long
def test_kill_9_at_random_points_leaves_the_remote_whole_and_a_restart_converges(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    rng = random.Random(1234)
    for trial in range(budget(12, 30)):
        daemon = _remote_daemon(remote, tmp_path, "daemon")
        # a replica count never used before: a change back to the last reconciled value would render the
        # same output, which the daemon rightly reconciles with no commit at all
        source = remote.push_change(2 + trial)
        time.sleep(rng.uniform(0.0, 1.2))  # somewhere in fetch, render, commit, work-tree sync or push
        daemon.kill()
        tip = remote.tip()
        # the remote ref moves only by a push: it holds the user's commit or a complete reconcile of it
        assert tip == source or remote.trailers(tip).get("Source-Commit") == source, trial
    with _remote_daemon(remote, tmp_path, "daemon") as daemon:
        wait_for(lambda: remote.reconciled(remote.pushed[-1]), "convergence after the crashes")
        work = tmp_path / "daemon"
        assert git(work, "status", "--porcelain") == "", "the work tree of the crashed daemon is whole again"
        sources = remote.tool_commits()
        assert len(sources) == len(set(sources))
        assert daemon.terminate() == 0


def test_sigterm_during_a_run_finishes_it_and_exits_0(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    daemon = _remote_daemon(remote, tmp_path, "daemon")
    wait_for(lambda: daemon.runs() >= 1, "the first run")
    source = remote.push_change(9)
    time.sleep(0.4)  # the next poll has started the run, or is about to
    assert daemon.terminate() == 0
    tip = remote.tip()
    assert tip == source or remote.reconciled(source)


def test_sigterm_stops_a_daemon_whose_runs_forked_a_lua_worker(tmp_path: Path) -> None:
    # the example fleet's ResourceInterpreterCustomizations run in a forked worker process, which inherits the
    # daemon's signal handlers: exiting must still end it, and the daemon with it
    remote = Remote.create(tmp_path, example=True)
    with _remote_daemon(remote, tmp_path, "daemon") as daemon:
        wait_for(lambda: remote.reconciled(remote.user.head()), "the initial reconcile")
        assert daemon.terminate() == 0


def test_sighup_starts_a_run_at_once(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    with Daemon.start(remote.bare, "--interval", "60", log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: daemon.runs() == 1, "the initial reconcile")
        daemon.process.send_signal(signal.SIGHUP)
        wait_for(
            lambda: any(e.get("msg", "").startswith("SIGHUP") for e in daemon.entries()), "the SIGHUP log"
        )
        assert daemon.process.poll() is None


# -- HTTP: webhook, metrics, status page -------------------------------------------------------------------------

SECRET = b"s3cret-for-the-webhook"


def _signed(body: bytes, event: str = "push") -> dict[str, str]:
    signature = "sha256=" + hmac.new(SECRET, body, hashlib.sha256).hexdigest()
    return {"X-GitHub-Event": event, "X-Hub-Signature-256": signature, "Content-Type": "application/json"}


def test_the_webhook_is_verified_bounded_and_triggers_a_run(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    secret_file = tmp_path / "secret"
    secret_file.write_bytes(SECRET + b"\n")
    work = tmp_path / "daemon"
    clone(remote.bare, work)
    args = ("--remote", "origin", "--interval", "60", "--webhook-secret-file", str(secret_file))
    with Daemon.start(work, *args, log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: daemon.runs() == 1, "the initial reconcile")
        push = json.dumps({"ref": "refs/heads/main"}).encode()
        assert daemon.post("/hooks/git", push, {"X-GitHub-Event": "push"}) == 401
        assert daemon.post("/hooks/git", push, {**_signed(push), "X-Hub-Signature-256": "sha256=00"}) == 401
        assert daemon.post("/hooks/git", b"x" * (6 * 1024 * 1024), _signed(b"x")) == 413
        assert daemon.post("/hooks/git", push, _signed(push, "issues")) == 200
        other = json.dumps({"ref": "refs/heads/other"}).encode()
        assert daemon.post("/hooks/git", other, _signed(other)) == 200
        gitlab = {"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": "wrong"}
        assert daemon.post("/hooks/git", push, gitlab) == 401
        assert daemon.runs() == 1, "nothing above started a run"
        source = remote.push_change(3)
        assert daemon.post("/hooks/git", push, _signed(push)) == 202
        wait_for(lambda: remote.reconciled(source), "the webhook's run", timeout=20)


def test_without_a_secret_the_webhook_is_off(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    with Daemon.start(remote.bare, "--interval", "60", log_path=tmp_path / "daemon.log") as daemon:
        body = json.dumps({"ref": "refs/heads/main"}).encode()
        assert daemon.post("/hooks/git", body, _signed(body)) == 404


def test_metrics_health_and_the_status_page(tmp_path: Path) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    remote = Remote.create(tmp_path)
    with Daemon.start(remote.bare, "--interval", "60", log_path=tmp_path / "daemon.log") as daemon:
        assert daemon.get("/healthz") == (200, "ok\n")
        wait_for(lambda: daemon.runs() == 1, "the initial reconcile")
        _, text = daemon.get("/metrics")
        families = {f.name: f for f in text_string_to_metric_families(text)}
        for name in (
            "gitops_karmada_reconcile_duration_seconds",
            "gitops_karmada_reconcile_runs",
            "gitops_karmada_last_success_timestamp_seconds",
            "gitops_karmada_source_lag_seconds",
            "gitops_karmada_bindings",
            "gitops_karmada_templates_unmatched",
            "gitops_karmada_guardrail_refusals",
            "gitops_karmada_git_errors",
        ):
            assert name in families, name
        bindings = {s.labels["workload"]: s.value for s in families["gitops_karmada_bindings"].samples}
        assert bindings == {"true": 1.0, "false": 1.0}  # the web Deployment; the settings ConfigMap
        status, page = daemon.get("/")
        assert status == 200
        assert '<table id="grid">' in page
        for text_ in ("Deployment.apps/shop/web", "ConfigMap/shop/settings", "member1", "member2", "member3"):
            assert text_ in page, text_
        assert "<script" not in page and 'src="http' not in page and 'href="http' not in page
        status, explained = daemon.get("/explain?template=Deployment.apps/shop/web")
        assert status == 200, explained
        assert '<pre id="explain">' in explained and "shop/web" in explained
        assert daemon.get("/explain?template=Deployment/shop/nope")[0] == 404
        assert daemon.get("/nope")[0] == 404


def test_bad_options_are_usage_errors(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    work = tmp_path / "work"
    clone(remote.bare, work)
    git(work, "branch", "--unset-upstream")
    from tests.fleet import FleetRepo

    repo = FleetRepo(work)
    assert "must be origin/main" in repo.cli("watch", "--remote", "origin", check=2).stderr
    assert "is not HOST:PORT" in repo.cli("watch", "--listen", "nowhere", check=2).stderr
