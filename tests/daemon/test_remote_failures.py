"""Issue 39: the worker under remote and repository faults, against the real daemon on real repositories.

Readiness comes back once the remote does (without a new commit), a push landing during a local run is a
rerun on the new tip (not an error), a rewritten remote branch or a dropped status commit is logged and
counted, a hung fetch is logged and turns ``/readyz`` 503, and SIGTERM does not wait for it.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from tests.cli.watch_harness import TIMEOUT, Daemon, Remote, clone, wait_for
from tests.gitrepos import git


def _remote_daemon(remote: Remote, tmp_path: Path, *args: str) -> Daemon:
    work = tmp_path / "daemon"
    if not work.exists():
        clone(remote.bare, work)
    return Daemon.start(
        work, "--remote", "origin", "--interval", "0.3", *args, log_path=tmp_path / "daemon.log"
    )


def _metric(daemon: Daemon, name: str, **labels: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    _, text = daemon.get("/metrics")
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return float(sample.value)
    raise AssertionError(f"no sample {name} {labels}")


def test_readiness_returns_with_the_remote_without_a_new_commit(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    with _remote_daemon(remote, tmp_path, "--retry-budget", "1") as daemon:
        wait_for(lambda: daemon.get("/readyz")[0] == 200, "ready")
        tip = remote.tip()
        hidden = tmp_path / "hidden.git"
        remote.bare.rename(hidden)
        wait_for(lambda: daemon.get("/readyz")[0] == 503, "not ready after the retry budget")
        hidden.rename(remote.bare)
        # nothing was pushed meanwhile: the first fetch that works finds nothing to do, and that is enough
        wait_for(lambda: daemon.get("/readyz")[0] == 200, "ready again without a new commit", timeout=30)
        assert remote.tip() == tip
        assert any(e["msg"].startswith("recovered after ") for e in daemon.entries()), daemon.log()


def test_a_push_landing_during_a_local_run_is_a_rerun_on_the_new_tip(tmp_path: Path) -> None:
    """A ``git`` on PATH that, at the run's ``fast-import``, moves the branch to a user commit first: the run's
    compare-and-swap loses, deterministically."""
    remote = Remote.create(tmp_path)
    real_git = shutil.which("git")
    assert real_git is not None
    trigger = tmp_path / "move-branch-to"
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" fast-import "*) if [ -f {trigger} ]; then\n'
        f'  sha=$(cat {trigger}); rm -f {trigger}; {real_git} --git-dir={remote.bare} update-ref refs/heads/main "$sha"\n'
        "fi;; esac\n"
        f'exec {real_git} "$@"\n'
    )
    wrapper.chmod(0o755)
    env = {"PATH": f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"}
    with Daemon.start(remote.bare, "--interval", "60", log_path=tmp_path / "daemon.log", env=env) as daemon:
        wait_for(lambda: daemon.runs() == 1, "the initial reconcile")
        first = remote.push_change(7)  # not yet: the trigger is written after this push started a run
        wait_for(lambda: remote.reconciled(first), "the reconcile of the first push")
        # a user commit on top of a second one, landing while the second one's run writes its commit
        user = remote.user
        from tests.builders import deployment

        git(user.path, "fetch", "-q", "origin")
        git(user.path, "reset", "-q", "--hard", "origin/main")
        user.write("apps/web.yaml", deployment("web", "shop", replicas=2))
        second = user.commit("web: 2 replicas")
        user.write("apps/web.yaml", deployment("web", "shop", replicas=3))
        landing = user.commit("web: 3 replicas")
        git(user.path, "push", "-q", "origin", f"{landing}:refs/heads/landing")
        trigger.write_text(landing)
        git(user.path, "push", "-q", "origin", f"{second}:refs/heads/main")
        wait_for(lambda: remote.reconciled(landing), "the reconcile of the commit that landed during the run")
        assert not trigger.exists(), "the run for the second push reached its commit"
        assert daemon.runs("error") == 0, daemon.log()
        assert daemon.runs("superseded") == 1
        assert not any("retryIn" in e for e in daemon.entries()), "no backoff"
        assert daemon.get("/readyz")[0] == 200
        assert any("moved to" in e["msg"] and "a push landed" in e["msg"] for e in daemon.entries())


def test_a_force_pushed_remote_and_a_dropped_status_commit_are_logged_and_counted(tmp_path: Path) -> None:
    remote = Remote.create(tmp_path)
    user = remote.user
    # a status branch on the remote, as a collector elsewhere would have made it
    git(user.path, "checkout", "-q", "--orphan", "status")
    git(user.path, "rm", "-rq", "--cached", ".")
    (user.path / "notes.txt").write_text("collected elsewhere\n")
    git(user.path, "add", "notes.txt")
    git(user.path, "commit", "-qm", "status")
    git(user.path, "push", "-q", "origin", "HEAD:refs/heads/gitops-karmada-status")
    git(user.path, "checkout", "-qf", "main")
    with _remote_daemon(remote, tmp_path) as daemon:
        wait_for(lambda: remote.reconciled(user.head()), "the initial reconcile")
        # someone rewrites the remote branch: the reconcile commit is gone from its history
        git(user.path, "commit", "-q", "--amend", "-m", "rewritten")
        rewritten = user.head()
        git(user.path, "push", "-qf", "origin", "main")
        wait_for(lambda: remote.reconciled(rewritten), "the reconcile of the rewritten branch")
        warnings = [e for e in daemon.entries() if "was rewritten" in e["msg"]]
        assert warnings and warnings[0]["branch"] == "fleet" and warnings[0]["level"] == "warning", warnings
        assert _metric(daemon, "gitops_karmada_remote_rewrites_total", branch="fleet") >= 1
        # a local status commit that never reached the remote is dropped for the remote's, with a line
        work = tmp_path / "daemon"
        parent = git(work, "rev-parse", "refs/heads/gitops-karmada-status")
        tree = git(work, "rev-parse", f"{parent}^{{tree}}")
        local = git(work, "commit-tree", tree, "-p", parent, "-m", "never pushed")
        git(work, "update-ref", "refs/heads/gitops-karmada-status", local, parent)
        wait_for(
            lambda: any(
                e.get("branch") == "status" and "was rewritten" in e["msg"] for e in daemon.entries()
            ),
            "the line about the dropped status commit",
        )
        assert _metric(daemon, "gitops_karmada_remote_rewrites_total", branch="status") == 1


@pytest.mark.long
def test_a_hung_fetch_is_logged_turns_readiness_off_and_does_not_hold_sigterm(tmp_path: Path) -> None:
    """An ``ssh://`` remote whose SSH command hangs once ``hang`` exists (and records its process id)."""
    remote = Remote.create(tmp_path)
    work = tmp_path / "daemon"
    clone(remote.bare, work)
    git(work, "remote", "set-url", "origin", f"ssh://fleet.example{remote.bare}")
    hang, pids = tmp_path / "hang", tmp_path / "pids"
    ssh = tmp_path / "fake-ssh"
    ssh.write_text(
        f'#!/bin/bash\nif [ -f {hang} ]; then echo $$ >> {pids}; exec sleep 3600; fi\nexec bash -c "${{@: -1}}"\n'
    )
    ssh.chmod(0o755)
    with _remote_daemon(remote, tmp_path, "--ssh-command", str(ssh), "--retry-budget", "2") as daemon:
        wait_for(lambda: daemon.get("/readyz")[0] == 200, "ready")
        hang.touch()
        wait_for(
            lambda: any("no answer after" in e["msg"] for e in daemon.entries()), "the slow fetch's line"
        )
        wait_for(lambda: daemon.get("/readyz")[0] == 503, "not ready while the fetch hangs")
        daemon.process.send_signal(signal.SIGTERM)
        began = time.monotonic()
        assert daemon.process.wait(timeout=TIMEOUT) == 0, daemon.log()
        assert time.monotonic() - began < 30, "SIGTERM did not wait out the fetch's 10-minute bound"
    hung = [int(pid) for pid in pids.read_text().split()]
    assert hung
    # the hung SSH command went with the fetch: no orphan
    wait_for(
        lambda: not any((Path("/proc") / str(pid)).exists() for pid in hung), "the hung processes to end"
    )
    assert any(e["msg"] == "stopped" for e in daemon.entries())


