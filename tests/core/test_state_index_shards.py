"""The state index's shard files (``core.incremental.state_index``): written one per namespace, read back to
the same entries, and a shard whose entries a run kept as they were is kept as it was read, not dumped again."""

from __future__ import annotations

from dataclasses import replace

from gitops_karmada.core.incremental.state_index import (
    IndexEntry,
    StateIndex,
    belongs,
    bucket_of,
    parse_index_shards,
    shard_place,
)

ENGINE = "test/1"


def entry(fingerprint: str) -> IndexEntry:
    return IndexEntry(
        fingerprint=fingerprint,
        record="r" * 40,
        files="f" * 40,
        rendered=("member1", "member2"),
        settled=True,
        placement={"member1": 1, "member2": 2},
    )


def identity(namespace: str, name: str) -> tuple[str, str, str, str]:
    return ("apps", "Deployment", namespace, name)


def written() -> tuple[StateIndex, dict[str, bytes]]:
    index = StateIndex(
        ENGINE,
        {
            identity("shop", "web"): entry("a"),
            identity("shop", "api"): entry("b"),
            identity("blog", "web"): entry("c"),
        },
        run="run-1",
    )
    return index, index.shards()


def test_the_shards_read_back_to_the_entries_they_were_written_from() -> None:
    index, shards = written()
    assert sorted(shards) == ["blog", "shop"]
    read = parse_index_shards(shards)
    assert read is not None and read.raw == shards
    assert read == index, "the raw files read are not part of the value"


def test_a_shard_whose_entries_were_kept_is_kept_as_read_and_a_changed_one_is_dumped() -> None:
    _index, shards = written()
    # the blog shard as a hand would lay it out: the same entries, another spacing
    shards["blog"] = shards["blog"].replace(b'":{', b'": {', 1)
    previous = parse_index_shards(shards)
    assert previous is not None
    after = replace(
        previous,
        entries={**previous.entries, identity("shop", "web"): entry("a2")},
        raw={},
    )
    out = after.shards(previous=previous)
    assert out["blog"] is previous.raw["blog"], "every entry the same object: the file as it was read"
    assert out["shop"] == after.shards()["shop"] != shards["shop"], "a changed entry: the shard dumped anew"
    assert parse_index_shards(out) == after


def test_an_equal_entry_that_is_not_the_same_object_or_another_run_dumps_the_shard() -> None:
    _index, shards = written()
    shards["blog"] = shards["blog"].replace(b'":{', b'": {', 1)
    previous = parse_index_shards(shards)
    assert previous is not None
    remade = replace(previous, entries={i: replace(e) for i, e in previous.entries.items()}, raw={})
    assert remade.shards(previous=previous)["blog"] == remade.shards()["blog"] != shards["blog"]
    rerun = replace(previous, run="run-2", raw={})
    assert rerun.shards(previous=previous)["blog"] == rerun.shards()["blog"]


def crowded(count: int, budget: int) -> tuple[StateIndex, dict[str, bytes]]:
    index = StateIndex(ENGINE, {identity("shop", f"web-{i:03d}"): entry(f"f{i}") for i in range(count)})
    return index, index.shards(budget=budget)


def bucket_count(shards: dict[str, bytes]) -> int:
    counts = {place[2] for name in shards if (place := shard_place(name)) is not None}
    assert len(counts) == 1
    return counts.pop()


def test_a_namespace_past_the_budget_is_split_into_as_few_hash_buckets_as_keep_each_file_within_it() -> None:
    whole = crowded(60, 10**9)[1]
    assert list(whole) == ["shop"], "within the budget: one file"
    budget = len(whole["shop"]) // 5
    index, shards = crowded(60, budget)
    count = bucket_count(shards)
    assert count >= 8, "a fifth of the whole file each: at least 8 buckets"
    assert all(name.startswith("shop.") and name.endswith(f"-of-{count}") for name in shards)
    assert all(len(raw) <= budget for raw in shards.values())
    fewer = StateIndex(ENGINE, index.entries).shards(budget=budget * 2)
    assert bucket_count(fewer) < count, "as few as fit: a larger budget, fewer files"
    assert parse_index_shards(shards) == index
    for name, raw in shards.items():
        alone = parse_index_shards({name: raw}, sharded=False)
        assert alone is not None and all(belongs(i, name) for i in alone.entries)


