"""What pure steps computed in earlier runs of one long-lived process, to be recalled instead of recomputed.

A warm process (the watch daemon, or ``diff`` loading its second side) keeps the input files it decoded by
blob id, and what loading made of them, so an unchanged template or policy is the very same object run
after run. A step's result is kept under the objects it was computed from, which the memo holds (so an id
can never come to name another object), and the plain values it also read. A changed input is another
object or another value, so a stale result is never found: a warm run computes exactly what a cold one
does, only less of it. A run keeps what it used; the rest is dropped when the next run begins, so memory
follows the fleet's size, not the number of runs. Plain data; no clock, no I/O.
"""

from __future__ import annotations

from operator import is_
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable

_T = TypeVar("_T")
_R = TypeVar("_R")


class RunMemo:
    """Results of pure steps by (step, the objects they read, the values they read)."""

    __slots__ = ("_kept", "_used")

    def __init__(self) -> None:
        self._kept: dict[Hashable, tuple[tuple[object, ...], Any]] = {}
        """What the previous run used."""
        self._used: dict[Hashable, tuple[tuple[object, ...], Any]] = {}
        """What this run has used so far."""

    def begin_run(self) -> None:
        """A run begins: what the last run did not use is forgotten."""
        if self._used:
            self._kept, self._used = self._used, {}

    def recall(self, step: str, held: tuple[object, ...], key: Hashable, compute: Callable[[], _T]) -> _T:
        """``compute()``, or what it gave before for the same ``held`` objects and ``key``."""
        slot = (step, tuple(map(id, held)), key)
        found = self._used.get(slot)
        if found is None:
            found = self._kept.get(slot)
            # the same ids in the slot: the same count of held objects; ``map(is_)`` compares them in C
            if found is None or not all(map(is_, found[0], held)):
                found = (held, compute())
            self._used[slot] = found
        result: _T = found[1]
        return result

    def table(self, step: str, shared: Hashable) -> ObjectTable[Any]:
        """A table of ``step``'s results, one per object: for a step run over every template or policy, where
        ``recall``'s slot per call costs more than the step saves. ``shared``: the values every entry read
        (an entry of the last run's table is recalled only while they are equal). Asked again in the same
        run with equal ``shared``, it is the same table."""
        slot = ("table", step)
        used = self._used.get(slot)
        if used is not None and used[1].shared == shared:
            return used[1]  # type: ignore[no-any-return]
        kept = self._kept.get(slot)
        table: ObjectTable[Any] = ObjectTable(
            kept[1].now if kept is not None and kept[1].shared == shared else {}, shared
        )
        self._used[slot] = ((), table)
        return table


class ObjectTable(Generic[_R]):
    """One step's results by object (held, so an id never comes to name another object) and the values it
    read of that object alone; what this run recalled or computed is what the next run's table starts
    from."""

    __slots__ = ("_before", "now", "shared")

    def __init__(self, before: dict[int, tuple[object, Hashable, _R]], shared: Hashable) -> None:
        self._before = before
        self.now: dict[int, tuple[object, Hashable, _R]] = {}
        self.shared = shared

    def recall(self, held: object, key: Hashable, compute: Callable[[], _R]) -> _R:
        """``compute()``, or what it gave before for the very object ``held`` and an equal ``key``."""
        ident = id(held)
        found = self.now.get(ident) or self._before.get(ident)
        if found is None or found[0] is not held or found[1] != key:
            found = (held, key, compute())
        self.now[ident] = found
        return found[2]
