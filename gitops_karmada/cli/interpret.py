"""``gitops-karmada interpret``: try ResourceInterpreterCustomizations offline, like ``karmadactl interpret``.

``--check`` compiles every script in the sandbox and checks its entry function; ``--operation`` runs one
operation on an object with the same chain the pipeline uses (customizations, then the built-in
third-party interpreters, then the native ones), so a customization is tried before it is committed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import yaml

from gitops_karmada.cli.options import read_source, repo_option
from gitops_karmada.cli.output import echo_diagnostics, to_yaml
from gitops_karmada.core.interpreter import Operation, ResourceInterpreter, check_customization
from gitops_karmada.core.loading import load
from gitops_karmada.model.bindings import AggregatedStatusItem
from gitops_karmada.model.config import ToolConfig

if TYPE_CHECKING:
    from gitops_karmada.model.interpretation import ResourceInterpreterCustomization

NEEDS_DESIRED = {
    Operation.INTERPRET_REPLICA,
    Operation.INTERPRET_COMPONENT,
    Operation.REVISE_REPLICA,
    Operation.RETAIN,
    Operation.AGGREGATE_STATUS,
    Operation.INTERPRET_DEPENDENCY,
}
NEEDS_OBSERVED = {Operation.RETAIN, Operation.INTERPRET_STATUS, Operation.INTERPRET_HEALTH}


def _read_object(path: Path | None, option: str) -> dict[str, Any]:
    if path is None:
        raise click.UsageError(f"this operation needs {option}")
    documents = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise click.UsageError(f"{path}: {option} must hold exactly one object")
    return documents[0]


def _customizations(
    files: tuple[Path, ...], repo: Path, rev: str, worktree: bool
) -> tuple[ResourceInterpreterCustomization, ...]:
    if not files:
        state = read_source(repo, rev, worktree)
        loaded = load(state.request.input_files, state.request.config, state.request.decoded)
    else:
        loaded = load({str(path): path.read_bytes() for path in files}, ToolConfig())
    errors = [d for d in loaded.diagnostics if d.is_error]
    if errors:
        echo_diagnostics(errors)
        raise click.exceptions.Exit(1)
    return loaded.inputs.customizations


def _run(
    interpreter: ResourceInterpreter,
    operation: Operation,
    desired: dict[str, Any] | None,
    observed: dict[str, Any] | None,
    replicas: int | None,
    status: list[Any],
) -> Any:
    match operation:
        case Operation.INTERPRET_REPLICA:
            assert desired is not None
            count, requirements = interpreter.get_replicas(desired)
            return {"replicas": count, **({"requires": requirements.to_api()} if requirements else {})}
        case Operation.INTERPRET_COMPONENT:
            assert desired is not None
            return {"components": [c.to_api() for c in interpreter.get_components(desired)]}
        case Operation.REVISE_REPLICA:
            assert desired is not None
            if replicas is None:
                raise click.UsageError("ReviseReplica needs --desired-replica")
            return interpreter.revise_replica(desired, replicas)
        case Operation.RETAIN:
            assert desired is not None and observed is not None
            return interpreter.retain(desired, observed)
        case Operation.AGGREGATE_STATUS:
            assert desired is not None
            items = [AggregatedStatusItem.model_validate(item) for item in status]
            return interpreter.aggregate_status(desired, items)
        case Operation.INTERPRET_STATUS:
            assert observed is not None
            return {"status": interpreter.reflect_status(observed)}
        case Operation.INTERPRET_HEALTH:
            assert observed is not None
            return {"healthy": interpreter.interpret_health(observed)}
        case Operation.INTERPRET_DEPENDENCY:
            assert desired is not None
            return {"dependencies": [d.to_api() for d in interpreter.get_dependencies(desired)]}
    raise click.UsageError(f"unsupported operation {operation}")


@click.command()
@click.option(
    "-f",
    "--filename",
    "files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="ResourceInterpreterCustomization file(s); default: those in the repository.",
)
@repo_option
@click.option("--rev", default="HEAD", show_default=True)
@click.option("--worktree", is_flag=True, help="Read the repository's files on disk instead of a commit.")
@click.option("--check", is_flag=True, help="Compile every script and check its entry function.")
@click.option("--operation", type=click.Choice([op.value for op in Operation]), help="The operation to run.")
@click.option(
    "--desired-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The resource template (desired object).",
)
@click.option(
    "--observed-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The object as a member cluster reports it (observed object).",
)
@click.option(
    "--status-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="AggregateStatus: a YAML list of {clusterName, status, applied, health}.",
)
@click.option("--desired-replica", "replicas", type=int, help="ReviseReplica: the replica count to write.")
@click.option(
    "--resource-quota-estimate", is_flag=True, help="Feature gate ResourceQuotaEstimate (priorityClassName)."
)
def interpret(
    files: tuple[Path, ...],
    repo: Path,
    rev: str,
    worktree: bool,
    check: bool,
    operation: str | None,
    desired_file: Path | None,
    observed_file: Path | None,
    status_file: Path | None,
    replicas: int | None,
    resource_quota_estimate: bool,
) -> None:
    """Check customizations, or run one interpreter operation on an object."""
    if check == (operation is not None):
        raise click.UsageError("pass either --check or --operation")
    customizations = _customizations(files, repo, rev, worktree)
    if check:
        failed = False
        for customization in customizations:
            problems = check_customization(customization)
            failed |= bool(problems)
            click.echo(f"{customization.name}: " + ("ok" if not problems else "; ".join(problems)))
        if not customizations:
            click.echo("no ResourceInterpreterCustomization found")
        raise click.exceptions.Exit(1 if failed else 0)
    assert operation is not None
    op = Operation(operation)
    desired = _read_object(desired_file, "--desired-file") if op in NEEDS_DESIRED else None
    observed = _read_object(observed_file, "--observed-file") if op in NEEDS_OBSERVED else None
    status = yaml.safe_load(status_file.read_text()) if status_file is not None else []
    interpreter = ResourceInterpreter(customizations, resource_quota_estimate=resource_quota_estimate)
    subject = desired or observed or {}
    answered = interpreter.answered_by(str(subject.get("apiVersion", "")), str(subject.get("kind", "")), op)
    click.echo(f"# {op.value} answered by {answered or 'nobody'}", err=True)
    click.echo(
        to_yaml(
            _run(interpreter, op, desired, observed, replicas, status if isinstance(status, list) else [])
        ),
        nl=False,
    )
