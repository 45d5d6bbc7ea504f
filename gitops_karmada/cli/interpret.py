"""``gitops-karmada interpret``: try ResourceInterpreterCustomizations offline, like ``karmadactl interpret``.

``--check`` compiles every script in the sandbox and checks its entry function; ``--operation`` runs one
operation on an object with the same chain the pipeline uses (``usecases.interpret``). This verb reads the
objects and status items the options name, as karmadactl reads them, and prints the answer as YAML.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
from loguru import logger
from pydantic import ValidationError

from gitops_karmada.cli.options import repo_option
from gitops_karmada.cli.output import echo_diagnostics, to_yaml
from gitops_karmada.core.codecs.serialize import YamlSyntaxError, load_yaml_documents
from gitops_karmada.core.interpreter import Operation
from gitops_karmada.model.bindings import AggregatedStatusItem
from gitops_karmada.model.diagnostics import field_path
from gitops_karmada.usecases.interpret import (
    answered_by,
    check_customizations,
    interpreter_for,
    load_customizations,
    run_operation,
)

STATUS_ITEM_FIELDS = ("clusterName", "status", "applied", "appliedMessage", "health")


def _documents(path: Path) -> list[Any]:
    """The non-empty documents of a file, read as Kubernetes reads YAML (timestamps stay strings)."""
    try:
        return [d.body for d in load_yaml_documents(path.read_bytes()) if d.body is not None]
    except YamlSyntaxError as err:
        raise click.UsageError(f"{path}[{err.doc_index}]: {err}") from None


def _read_object(path: Path, option: str) -> dict[str, Any]:
    documents = _documents(path)
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise click.UsageError(f"{path}: {option} must hold exactly one object")
    return documents[0]


def _objects(
    operation: Operation, desired_file: Path | None, observed_file: Path | None
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """karmadactl's rule: Retain takes both objects, every other operation exactly one of them."""
    desired = _read_object(desired_file, "--desired-file") if desired_file is not None else None
    observed = _read_object(observed_file, "--observed-file") if observed_file is not None else None
    if operation is Operation.RETAIN:
        if desired is None or observed is None:
            raise click.UsageError("Retain needs both --desired-file and --observed-file")
    elif desired is None and observed is None:
        raise click.UsageError(f"{operation.value} needs --desired-file or --observed-file")
    elif desired is not None and observed is not None:
        raise click.UsageError(
            f"{operation.value} takes one object: pass --desired-file or --observed-file, not both"
        )
    return desired, observed


def _status_items(path: Path | None) -> list[AggregatedStatusItem]:
    """AggregateStatus items: karmadactl's format (one item per YAML document) or a YAML list of items.

    As Go decodes them: keys other than the item's fields are ignored and a missing clusterName is "".
    """
    if path is None:
        return []
    items: list[AggregatedStatusItem] = []
    for document in _documents(path):
        for i, raw in enumerate(document if isinstance(document, list) else [document]):
            if not isinstance(raw, dict):
                raise click.UsageError(f"{path}: status item {i} must be a mapping")
            known = {key: raw[key] for key in STATUS_ITEM_FIELDS if key in raw}
            try:
                items.append(AggregatedStatusItem.model_validate({"clusterName": "", **known}))
            except ValidationError as err:
                problem = "; ".join(f"{field_path(e['loc'])}: {e['msg']}" for e in err.errors())
                raise click.UsageError(f"{path}: status item {len(items)}: {problem}") from None
    return items


def _now(value: str | None) -> str:
    """The time status scripts see as "now": --now, else SOURCE_DATE_EPOCH, else this moment (UTC)."""
    if value is not None:
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise click.UsageError(f"--now {value!r} is not an RFC 3339 time") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
    elif os.environ.get("SOURCE_DATE_EPOCH", "").isdigit():
        moment = datetime.fromtimestamp(int(os.environ["SOURCE_DATE_EPOCH"]), UTC)
    else:
        moment = datetime.now(UTC)  # the adapter reads the clock; the sandbox never does
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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
@click.option(
    "--operation",
    type=click.Choice([op.value for op in Operation], case_sensitive=False),
    help="The operation to run (any case, as karmadactl: retain, interpretReplica).",
)
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
    help="AggregateStatus: items {clusterName, status, applied, appliedMessage, health}, one per YAML "
    "document (karmadactl's format) or as a YAML list.",
)
@click.option(
    "--now",
    metavar="RFC3339",
    help="AggregateStatus: what os.time()/os.date() answer "
    "[default: SOURCE_DATE_EPOCH, else the current time].",
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
    now: str | None,
    resource_quota_estimate: bool,
) -> None:
    """Check customizations, or run one interpreter operation on an object."""
    if check == (operation is not None):
        raise click.UsageError("pass either --check or --operation")
    loaded = load_customizations(files, repo, rev, worktree)
    if loaded.errors:
        echo_diagnostics(loaded.errors)
        raise click.exceptions.Exit(1)
    if check:
        checks = check_customizations(loaded.found)
        for checked in checks:
            click.echo(f"{checked.name}: " + ("ok" if not checked.problems else "; ".join(checked.problems)))
        if not checks:
            click.echo("no ResourceInterpreterCustomization found")
        raise click.exceptions.Exit(1 if any(c.problems for c in checks) else 0)
    assert operation is not None
    op = Operation(operation)
    desired, observed = _objects(op, desired_file, observed_file)
    status = _status_items(status_file)
    interpreter = interpreter_for(loaded.found, resource_quota_estimate=resource_quota_estimate)
    answered = answered_by(interpreter, op, desired, observed)
    logger.bind(logger="interpret").info("# {} answered by {}", op.value, answered or "nobody")
    moment = _now(now)
    if op is Operation.REVISE_REPLICA and replicas is None:
        raise click.UsageError("ReviseReplica needs --desired-replica")
    answer = run_operation(interpreter, op, desired, observed, replicas=replicas, status=status, now=moment)
    click.echo(to_yaml(answer), nl=False)
