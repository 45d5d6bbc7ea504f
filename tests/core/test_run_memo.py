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


def test_a_table_recalls_per_object_while_the_shared_values_hold() -> None:
    memo, compute = RunMemo(), Counted()
    body, other = {"kind": "Deployment"}, {"kind": "Service"}
    table = memo.table("step", "shared")
    assert [table.recall(body, "a", compute), table.recall(other, "b", compute)] == [1, 2]
    memo.begin_run()
    table = memo.table("step", "shared")
    assert table.recall(body, "a", compute) == 1  # the same object and key
    assert table.recall({"kind": "Deployment"}, "a", compute) == 3  # equal, not the same
    assert table.recall(other, "changed", compute) == 4  # the object's own key changed
    memo.begin_run()
    assert memo.table("step", "other shared").recall(body, "a", compute) == 5  # the shared values changed
    memo.begin_run()
    memo.recall("another step", (body,), None, compute)  # a run that did not ask for the table
    memo.begin_run()
    assert memo.table("step", "other shared").recall(body, "a", compute) == 7  # it was forgotten


def test_a_table_keeps_only_what_its_last_run_used() -> None:
    memo, compute = RunMemo(), Counted()
    kept, dropped = {"name": "kept"}, {"name": "dropped"}
    table = memo.table("step", None)
    table.recall(kept, None, compute)
    table.recall(dropped, None, compute)
    memo.begin_run()
    memo.table("step", None).recall(kept, None, compute)
    memo.begin_run()
    table = memo.table("step", None)
    assert table.recall(kept, None, compute) == 1
    assert table.recall(dropped, None, compute) == 3


def test_a_table_asked_twice_in_a_run_is_one_table() -> None:
    memo, compute = RunMemo(), Counted()
    first, second = {"name": "first"}, {"name": "second"}
    memo.table("step", None).recall(first, None, compute)
    memo.table("step", None).recall(second, None, compute)
    assert memo.table("step", None).recall(first, None, compute) == 1
    memo.begin_run()
    table = memo.table("step", None)
    assert [table.recall(first, None, compute), table.recall(second, None, compute)] == [1, 2]
