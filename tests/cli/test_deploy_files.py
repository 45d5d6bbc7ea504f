"""deploy/: the daemon's Kubernetes manifest, Dockerfile and systemd unit agree with what `watch` serves."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.clirun import cli_in_process

DEPLOY = Path(__file__).parents[2] / "deploy"


def _watch_options() -> set[str]:
    done = cli_in_process(DEPLOY, ["watch", "--help"])
    assert done.returncode == 0, done.stderr
    return set(re.findall(r"(--[a-z-]+)", done.stdout))


def test_the_kubernetes_manifest_probes_and_scrapes_the_daemons_endpoints() -> None:
    documents = list(yaml.safe_load_all((DEPLOY / "gitops-karmada.yaml").read_text()))
    kinds = {d["kind"]: d for d in documents}
    assert set(kinds) == {"Namespace", "Deployment", "Service", "ServiceMonitor"}
    (container,) = kinds["Deployment"]["spec"]["template"]["spec"]["containers"]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert kinds["ServiceMonitor"]["spec"]["endpoints"][0]["path"] == "/metrics"
    options = _watch_options()
    assert {a for a in container["args"] if a.startswith("--")} <= options


def test_the_dockerfile_and_the_unit_run_watch_with_known_options() -> None:
    options = _watch_options()
    entrypoint = re.search(r"^ENTRYPOINT (\[.*\])$", (DEPLOY / "Dockerfile").read_text(), re.M)
    assert entrypoint is not None
    arguments = yaml.safe_load(entrypoint.group(1))
    assert arguments[:1] == ["gitops-karmada"] and "watch" in arguments
    after_watch = arguments[arguments.index("watch") + 1 :]
    assert {a for a in after_watch if a.startswith("--")} <= options
    unit = (DEPLOY / "gitops-karmada-watch.service").read_text()
    exec_start = re.search(r"^ExecStart=(.*)$", unit, re.M)
    assert exec_start is not None
    words = exec_start.group(1).split()
    assert {w for w in words[words.index("watch") + 1 :] if w.startswith("--")} <= options
