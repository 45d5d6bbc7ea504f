"""The state index's shard files (``core.incremental.state_index``): written one per namespace, read back to
the same entries, and a shard whose entries a run kept as they were is kept as it was read, not dumped again."""

from __future__ import annotations

from dataclasses import replace

from gitops_karmada.core.incremental.state_index import IndexEntry, StateIndex, parse_index_shards

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
