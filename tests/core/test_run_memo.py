"""Issue 13: a warm process recalls what earlier runs computed of the very same objects, and nothing else."""

from __future__ import annotations

from gitops_karmada.core.run_memo import RunMemo


class Counted:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> int:
        self.calls += 1
        return self.calls


def test_a_result_is_recalled_for_the_same_objects_and_values() -> None:
    memo, compute = RunMemo(), Counted()
    body = {"kind": "Deployment"}
    assert memo.recall("step", (body,), "key", compute) == 1
    memo.begin_run()
    assert memo.recall("step", (body,), "key", compute) == 1
    assert compute.calls == 1


def test_an_equal_object_another_value_or_another_step_is_computed_afresh() -> None:
    memo, compute = RunMemo(), Counted()
    body = {"kind": "Deployment"}
    memo.recall("step", (body,), "key", compute)
    assert memo.recall("step", ({"kind": "Deployment"},), "key", compute) == 2  # equal, not the same
    assert memo.recall("step", (body,), "other key", compute) == 3
    assert memo.recall("other step", (body,), "key", compute) == 4
    assert memo.recall("step", (body, body), "key", compute) == 5


def test_what_a_run_did_not_use_is_forgotten_when_the_next_begins() -> None:
    memo, compute = RunMemo(), Counted()
    kept, dropped = {"name": "kept"}, {"name": "dropped"}
    memo.recall("step", (kept,), None, compute)
    memo.recall("step", (dropped,), None, compute)
    memo.begin_run()
    memo.recall("step", (kept,), None, compute)  # the second run uses only ``kept``
    memo.begin_run()
    assert memo.recall("step", (kept,), None, compute) == 1
    assert memo.recall("step", (dropped,), None, compute) == 3
