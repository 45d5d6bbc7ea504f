"""Webster apportionment: exactness, tie-breaking, the seat record, and its properties."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitops_karmada.core.scheduler.webster import (
    FewerSeatsThenName,
    Party,
    allocate_webster_seats,
    dispense_by_weight,
    fnv1a32,
    is_uid_hash_odd,
    tie_breaker_by_uid,
)
from gitops_karmada.model.bindings import TargetCluster

ODD_UID = "d43fdeeb-d750-4e2b-bee3-64eb94534f4c"
EVEN_UID = "4858ca61-3ff8-4095-8267-f3d059d8074c"


def _seats(votes: dict[str, int], seats: int, **kwargs: object) -> dict[str, int]:
    result = allocate_webster_seats(seats, votes, **kwargs)  # type: ignore[arg-type]
    assert result is not None
    return {p.name: p.seats for p in result.parties}


@pytest.mark.parametrize(
    ("data", "value"),
    [(b"", 0x811C9DC5), (b"a", 0xE40C292C), (b"foobar", 0xBF9CF968)],
    ids=["empty", "a", "foobar"],
)
def test_fnv1a32_reference_values(data: bytes, value: int) -> None:
    assert fnv1a32(data) == value


@pytest.mark.parametrize(
    ("uid", "winner"),
    [("", "a"), (EVEN_UID, "a"), (ODD_UID, "b")],
    ids=["empty-uid-ascending", "even-uid-ascending", "odd-uid-descending"],
)
def test_uid_parity_decides_equal_ties(uid: str, winner: str) -> None:
    assert is_uid_hash_odd(ODD_UID) and not is_uid_hash_odd(EVEN_UID)
    dispensed = dispense_by_weight(1, [("a", 1), ("b", 1)], uid=uid)
    assert {c.name: c.replicas for c in dispensed.clusters}[winner] == 1


def test_fewer_seats_beats_name_order_in_a_tie() -> None:
    # b holds 1 seat (priority 3/3) and a holds 0 with 1 vote (priority 1/1): equal; fewer seats wins even
    # though the UID orders names descending
    result = allocate_webster_seats(1, {"a": 1, "b": 3}, {"b": 1}, tie_breaker_by_uid(ODD_UID))
    assert result is not None
    assert result.seats[0].party == "a"
    assert result.seats[0].tie_reason == "fewer current seats (0 < 1)"


def test_priorities_are_compared_exactly_not_as_floats() -> None:
    # float64 cannot tell 2**53 from 2**53 + 1: Karmada would see a tie and give the seat to "a"
    big = 2**53
    assert float(big) == float(big + 1)
    assert _seats({"a": big, "b": big + 1}, 1) == {"a": 0, "b": 1}


def test_seat_record_lists_each_seat_with_its_exact_priority() -> None:
    result = allocate_webster_seats(3, {"A": 100000, "B": 80000, "C": 30000})
    assert result is not None
    assert [(s.number, s.party, s.priority, s.tie_reason) for s in result.seats] == [
        (1, "A", "100000/1", ""),
        (2, "B", "80000/1", ""),
        (3, "A", "100000/3", ""),
    ]


def test_tie_reasons_name_the_rule_and_the_runner_up() -> None:
    result = allocate_webster_seats(3, {"x": 1, "y": 1, "z": 1}, tie_breaker=tie_breaker_by_uid(ODD_UID))
    assert result is not None
    assert [(s.party, s.runner_up, s.tie_reason) for s in result.seats] == [
        ("z", "y", "name descending (FNV-1a-32 of the template UID is odd)"),
        ("y", "x", "name descending (FNV-1a-32 of the template UID is odd)"),
        ("x", "", ""),
    ]
    assert result.seats[0].to_dict() == {
        "seat": 1,
        "cluster": "z",
        "priority": "1/1",
        "tie": {"against": "y", "wonBy": "name descending (FNV-1a-32 of the template UID is odd)"},
    }


@pytest.mark.parametrize(
    ("a", "b", "preferred", "why"),
    [
        (Party("b", 1, 0), Party("a", 1, 1), "b", "fewer current seats (0 < 1)"),
        (Party("a", 1, 1), Party("b", 1, 1), "a", "name ascending"),
    ],
    ids=["fewer-seats", "name-ascending"],
)
def test_default_tie_breaker(a: Party, b: Party, preferred: str, why: str) -> None:
    breaker = FewerSeatsThenName()
    assert (a if breaker.prefers(a, b) else b).name == preferred
    assert breaker.explain(a, b) == why


def test_initial_only_parties_keep_seats_and_never_win() -> None:
    assert _seats({"a": 1}, 3, initial={"old": 5}) == {"a": 3, "old": 5}


def test_no_new_seats_changes_nothing() -> None:
    assert _seats({"a": 1}, 0, initial={"a": 2}) == {"a": 2}
    assert _seats({"a": 1}, -1) == {"a": 0}


def test_dispenser_keeps_init_without_weight_or_replicas() -> None:
    init = (TargetCluster(name="a", replicas=2),)
    assert dispense_by_weight(5, [("a", 0), ("b", 0)], init).clusters == init
    assert dispense_by_weight(0, [("a", 1)], init).clusters == init
    assert [(c.name, c.replicas) for c in dispense_by_weight(0, [("a", 1)]).clusters] == [("a", 0)]


# -- properties -------------------------------------------------------------------------------------------

NAMES = st.text(alphabet="abcdefgh", min_size=1, max_size=4)
VOTES = st.dictionaries(NAMES, st.integers(min_value=0, max_value=1000), min_size=1, max_size=8)
SEATS = st.integers(min_value=0, max_value=500)


@given(votes=VOTES, seats=SEATS)
def test_all_seats_are_handed_out_and_none_is_negative(votes: dict[str, int], seats: int) -> None:
    result = _seats(votes, seats)
    assert sum(result.values()) == seats
    assert all(value >= 0 for value in result.values())


@given(votes=VOTES, seats=SEATS)
def test_one_more_seat_adds_exactly_one_seat_to_one_party(votes: dict[str, int], seats: int) -> None:
    before, after = _seats(votes, seats), _seats(votes, seats + 1)
    differences = [after[name] - before[name] for name in votes]
    assert sorted(differences) == [0] * (len(votes) - 1) + [1]


@given(votes=VOTES, seats=SEATS, seed=st.integers())
def test_party_order_is_irrelevant(votes: dict[str, int], seats: int, seed: int) -> None:
    items = list(votes.items())
    random.Random(seed).shuffle(items)
    assert _seats(dict(items), seats) == _seats(votes, seats)


@given(votes=VOTES, seats=SEATS, factor=st.integers(min_value=2, max_value=1000))
def test_scaling_every_vote_is_irrelevant(votes: dict[str, int], seats: int, factor: int) -> None:
    assert _seats({n: v * factor for n, v in votes.items()}, seats) == _seats(votes, seats)


@given(votes=VOTES, seats=SEATS)
def test_zero_votes_get_nothing_unless_all_votes_are_zero(votes: dict[str, int], seats: int) -> None:
    result = _seats(votes, seats)
    if any(votes.values()):
        assert all(result[name] == 0 for name, vote in votes.items() if vote == 0)
    else:
        assert max(result.values()) - min(result.values()) <= 1
