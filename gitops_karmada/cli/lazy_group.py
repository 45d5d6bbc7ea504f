"""A click group whose verbs are imported when they run, not when the program starts.

Every verb pulls its own libraries (the daemon's HTTP server and Prometheus client, watchdog, rich's tables,
deepdiff): importing them all made every command, ``--version`` included, pay for all of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


class LazyGroup(click.Group):
    """``verbs`` maps a verb to ``"module:attribute"``; the module is imported on first use of the verb, then
    ``imported()`` is called (the CLI freezes the objects imported so far out of the collector's scans)."""

    def __init__(
        self,
        *args: Any,
        verbs: Mapping[str, str],
        imported: Callable[[], None] = lambda: None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self._verbs = dict(verbs)
        self._imported = imported

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._verbs})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self._verbs:
            module, _, attribute = self._verbs[cmd_name].partition(":")
            command = getattr(importlib.import_module(module), attribute)
            if not isinstance(command, click.Command) or command.name != cmd_name:
                raise TypeError(f"{self._verbs[cmd_name]} is not the command {cmd_name!r}")
            self.add_command(command)
            self._imported()
        return super().get_command(ctx, cmd_name)

    def all_commands(self) -> dict[str, click.Command]:
        """Every verb, imported (for help, completion and tests)."""
        ctx = click.Context(self)
        found = {name: self.get_command(ctx, name) for name in self.list_commands(ctx)}
        return {name: command for name, command in found.items() if command is not None}