def test_a_hung_push_does_not_hold_sigterm(tmp_path: Path) -> None:
    """A pre-receive hook on the remote that hangs on the daemon's reconcile commits (and records its process
    id): SIGTERM kills the push and everything it started (the local remote's receive-pack and its hook)
    and exits 0 at once, instead of waiting out the push's 10-minute bound; the remote branch is untouched."""
    remote = Remote.create(tmp_path)
    pids = tmp_path / "pids"
    hook = remote.bare / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\nwhile read old new ref; do\n"
        f"  if git log -1 --format=%B \"$new\" | grep -q '^Source-Commit:'; then echo $$ >> {pids}; exec sleep 3600; fi\n"
        "done\n"
    )
    hook.chmod(0o755)
    tip = remote.tip()
    with _remote_daemon(remote, tmp_path) as daemon:
        wait_for(lambda: pids.exists() and pids.read_text().strip() != "", "the daemon's push to hang")
        daemon.process.send_signal(signal.SIGTERM)
        began = time.monotonic()
        assert daemon.process.wait(timeout=TIMEOUT) == 0, daemon.log()
        assert time.monotonic() - began < 10, "SIGTERM waited for the hung push"
    hung = [int(pid) for pid in pids.read_text().split()]
    wait_for(lambda: not any((Path("/proc") / str(pid)).exists() for pid in hung), "the hung hook to end")
    messages = [e["msg"] for e in daemon.entries()]
    assert "abandoned the push or ls-remote in flight" in messages, messages
    assert any(m.startswith("stopping: the run in progress was abandoned") for m in messages), messages
    assert not any(e["level"] == "error" for e in daemon.entries()), "stopping is not a failure"
    assert remote.tip() == tip
    assert messages[-1] == "stopped"


