"""``gitops-karmada completion bash|zsh|fish``, and completion of KIND/NAMESPACE/NAME from the repository.

The shell script is click's own; template references are completed from the state index of the work tree
(``karmada-state/index/``, as the last reconcile wrote it): no git call, no rendering, so it is instant.
"""

from __future__ import annotations

from pathlib import Path

import click
from click.shell_completion import CompletionItem, get_completion_class

from gitops_karmada.core.incremental.state_index import read_index
from gitops_karmada.core.inputs.loading import load_config
from gitops_karmada.core.layout import CONFIG_FILE, RepoLayout, key_of_identity

PROGRAM = "gitops-karmada"
COMPLETE_VAR = "_GITOPS_KARMADA_COMPLETE"


def template_references(repo: Path) -> list[str]:
    """``Kind.group/namespace/name`` of every template the repository's state index records."""
    config_file = repo / CONFIG_FILE
    config, _ = load_config(config_file.read_bytes() if config_file.is_file() else None)
    layout = RepoLayout.of(config)
    files = [repo / layout.legacy_index_path, *sorted((repo / layout.index_dir).glob("*.json"))]
    index = read_index({f.relative_to(repo).as_posix(): f.read_bytes() for f in files if f.is_file()}, layout)
    if index is None:
        return []
    return sorted(str(key_of_identity(identity)) for identity in index.entries)


def complete_reference(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Shell completion of a KIND/NAMESPACE/NAME argument (case-insensitive prefix)."""
    repo = ctx.params.get("repo") or Path()
    wanted = incomplete.lower()
    return [CompletionItem(r) for r in template_references(Path(repo)) if r.lower().startswith(wanted)]


@click.command("completion")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion_command(shell: str) -> None:
    """Print the completion script for SHELL, e.g. eval "$(gitops-karmada completion bash)".

    Commands and options complete, and so do KIND/NAMESPACE/NAME arguments, from the templates the last
    reconcile recorded.
    """
    from gitops_karmada.cli import cli  # the group this command belongs to

    completion_class = get_completion_class(shell)
    assert completion_class is not None  # click knows every choice above
    click.echo(completion_class(cli, {}, PROGRAM, COMPLETE_VAR).source())
