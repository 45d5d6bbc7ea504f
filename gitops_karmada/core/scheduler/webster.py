"""Karmada's Webster (Sainte-Laguë) seat apportionment and replica dispenser, with exact arithmetic.

Mirrors ``pkg/util/helper/webstermethod.go`` (AllocateWebsterSeats) and ``binding.go`` (the dispenser,
SpreadReplicasByTargetClusters, tieBreakerByUID). Karmada compares priorities as float64 quotients; here they
are compared by cross-multiplication (``v_a * (2*s_b + 1)`` against ``v_b * (2*s_a + 1)``), which is the
exact answer Karmada's floats approximate. Every seat is recorded so that a division can be explained.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from gitops_karmada.model.bindings import TargetCluster

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

_FNV_OFFSET_BASIS = 0x811C9DC5
_FNV_PRIME = 0x01000193


class Standing(Protocol):
    """What a tie-breaker may look at: a party's name and the seats it holds."""

    @property
    def name(self) -> str: ...

    @property
    def seats(self) -> int: ...


class TieBreaker(Protocol):
    """Decides between two parties of exactly equal priority."""

    def prefers(self, a: Standing, b: Standing) -> bool:
        """Whether ``a`` wins the seat over ``b``."""
        ...

    def explain(self, winner: Standing, runner_up: Standing) -> str:
        """Why ``winner`` beat ``runner_up`` (for the explanation)."""
        ...


@dataclass(frozen=True, slots=True)
class FewerSeatsThenName:
    """Karmada's tie-breakers: fewer current seats first, then the name (ascending unless ``descending``).

    With ``descending=False`` this is AllocateWebsterSeats' default and tieBreakerByUID for an empty or
    even-hashed UID; ``descending=True`` is tieBreakerByUID for an odd FNV-1a-32 hash.
    """

    descending: bool = False

    def prefers(self, a: Standing, b: Standing) -> bool:
        if a.seats != b.seats:
            return a.seats < b.seats
        return a.name > b.name if self.descending else a.name < b.name

    def explain(self, winner: Standing, runner_up: Standing) -> str:
        if winner.seats != runner_up.seats:
            return f"fewer current seats ({winner.seats} < {runner_up.seats})"
        if self.descending:
            return "name descending (FNV-1a-32 of the template UID is odd)"
        return "name ascending"


@dataclass(frozen=True, slots=True)
class Party:
    """A party of the apportionment: its votes (weight) and the seats (replicas) it holds."""

    name: str
    votes: int
    seats: int


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat handed out: which party won it, with what priority, and how a tie was broken."""

    number: int
    party: str
    votes: int
    seats_before: int
    runner_up: str = ""
    tie_reason: str = ""
    """Empty when the winner's priority was strictly the highest."""

    @property
    def priority(self) -> str:
        """The exact priority ``votes / (2*seats + 1)`` as an unreduced fraction."""
        return f"{self.votes}/{2 * self.seats_before + 1}"

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"seat": self.number, "cluster": self.party, "priority": self.priority}
        if self.tie_reason:
            data["tie"] = {"against": self.runner_up, "wonBy": self.tie_reason}
        return data


@dataclass(frozen=True, slots=True)
class Apportionment:
    """AllocateWebsterSeats' answer: all parties sorted by name (0-seat ones too) and the seats in order."""

    parties: tuple[Party, ...]
    seats: tuple[Seat, ...]


class _Contender:
    """A heap entry; ``a < b`` means ``a`` gets the next seat before ``b``."""

    __slots__ = ("name", "seats", "tie_breaker", "votes")

    def __init__(self, name: str, votes: int, seats: int, tie_breaker: TieBreaker) -> None:
        self.name = name
        self.votes = votes
        self.seats = seats
        self.tie_breaker = tie_breaker

    def __lt__(self, other: _Contender) -> bool:
        mine = self.votes * (2 * other.seats + 1)
        theirs = other.votes * (2 * self.seats + 1)
        if mine != theirs:
            return mine > theirs
        return self.tie_breaker.prefers(self, other)

    def ties_with(self, other: _Contender) -> bool:
        return self.votes * (2 * other.seats + 1) == other.votes * (2 * self.seats + 1)


