"""The Lua worker process keeps none of its parent's descriptors: a git pipe the parent closes reaches git.

A forked worker inherits every descriptor open at the fork. If it kept the write end of a long-lived
``git cat-file`` pipe, the parent closing its end would never be the end of git's input: the daemon's
first push after a Lua workload was rendered waited 5 s for such a ``cat-file`` to stop. Run in a fresh
process (real git, a real fork), so the worker is forked while the pipe is open.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import TYPE_CHECKING

from tests.gitrepos import make_repo

if TYPE_CHECKING:
    from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from gitops_karmada.adapters.git_path_lookup import PathLookup
    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.core.interpreter import ResourceInterpreter
    from gitops_karmada.model.interpretation import ResourceInterpreterCustomization

    store = GitStore.open(Path(sys.argv[1]))
    lookup = PathLookup(store.runner, store.resolve("HEAD"))
    found = lookup.oid("a.yaml")  # cat-file is running, its stdin pipe open
    customization = ResourceInterpreterCustomization.model_validate({
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": "w"},
        "spec": {
            "target": {"apiVersion": "example.io/v1", "kind": "Widget"},
            "customizations": {
                "healthInterpretation": {"luaScript": "function InterpretHealth(obj) return true end"}
            },
        },
    })
    widget = {"apiVersion": "example.io/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "ns"}}
    healthy = ResourceInterpreter([customization]).interpret_health(widget)  # forks the Lua worker
    started = time.monotonic()
    lookup.close()  # closes cat-file's stdin: git must see the end of its input now
    print(json.dumps({"found": found, "healthy": healthy, "close_seconds": time.monotonic() - started}))
    """
)


def test_a_git_pipe_open_when_the_lua_worker_forks_still_closes_at_once(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.yaml": "a: 1\n"})
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(repo)], capture_output=True, text=True, check=True, timeout=60
    )
    result = json.loads(done.stdout)
    assert result["found"] and result["healthy"] is True
    # without closing the inherited descriptors in the worker, cat-file never ends and close waits 5 s
    assert result["close_seconds"] < 2.0, result