def test_a_git_error_is_one_text_line(tmp_path: Path) -> None:
    """git's stderr has several lines; the daemon's text log keeps each record on one line that starts with
    its time."""
    import re
    import subprocess
    import sys

    remote = Remote.create(tmp_path)
    work = tmp_path / "daemon"
    clone(remote.bare, work)
    remote.bare.rename(tmp_path / "hidden.git")
    log = tmp_path / "text.log"
    command = [sys.executable, "-m", "gitops_karmada", "watch", "--repo", str(work), "--remote", "origin",
               "--listen", "off", "--interval", "60"]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=out)
    try:
        wait_for(lambda: "reconcile failed" in log.read_text(), "the failed fetch")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=TIMEOUT) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    lines = log.read_text().splitlines()
    failed = [line for line in lines if "reconcile failed" in line]
    assert failed and "does not appear to be a git repository" in failed[0], lines
    stamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d ")
    assert all(stamp.match(line) for line in lines), lines


@pytest.mark.long
def test_dns_failure_refused_credentials_and_a_hook_rejection_are_named_counted_and_retried(
    tmp_path: Path,
) -> None:
    """An ``ssh://`` remote whose SSH command fails as ssh does when ``mode`` says so; a pre-receive hook
    that declines the daemon's pushes while ``declined`` exists. Each failure is one log line with git's cause,
    counted in ``gitops_karmada_git_errors_total``, retried; the user's commit is never lost."""
    remote = Remote.create(tmp_path)
    work = tmp_path / "daemon"
    clone(remote.bare, work)
    git(work, "remote", "set-url", "origin", f"ssh://fleet.example{remote.bare}")
    mode, declined = tmp_path / "mode", tmp_path / "declined"
    ssh = tmp_path / "fake-ssh"
    ssh.write_text(
        "#!/bin/bash\n"
        f'case "$(cat {mode} 2>/dev/null)" in\n'
        '  dns) echo "ssh: Could not resolve hostname fleet.example: Name or service not known" >&2; exit 255;;\n'
        '  auth) echo "git@fleet.example: Permission denied (publickey)." >&2; exit 255;;\n'
        "esac\n"
        'exec bash -c "${@: -1}"\n'
    )
    ssh.chmod(0o755)
    hook = remote.bare / "hooks" / "pre-receive"
    hook.write_text(  # declines the daemon's reconcile commits only
        "#!/bin/sh\nwhile read old new ref; do\n"
        f"  if [ -f {declined} ] && git log -1 --format=%B $new | grep -q '^Source-Commit:'; then\n"
        "    echo 'reconcile commits are frozen' >&2; exit 1\n  fi\ndone\n"
    )
    hook.chmod(0o755)

    def failures(cause: str) -> bool:
        return any("retryIn" in e and cause in str(e["msg"]) for e in daemon.entries())

    with _remote_daemon(remote, tmp_path, "--ssh-command", str(ssh)) as daemon:
        wait_for(lambda: remote.reconciled(remote.user.head()), "the initial reconcile")
        for name, cause in (("dns", "Could not resolve hostname"), ("auth", "Permission denied (publickey)")):
            fetches = _metric(daemon, "gitops_karmada_git_errors_total", operation="fetch")
            mode.write_text(name)
            wait_for(functools.partial(failures, cause), f"the {name} failure's line")
            assert _metric(daemon, "gitops_karmada_git_errors_total", operation="fetch") > fetches
            mode.write_text("")
        declined.touch()
        source = remote.push_change(6)
        wait_for(lambda: failures("pre-receive hook declined"), "the declined push's line")
        assert _metric(daemon, "gitops_karmada_git_errors_total", operation="push") >= 1
        assert remote.tip() == source, "the user's commit stays the remote's tip"
        declined.unlink()
        wait_for(
            lambda: remote.reconciled(source), "the reconcile once pushes are accepted again", timeout=30
        )
        assert remote.tool_commits().count(source) == 1
    # every line of stderr is JSON, git's multi-line errors included (GitPython's own logging stays quiet)
    assert all(json.loads(line) for line in daemon.log().splitlines())