def allocate_webster_seats(
    new_seats: int,
    votes: Mapping[str, int],
    initial: Mapping[str, int] | None = None,
    tie_breaker: TieBreaker | None = None,
) -> Apportionment | None:
    """Hand out ``new_seats`` one by one to the party of highest ``votes / (2*seats + 1)``.

    Parties only in ``initial`` keep their seats with 0 votes. None when there are no parties at all.
    """
    breaker: TieBreaker = tie_breaker if tie_breaker is not None else FewerSeatsThenName()
    held = {name: (0, seats) for name, seats in (initial or {}).items()}
    for name, weight in votes.items():
        held[name] = (weight, held.get(name, (0, 0))[1])
    if not held:
        return None
    heap = [_Contender(name, weight, seats, breaker) for name, (weight, seats) in held.items()]
    heapq.heapify(heap)
    record: list[Seat] = []
    for number in range(1, max(new_seats, 0) + 1):
        winner = heap[0]
        runner_up = _best_after_top(heap)
        if runner_up is not None and winner.ties_with(runner_up):
            seat = Seat(
                number=number,
                party=winner.name,
                votes=winner.votes,
                seats_before=winner.seats,
                runner_up=runner_up.name,
                tie_reason=breaker.explain(winner, runner_up),
            )
        else:
            seat = Seat(number=number, party=winner.name, votes=winner.votes, seats_before=winner.seats)
        record.append(seat)
        heapq.heapreplace(heap, _Contender(winner.name, winner.votes, winner.seats + 1, breaker))
    parties = tuple(sorted((Party(c.name, c.votes, c.seats) for c in heap), key=lambda p: p.name))
    return Apportionment(parties=parties, seats=tuple(record))


def _best_after_top(heap: list[_Contender]) -> _Contender | None:
    """The runner-up of a heap: the better of the top's two children."""
    children = heap[1:3]
    if not children:
        return None
    return min(children)


def fnv1a32(data: bytes) -> int:
    """The 32-bit FNV-1a hash (Go's ``hash/fnv`` New32a)."""
    value = _FNV_OFFSET_BASIS
    for byte in data:
        value = ((value ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return value


def is_uid_hash_odd(uid: str) -> bool:
    """Whether tieBreakerByUID orders names descending for this UID (empty UID: ascending)."""
    return bool(uid) and fnv1a32(uid.encode()) % 2 == 1


def tie_breaker_by_uid(uid: str) -> FewerSeatsThenName:
    """tieBreakerByUID: fewer seats first, then names ascending (even/empty UID) or descending (odd)."""
    return FewerSeatsThenName(descending=is_uid_hash_odd(uid))


@dataclass(frozen=True, slots=True)
class Dispensed:
    """The dispenser's result (sorted by name, 0-replica entries included) and the seats handed out."""

    clusters: tuple[TargetCluster, ...]
    seats: tuple[Seat, ...] = ()


def dispense_by_weight(
    num_replicas: int,
    weights: Sequence[tuple[str, int]],
    init: Sequence[TargetCluster] = (),
    uid: str = "",
) -> Dispensed:
    """NewDispenser(num_replicas, init) + AllocateByWeight(weights) with the UID tie-breaker."""
    if num_replicas == 0 and init:
        return Dispensed(clusters=tuple(init))
    if sum(weight for _, weight in weights) == 0:
        return Dispensed(clusters=tuple(init))
    apportionment = allocate_webster_seats(
        num_replicas, dict(weights), {c.name: c.replicas for c in init}, tie_breaker_by_uid(uid)
    )
    if apportionment is None:  # unreachable: a positive weight sum means at least one party
        return Dispensed(clusters=tuple(init))
    clusters = tuple(TargetCluster(name=p.name, replicas=p.seats) for p in apportionment.parties)
    return Dispensed(clusters=clusters, seats=apportionment.seats)


def spread_replicas_by_target_clusters(
    num_replicas: int, clusters: Sequence[TargetCluster], init: Sequence[TargetCluster] = (), uid: str = ""
) -> Dispensed:
    """SpreadReplicasByTargetClusters: ``clusters[i].replicas`` are the weights."""
    return dispense_by_weight(num_replicas, [(c.name, c.replicas) for c in clusters], init, uid)
