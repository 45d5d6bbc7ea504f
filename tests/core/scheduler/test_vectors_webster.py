"""tests/vectors/webster.yaml: Webster seats, the dispenser, SpreadReplicasByTargetClusters, UID parity."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from gitops_karmada.core.scheduler.webster import (
    Standing,
    TieBreaker,
    allocate_webster_seats,
    dispense_by_weight,
    is_uid_hash_odd,
    spread_replicas_by_target_clusters,
)
from tests.core.scheduler.builders import load_vector_section, pairs, params, targets

CASES = load_vector_section("webster.yaml")


@dataclass(frozen=True)
class NameOnly:
    """The Go test's custom comparators: ``a.name < b.name`` (or ``>``), seats ignored."""

    descending: bool

    def prefers(self, a: Standing, b: Standing) -> bool:
        return a.name > b.name if self.descending else a.name < b.name

    def explain(self, winner: Standing, runner_up: Standing) -> str:
        return "custom"


def _tie_breaker(name: str | None) -> TieBreaker | None:
    return {None: None, "name_asc_only": NameOnly(False), "name_desc_only": NameOnly(True)}[name]


def _allocate(given: dict[str, Any]) -> dict[str, Any]:
    result = allocate_webster_seats(
        given["new_seats"],
        given["party_votes"],
        given["initial_assignments"],
        _tie_breaker(given["tie_breaker"]),
    )
    if result is None:
        return {"parties": None}
    return {"parties": [{"name": p.name, "votes": p.votes, "seats": p.seats} for p in result.parties]}


def test_every_function_is_covered() -> None:
    known = {
        "allocate_webster_seats",
        "dispenser_allocate_by_weight",
        "spread_replicas_by_target_clusters",
        "fnv1a32_parity",
    }
    assert {case["function"] for case in CASES} <= known


@pytest.mark.parametrize("case", params(CASES))
def test_webster_vector(case: dict[str, Any]) -> None:
    given, expected = case["input"], case["expected"]
    match case["function"]:
        case "allocate_webster_seats":
            assert _allocate(given) == expected
        case "dispenser_allocate_by_weight":
            weights = [(w["name"], w["weight"]) for w in given["weights"]]
            result = dispense_by_weight(given["num_replicas"], weights, targets(given["init"]), given["uid"])
            assert sorted(pairs(result.clusters)) == sorted(pairs(targets(expected["result"])))
        case "spread_replicas_by_target_clusters":
            result = spread_replicas_by_target_clusters(
                given["num_replicas"], targets(given["clusters"]), targets(given["init"]), given["uid"]
            )
            answers = expected.get("result_any_of") or [expected["result"]]
            assert sorted(pairs(result.clusters)) in [sorted(pairs(targets(a))) for a in answers]
        case "fnv1a32_parity":
            odd = is_uid_hash_odd(given["uid"])
            assert odd == expected["odd"]
            assert ("descending" if odd else "ascending") == expected["name_order"]
        case other:
            pytest.fail(f"unknown function {other}")
