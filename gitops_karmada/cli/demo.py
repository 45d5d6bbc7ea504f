"""``gitops-karmada demo``: the bundled example fleet, reconciled in a fresh temporary Git repository."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import click

from gitops_karmada.adapters.fleet_config import read_config
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.repository import create_repository
from gitops_karmada.cli.run_output import report
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.usecases.reconcile import reconcile_ref
from gitops_karmada.usecases.up_to_date import target_ref


@click.command()
@click.option(
    "--source",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=Path("repo-layout"),
    show_default=True,
    help="The example fleet to copy (repo-layout/ of a gitops-karmada clone).",
)
@click.option(
    "--workdir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to create the demo repository (default: a new temporary folder).",
)
def demo(source: Path, workdir: Path | None) -> None:
    """Copy the example fleet into a new Git repository, reconcile it and show the placement."""
    target = workdir or Path(tempfile.mkdtemp(prefix="gitops-karmada-demo-")) / "fleet"
    if target.exists() and any(target.iterdir()):
        raise click.UsageError(f"{target} exists and is not empty")
    shutil.copytree(source, target, dirs_exist_ok=True)
    create_repository(target, "fleet: templates, policies and cluster inventory")
    store = GitStore.open(target)
    outcome = reconcile_ref(store, target_ref(store, "HEAD"))
    click.echo(f"demo fleet repository: {target}\n")
    report(outcome, dry_run=False)
    layout = RepoLayout.of(read_config(store, "HEAD")[0])
    click.echo(
        f"\nrendered manifests: {target / layout.cluster_folder('<cluster>')}/   "
        f"binding records: {target / layout.state_dir}/\n"
        f"see the reconcile commit: git -C {target} show --stat HEAD"
    )
