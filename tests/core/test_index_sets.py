"""The state index's shared sets (``core.incremental.index_sets``): a cluster list or map of more than eight
clusters is written once per file and named by digest from its entries; it reads back to the same entries,
sharing one value, and a set edited by hand, or missing, makes the index untrusted."""

from __future__ import annotations

import random
from dataclasses import replace

import orjson
import pytest

from gitops_karmada.core.incremental import index_sets
from gitops_karmada.core.incremental.index_sets import SHARED_MIN
from gitops_karmada.core.incremental.state_index import (
    Identity,
    IndexEntry,
    IndexLines,
    StateIndex,
    bucket_of,
    parse_index_shards,
    shard_place,
)

ENGINE = "test/1"
FLEET = tuple(f"member-{i:03d}" for i in range(40))


def entry(fingerprint: str, clusters: tuple[str, ...] = FLEET, replicas: int = 1) -> IndexEntry:
    return IndexEntry(
        fingerprint=fingerprint,
        record="r" * 40,
        files="f" * 40,
        rendered=clusters,
        settled=True,
        placement=dict.fromkeys(clusters, replicas),
        health=dict.fromkeys(clusters, "Healthy"),
        waves={"member-000": "canary"},
    )


def identity(name: str, namespace: str = "shop") -> tuple[str, str, str, str]:
    return ("apps", "Deployment", namespace, name)


def fleet_index(count: int = 30) -> StateIndex:
    # two replica counts: two placement sets, one rendered and one health set shared by all
    return StateIndex(
        ENGINE,
        {identity(f"web-{i:03d}"): entry(f"f{i}", replicas=1 + i % 2) for i in range(count)},
        run="run-1",
    )


def test_large_collections_are_written_once_per_file_and_read_back_shared() -> None:
    index = fleet_index()
    (raw,) = index.shards().values()
    data = orjson.loads(raw)
    assert len(data["sets"]) == 4, "one rendered list, one health map, two placements"
    line = raw.split(b"\n")[-3]
    assert b'"renderedSet":"' in line and b"member-001" not in line, "an entry names its sets"
    assert b'"waves":{"member-000":"canary"}' in line, "a small map stays in the entry"
    read = parse_index_shards({"shop": raw})
    assert read == index
    first, second = (read.entries[identity(n)] for n in ("web-000", "web-002"))
    assert first.rendered is second.rendered and first.placement is second.placement, "one value shared"
    whole = sum(len(orjson.dumps(e.to_api())) for e in index.entries.values())
    assert len(raw) < whole / 4, "the cluster names once, not once an entry"


def test_a_collection_of_at_most_eight_clusters_stays_in_its_entry() -> None:
    few = FLEET[:SHARED_MIN]
    (raw,) = StateIndex(ENGINE, {identity("web"): entry("a", few)}).shards().values()
    assert b'"sets"' not in raw and b'"rendered":["member-000"' in raw


def test_a_set_edited_by_hand_or_missing_makes_the_index_untrusted() -> None:
    (raw,) = fleet_index().shards().values()
    edited = raw.replace(b'"member-039":"Healthy"', b'"member-039":"Unhealthy"', 1)
    assert edited != raw
    assert parse_index_shards({"shop": edited}) is None, "a set that does not match its digest"
    digest = orjson.loads(raw)["sets"].popitem()[0]
    missing = b"\n".join(
        line for line in raw.split(b"\n") if not line.startswith(b'  "%s"' % digest.encode())
    )
    assert parse_index_shards({"shop": missing}) is None, "a set an entry names, missing"
    assert (
        parse_index_shards({"shop": raw.replace(b'"placementSet"', b'"placement":{},"placementSet"', 1)})
        is None
    )