def test_a_killed_fast_import_fails_the_run_cleanly_and_the_next_one_converges(tmp_path: Path) -> None:
    """A ``git`` on PATH whose every ``fast-import`` is killed with SIGKILL a moment after it starts while
    ``kill-after`` names that moment: runs lose their writers at different points of their streams (at 0 s
    the run fails for certain; later, the writer may have finished)."""
    remote = Remote.create(tmp_path)
    real_git = shutil.which("git")
    trigger = tmp_path / "kill-after"
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(
        "#!/bin/bash\n"
        f'case " $* " in *" fast-import "*) if [ -f {trigger} ]; then\n'
        f"  delay=$(cat {trigger}); (sleep $delay; kill -9 $$) &\n"
        "fi;; esac\n"
        f'exec {real_git} "$@"\n'
    )
    wrapper.chmod(0o755)
    env = {"PATH": f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"}
    with Daemon.start(remote.bare, "--interval", "60", log_path=tmp_path / "daemon.log", env=env) as daemon:
        wait_for(lambda: daemon.runs() == 1, "the initial reconcile")
        for round_, delay in enumerate(("0", "0.02", "0.05", "0.1")):
            errors = daemon.runs("error")
            trigger.write_text(delay)
            source = remote.push_change(5 + round_)
            wait_for(
                functools.partial(_failed_or_reconciled, daemon, remote, errors, source),
                f"a run with its writers killed after {delay} s",
            )
            trigger.unlink()
            wait_for(functools.partial(remote.reconciled, source), f"convergence after kills at {delay} s")
        assert daemon.runs("error") >= 1, "at least one kill landed while the stream was open"
        checked = git(remote.bare, "fsck", "--no-progress", "--strict")  # exit 0, or the helper fails
        assert all(line.startswith("dangling ") for line in checked.splitlines()), checked
        ours = f"{remote.bare}\0"  # git -C <repository> fast-import …
        left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and ours in _cmdline(p)]
        left = [p for p in left if "fast-import" in _cmdline(p)]
        assert not left, "no fast-import is left behind"
        assert daemon.get("/readyz")[0] == 200
        assert daemon.terminate() == 0
    assert all(json.loads(line) for line in daemon.log().splitlines())


def _failed_or_reconciled(daemon: Daemon, remote: Remote, errors: int, source: str) -> bool:
    return daemon.runs("error") > errors or remote.reconciled(source)


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def _children(pid: int) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text() if proc.name.isdigit() else ""
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(proc.name))
    return found


def test_a_killed_worker_process_is_replaced_and_leaves_no_zombie(tmp_path: Path) -> None:
    """The example fleet's runs keep a forked worker process (Lua interpreters); SIGKILL it between runs: the
    next push is reconciled all the same, the dead child is reaped, and stopping leaves no child behind."""
    remote = Remote.create(tmp_path, example=True)
    with Daemon.start(remote.bare, "--interval", "60", log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: remote.reconciled(remote.user.head()), "the initial reconcile")
        workers: list[int] = []

        def kill_workers() -> bool:
            # a short-lived child may be listed and gone before the kill: only the kills that landed count
            for child in _children(daemon.process.pid):
                if "gitops_karmada" in _cmdline(Path(f"/proc/{child}")):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(child, signal.SIGKILL)
                        workers.append(child)
            return bool(workers)

        wait_for(kill_workers, "the example fleet's run to leave a worker process, killed")
        git(remote.user.path, "pull", "-q", "--ff-only")
        frontend = remote.user.read("apps/shop/frontend.yaml")
        remote.user.write("apps/shop/frontend.yaml", frontend.replace("replicas: 8", "replicas: 6"))
        source = remote.user.commit("frontend: 6 replicas")
        git(remote.user.path, "push", "-q", "origin", "main")
        wait_for(lambda: remote.reconciled(source), "the reconcile after the worker was killed")
        # the run's log line follows its commit: wait for it rather than race it
        wait_for(lambda: daemon.runs("committed") == 2, "the second run's log line")
        wait_for(
            lambda: not any((Path("/proc") / str(p)).exists() for p in workers), "the dead worker reaped"
        )
        pid = daemon.process.pid
        assert daemon.terminate() == 0
    assert not _children(pid)


