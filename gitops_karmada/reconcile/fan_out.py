"""How a run spreads independent per-template work: the core names the work, an adapter decides where it
runs (``adapters.fork_pool``: across processes). Pure: the protocol only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

_T = TypeVar("_T")
_R = TypeVar("_R")


class FanOut(Protocol):
    def __call__(
        self,
        work: Callable[[Sequence[_T]], list[_R]],
        items: Sequence[_T],
        done: Callable[[int], None] | None = None,
    ) -> list[_R]:
        """``work`` over ``items``, split into chunks however the implementation likes: one result per item,
        in the items' order, exactly what ``work(items)`` returns. ``done`` is told, in the calling process,
        about how many items are done so far (for a progress bar)."""
        ...
