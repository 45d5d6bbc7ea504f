"""The garbage collector for this workload: one CLI run, or the daemon's long life.

A run builds millions of objects (parsed inputs, bindings, rendered paths) that live until it ends, and
makes almost no reference cycles. CPython's default thresholds (700, 10, 10) then scan the growing heap
again and again: measured on fleet K's first reconcile, a tenth of the run. Even at the tuned thresholds
below, a one-template change at fleet XL spent a second (one run in seven) in collections that freed
nothing, and a first reconcile at 2,000 × 200 a sixth of its time. So a one-shot command does not collect
cycles at all: what a run makes it holds to its end, when the process exits, and its peak memory was
measured the same with the collector on or off. The watch daemon lives on through many runs, whose cycles
must be freed: it turns collection back on (``keep_collecting``), at the tuned thresholds.
"""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 20, 100)


def tune_garbage_collector() -> None:
    """A one-shot command: no cyclic collection; the objects imported so far are left out of every scan a
    long-lived command turns back on, and its young objects are collected every 50,000 allocations, not
    700."""
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    gc.disable()


def keep_collecting() -> None:
    """A long-lived command (the watch daemon): cycles collected, at the thresholds above."""
    gc.enable()


def freeze_imports() -> None:
    """Leave the objects imported since (a verb's modules, loaded when it runs) out of later scans too."""
    gc.freeze()