def _push_two_mib_with_one_mib_of_room(daemon: Daemon, remote: Remote) -> tuple[tuple[int, int], str]:
    """Lower the daemon's file size limit (RLIMIT_FSIZE, which its git children inherit) to 1 MiB, then push
    a user commit holding a 2 MiB object: the limit as it was, and the commit pushed."""
    import base64
    import resource

    from tests.builders import configmap

    unlimited = resource.prlimit(daemon.process.pid, resource.RLIMIT_FSIZE)
    resource.prlimit(daemon.process.pid, resource.RLIMIT_FSIZE, (1 << 20, unlimited[1]))
    user = remote.user
    git(user.path, "pull", "-q", "--ff-only")
    blob = base64.b64encode(os.urandom(3 << 19)).decode()  # 2 MiB that no pack compresses
    user.write("apps/big.yaml", configmap("big", "shop", {"blob": blob}))
    source = user.commit("a 2 MiB ConfigMap")
    git(user.path, "push", "-q", "origin", "main")
    return unlimited, source


def test_no_room_to_write_during_a_fetch_fails_it_cleanly_and_the_next_fetch_succeeds(tmp_path: Path) -> None:
    """A full disk while the remote-mode daemon fetches a user's 2 MiB commit (RLIMIT_FSIZE of 1 MiB, which
    the fetch inherits): the fetch fails with one line naming the cause, nothing is pushed, and once the
    limit is lifted the commit is fetched and reconciled; ``git fsck`` finds the clone whole."""
    import resource

    remote = Remote.create(tmp_path)
    with _remote_daemon(remote, tmp_path, "--interval", "0.5") as daemon:
        wait_for(lambda: remote.reconciled(remote.user.head()), "the initial reconcile")
        reconciled = remote.tip()
        unlimited, source = _push_two_mib_with_one_mib_of_room(daemon, remote)
        wait_for(lambda: daemon.runs("error") >= 1, "the fetch that has no room to write")
        failed = [e for e in daemon.entries() if "retryIn" in e]
        assert failed and "fetch" in failed[0]["msg"] and "SIGXFSZ" in failed[0]["msg"], failed
        assert remote.tip() == source, "nothing pushed over the user's commit"
        assert git(remote.bare, "rev-parse", "HEAD~1") == reconciled
        resource.prlimit(daemon.process.pid, resource.RLIMIT_FSIZE, unlimited)
        wait_for(lambda: remote.reconciled(source), "the reconcile once there is room", timeout=30)
        checked = git(tmp_path / "daemon", "fsck", "--no-progress", "--strict")
        assert all(line.startswith("dangling ") for line in checked.splitlines()), checked
        assert daemon.get("/readyz")[0] == 200
        assert daemon.terminate() == 0
    assert all(json.loads(line) for line in daemon.log().splitlines())


def test_no_room_to_write_fails_the_run_cleanly_and_the_next_run_succeeds_once_there_is(
    tmp_path: Path,
) -> None:
    """A full disk, as the machine allows it: the daemon's file size limit (RLIMIT_FSIZE, which its git
    children inherit) is lowered to 1 MiB while a push needs a 2 MiB object written, then lifted."""
    import resource

    remote = Remote.create(tmp_path)
    with Daemon.start(remote.bare, "--interval", "60", log_path=tmp_path / "daemon.log") as daemon:
        wait_for(lambda: daemon.runs() == 1, "the initial reconcile")
        tip = remote.tip()
        unlimited, source = _push_two_mib_with_one_mib_of_room(daemon, remote)
        wait_for(lambda: daemon.runs("error") >= 1, "the run that has no room to write")
        [failed, *_] = [e for e in daemon.entries() if "retryIn" in e]
        assert "(killed by SIGXFSZ: the file size limit, no room to write)" in failed["msg"], failed
        assert remote.tip() == source, "the branch holds the user's commit, nothing half-written on top"
        assert git(remote.bare, "rev-parse", "HEAD~1") == tip
        resource.prlimit(daemon.process.pid, resource.RLIMIT_FSIZE, unlimited)
        wait_for(lambda: remote.reconciled(source), "the reconcile once there is room", timeout=30)
        checked = git(remote.bare, "fsck", "--no-progress", "--strict")
        assert all(line.startswith("dangling ") for line in checked.splitlines()), checked
        assert daemon.get("/readyz")[0] == 200
        assert daemon.terminate() == 0
    assert all(json.loads(line) for line in daemon.log().splitlines())