def test_the_split_follows_the_entries_alone_and_a_change_rewrites_one_bucket() -> None:
    _index, shards = crowded(60, 2_000)
    previous = parse_index_shards(shards)
    assert previous is not None
    changed = identity("shop", "web-007")
    after = replace(previous, entries={**previous.entries, changed: entry("new")}, raw={})
    out = after.shards(previous=previous, budget=2_000)
    assert out == after.shards(budget=2_000), "the same files with or without the previous index"
    assert sorted(out) == sorted(shards)
    count = bucket_count(out)
    assert [name for name in out if out[name] != shards[name]] == [
        f"shop.{bucket_of(changed, count)}-of-{count}"
    ]
    assert parse_index_shards(out) == after


def test_a_namespace_that_shrinks_within_the_budget_is_one_file_again() -> None:
    _index, shards = crowded(60, 2_000)
    previous = parse_index_shards(shards)
    assert previous is not None
    few = replace(previous, entries=dict(list(previous.entries.items())[:3]), raw={})
    assert sorted(few.shards(previous=previous, budget=2_000)) == ["shop"]


def test_an_entry_in_another_bucket_than_its_hash_names_is_not_trusted() -> None:
    index, shards = crowded(60, 2_000)
    count = bucket_count(shards)
    moved = identity("shop", "web-007")
    elsewhere = next(name for name in sorted(shards) if not belongs(moved, name))
    home = f"shop.{bucket_of(moved, count)}-of-{count}"
    line = StateIndex(ENGINE, {moved: index.entries[moved]}).dump().split(b"\n")[1]
    tampered = {
        **shards,
        home: StateIndex(
            ENGINE, {i: e for i, e in index.entries.items() if belongs(i, home) and i != moved}
        ).dump(),
        elsewhere: shards[elsewhere].replace(b'"templates":{\n', b'"templates":{\n' + line + b",\n", 1),
    }
    assert parse_index_shards(tampered, sharded=False) is not None, "a well-formed index..."
    assert parse_index_shards(tampered) is None, "...with an entry where the writer would not put it"


def test_shard_names_the_writer_never_makes_are_refused() -> None:
    assert shard_place("shop") == ("shop", 0, 1)
    assert shard_place("shop.3-of-8") == ("shop", 3, 8)
    for name in ("shop.3-of-6", "shop.8-of-8", "shop.03-of-8", "shop.1-of-1", "shop.x", "shop.1-of-"):
        assert shard_place(name) is None, name


def test_a_file_past_the_budget_that_an_earlier_version_wrote_is_split_though_its_entries_are_kept() -> None:
    index, whole = crowded(60, 10**9)
    previous = parse_index_shards(whole)
    assert previous is not None
    kept = replace(previous, raw={})
    budget = len(whole["shop"]) // 5
    assert kept.shards(previous=previous, budget=budget) == index.shards(budget=budget)
    assert kept.shards(previous=previous)["shop"] is previous.raw["shop"], "within the budget: kept as read"


def test_a_grown_budget_joins_the_buckets_of_kept_entries_as_a_fresh_split_would() -> None:
    """The budget follows output.hostLimits, which is not part of the run digest: kept entries alone do
    not keep their files when fewer would now do."""
    index, shards = crowded(60, 2_000)
    previous = parse_index_shards(shards)
    assert previous is not None
    kept = replace(previous, raw={})
    for budget in (2_000, 4_000, 10**9):
        assert kept.shards(previous=previous, budget=budget) == index.shards(budget=budget)
    assert bucket_count(kept.shards(previous=previous, budget=4_000)) < bucket_count(shards)
    assert (
        kept.shards(previous=previous, budget=2_000)["shop.0-of-" + str(bucket_count(shards))]
        is (previous.raw["shop.0-of-" + str(bucket_count(shards))])
    ), "the same budget: kept as read"