def test_a_line_known_before_must_still_find_its_sets_in_the_file() -> None:
    (raw,) = fleet_index().shards().values()
    lines: IndexLines = {}
    assert parse_index_shards({"shop": raw}, lines) is not None and lines
    digest = orjson.loads(raw)["sets"].popitem()[0]
    missing = b"\n".join(
        line for line in raw.split(b"\n") if not line.startswith(b'  "%s"' % digest.encode())
    )
    assert parse_index_shards({"shop": missing}, dict(lines)) is None
    assert parse_index_shards({"shop": raw}, lines) == fleet_index()


@pytest.mark.parametrize("seed", range(6))
def test_every_file_keeps_within_the_budget_counting_each_set_once(seed: int) -> None:
    """The split counts a file's bytes exactly (its sets once each): each within the budget, and half as many
    buckets would not be; kept files are kept exactly when a fresh split writes them."""
    rng = random.Random(seed)
    index = StateIndex(
        ENGINE,
        {
            identity(f"web-{i:03d}"): entry(f"f{i}", FLEET[: rng.choice((5, 20, 40))], rng.randint(1, 3))
            for i in range(rng.randint(20, 80))
        },
        run="run-1",
    )
    whole = len(index.shards()["shop"])
    alone = max(len(StateIndex(ENGINE, {i: e}, run="run-1").dump()) for i, e in index.entries.items())
    budget = rng.randint(max(alone, whole // 12), whole // 2)
    shards = index.shards(budget=budget)
    assert all(len(raw) <= budget for raw in shards.values())
    counts = {place[2] for name in shards if (place := shard_place(name)) is not None}
    (count,) = counts
    assert count > 1
    halves: dict[int, dict[Identity, IndexEntry]] = {}
    for ident, found in index.entries.items():
        halves.setdefault(bucket_of(ident, count // 2), {})[ident] = found
    dumped = [len(StateIndex(ENGINE, part, run="run-1").dump()) for part in halves.values()]
    assert max(dumped) > budget, "as few buckets as fit: half as many would not"
    assert parse_index_shards(shards) == index
    previous = parse_index_shards(shards)
    assert previous is not None
    kept = replace(previous, raw={})
    for other in (budget, budget * 2, whole):
        assert kept.shards(previous=previous, budget=other) == index.shards(budget=other)


def test_the_split_counts_a_file_and_two_joined_to_the_byte() -> None:
    index = fleet_index()
    whole = index.shards()["shop"]
    assert list(index.shards(budget=len(whole))) == ["shop"], "exactly the budget: one file"
    split = index.shards(budget=len(whole) - 1)
    assert len(split) == 2, "a byte less: two"
    previous = parse_index_shards(split)
    assert previous is not None
    kept = replace(previous, raw={})
    assert kept.shards(previous=previous, budget=len(whole) - 1) == split
    assert kept.shards(previous=previous, budget=len(whole)) == {"shop": whole}, "the two joined fit again"


def test_files_an_older_version_wrote_without_sets_are_written_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries kept as they were do not keep a file laid out without sets: a run writes what a run from
    scratch writes. A namespace split in buckets is written again whole."""
    index = StateIndex(
        ENGINE,
        {
            **fleet_index().entries,
            identity("web", "blog"): entry("b"),
            identity("few", "docs"): entry("d", FLEET[:3]),
        },
        run="run-1",
    )
    budget = len(fleet_index().shards()["shop"]) * 3 // 4
    monkeypatch.setattr(index_sets, "SHARED_MIN", 10**6)  # as versions before the sets wrote it
    older = index.shards(budget=budget)
    monkeypatch.undo()
    assert not any(b'"sets"' in raw for raw in older.values())
    assert sum(name.startswith("shop.") for name in older) > 1, "split in buckets"
    previous = parse_index_shards(older)
    assert previous == index
    assert sorted(previous.raw) == ["docs"], (
        "only the file without large collections is as this version writes it"
    )
    kept = replace(previous, raw={})
    out = kept.shards(previous=previous, budget=budget)
    assert out == index.shards(budget=budget)
    assert out["docs"] is older["docs"]
