"""Issues 12 and 13: a run that reads less gives exactly what a run that reads everything gives.

* The cluster folders are looked up lazily and reused templates are vouched for by the paths changed since
  the tool's last commit; when the state index was edited after that commit, the run falls back to
  comparing every reused file, and a hand edit is still found and reverted.
* The daemon's warm state (decoded inputs, index entries by line, what runs computed of the same objects)
  gives byte-identical commits, diagnostics and policy matches to cold runs over the same sequence of
  changes, and holds only what the last run used.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import orjson
import pytest

from gitops_karmada.adapters import parse_cache
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.adapters.parse_cache import decode_inputs, prune_decoded
from gitops_karmada.adapters.repository import read_commit
from gitops_karmada.adapters.warm_state import WarmState
from gitops_karmada.core.incremental.state_index import IndexLines, parse_index
from gitops_karmada.core.inputs.loading import decode
from gitops_karmada.reconcile import previous, reconcile
from gitops_karmada.usecases.reconcile import reconcile_ref
from tests.builders import cluster_doc, cpp_doc, deployment, pp_doc
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from gitops_karmada.core.inputs.loading import Decoded
    from gitops_karmada.reconcile.outcome import TemplateOutcome

POLICY = pp_doc(
    "web",
    "shop",
    [{"apiVersion": "apps/v1", "kind": "Deployment"}],
    placement={"replicaScheduling": {"replicaSchedulingType": "Duplicated"}},
)
MEMBER2_ONLY = {"clusterAffinity": {"clusterNames": ["member2"]}}
INDEX = "karmada-state/index/shop.json"  # the namespace of every template here
ALL = frozenset({"all"})  # the last change empties member1: guardrails lifted, on both sides alike
RENDERED = "clusters/member1/shop/deployment.apps/web-1.yaml"
WEB_9 = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web-9"}


def fleet(tmp_path: Path) -> FleetRepo:
    repo = FleetRepo.create(tmp_path / "fleet", clusters=2)
    repo.write("policies/web.yaml", POLICY)
    for i in range(3):
        repo.write(f"apps/web-{i}.yaml", deployment(f"web-{i}", namespace="shop", image="nginx:1"))
    repo.commit("fleet")
    repo.cli("reconcile")
    return repo


def test_edits_since_the_last_tool_commit_vouch_for_reused_files(tmp_path: Path) -> None:
    repo = fleet(tmp_path)
    repo.write(RENDERED, repo.read(RENDERED).replace("nginx:1", "nginx:evil"))
    repo.write("apps/web-0.yaml", deployment("web-0", namespace="shop", image="nginx:2"))
    repo.commit("a hand edit and a template change")
    state = read_commit(GitStore.open(repo.path), "HEAD")
    assert state.request.snapshot.output_edits == frozenset({RENDERED})
    run = repo.cli("reconcile")
    assert "edited by hand" in run.stderr and RENDERED in run.stderr
    assert "nginx:1" in repo.read(RENDERED)
    assert repo.cli("verify").returncode == 0


def test_an_index_edited_after_the_tool_commit_falls_back_to_comparing_files(tmp_path: Path) -> None:
    repo = fleet(tmp_path)
    # the index re-indented by hand: same entries, other bytes; the rendered file edited in the same commit
    index = repo.read(INDEX)
    repo.write(INDEX, index.replace("\n  ", "\n    "))
    repo.write(RENDERED, repo.read(RENDERED).replace("nginx:1", "nginx:evil"))
    repo.commit("hand edits")
    state = read_commit(GitStore.open(repo.path), "HEAD")
    assert state.request.snapshot.output_edits is None  # the index is not the one the last tool commit wrote
    repo.cli("reconcile")
    assert "nginx:1" in repo.read(RENDERED)
    assert repo.read(INDEX) == index


def test_a_deleted_rendered_file_is_written_again(tmp_path: Path) -> None:
    repo = fleet(tmp_path)
    repo.delete(RENDERED)
    repo.commit("delete a rendered file")
    repo.cli("reconcile")
    assert repo.exists(RENDERED)


def test_warm_runs_commit_exactly_what_cold_runs_commit(tmp_path: Path) -> None:
    repo = fleet(tmp_path)
    twin = tmp_path / "twin"
    shutil.copytree(repo.path, twin)
    warm = WarmState()
    changes = [
        ("apps/web-1.yaml", deployment("web-1", namespace="shop", image="nginx:2")),
        ("apps/broken.yaml", {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {}}),
        ("apps/broken.yaml", None),
        ("apps/web-3.yaml", deployment("web-3", namespace="shop", image="nginx:1")),
        # web-3 unchanged, its policy too: only its claim is new (fresh before, sticky now)
        ("apps/web-4.yaml", deployment("web-4", namespace="shop", image="nginx:1")),
        ("policies/web.yaml", {**POLICY, "spec": {**POLICY["spec"], "placement": MEMBER2_ONLY}}),
        ("apps/web-0.yaml", None),
        # a template no policy selects, then a ClusterPropagationPolicy naming it, then a change of that
        # policy: a match is recalled only with the very policies indexed under its kind and its name
        ("apps/web-9.yaml", deployment("web-9", namespace="other", image="nginx:1")),
        ("policies/named.yaml", cpp_doc("named", [WEB_9])),
        ("policies/named.yaml", cpp_doc("named", [WEB_9], placement=MEMBER2_ONLY)),
    ]
    for path, content in changes:
        for root in (repo.path, twin):
            copy = FleetRepo(root)
            if content is None:
                copy.delete(path)
            else:
                copy.write(path, content)
            copy.commit(f"change {path}")
        read_entries = sum(
            shard.read_text().count('": {') for shard in (repo.path / "karmada-state/index").glob("*.json")
        )
        cold = reconcile_ref(GitStore.open(twin), "refs/heads/main", allow=ALL)
        hot = reconcile_ref(GitStore.open(repo.path), "refs/heads/main", allow=ALL, warm=warm)
        # the broken file: refused; its removal: the output of the commit before it, already there; web-9
        # alone: selected by no policy, nothing to write
        committed = path not in ("apps/broken.yaml", "apps/web-9.yaml")
        assert (hot.commit is not None) == (cold.commit is not None) == committed
        if hot.result is not None and cold.result is not None:
            assert list(map(str, hot.result.diagnostics)) == list(map(str, cold.result.diagnostics))
            # what explain shows too: a claim recalled from an earlier run must be this run's (sticky)
            assert _judgements(hot.result.outcomes) == _judgements(cold.result.outcomes)
            assert not committed or hot.result.input_ok
        assert git(repo.path, "rev-parse", "HEAD^{tree}") == git(twin, "rev-parse", "HEAD^{tree}")
        listed = GitStore.open(twin).list_entries("HEAD", ["apps", "policies", "clusters.d", "inventory"])
        assert {e.oid for e in listed if e.path.startswith(("apps/", "policies/"))} <= warm.decoded.keys()
        assert {
            e.path for e in listed if e.path.startswith(("apps/", "policies/"))
        } <= warm.classified.files.keys()
        assert len(warm.index_lines) == read_entries  # only the lines of the index this run read


def _judgements(outcomes: Sequence[TemplateOutcome]) -> list[tuple[str, str, str, str, bool]]:
    return [(str(o.key), o.match.state.value, o.match.reason, o.fingerprint, o.reused) for o in outcomes]


def test_index_lines_parse_like_the_whole_file(tmp_path: Path) -> None:
    repo = fleet(tmp_path)
    raw = (repo.path / INDEX).read_bytes()
    memo: IndexLines = {}
    whole = parse_index(raw)
    assert whole is not None and len(whole.entries) == 3
    assert parse_index(raw, memo) == whole and len(memo) == 3
    kept = dict(memo)
    assert parse_index(raw, memo) == whole
    assert all(memo[line][1] is kept[line][1] for line in memo)  # reused, not parsed again
    reindented = raw.replace(b"\n  ", b"\n    ")
    assert parse_index(reindented, memo) == whole  # another layout: parsed whole
    assert parse_index(b"{not json", memo) is None


@pytest.mark.parametrize(
    ("field", "value"),
    [("placement", b'{"member1":"2"}'), ("rendered", b'["member1",3]'), ("health", b'{"member1":1}')],
)
def test_an_index_entry_of_the_wrong_shape_is_not_trusted(tmp_path: Path, field: str, value: bytes) -> None:
    raw = (fleet(tmp_path).path / INDEX).read_bytes()
    line = next(line for line in raw.splitlines() if b'"fingerprint"' in line)
    entry = orjson.loads(b"{" + line.rstrip(b",") + b"}")
    ((identity, body),) = entry.items()
    body[field] = orjson.loads(value)
    edited = raw.replace(line.rstrip(b","), orjson.dumps({identity: body})[1:-1])
    assert edited != raw
    assert parse_index(edited) is None
    assert parse_index(edited, {}) is None  # line by line too


def test_decoded_memory_holds_what_the_run_read(tmp_path: Path) -> None:
    repo = fleet(tmp_path)
    store = GitStore.open(repo.path)
    blobs = {e.path: e.oid for e in store.list_entries("HEAD", ["apps"])}
    memory: dict[str, object] = {"stale-blob-id": decode(b"a: 1\n")}
    first = decode_inputs(None, blobs, store.read_blobs, memory)  # type: ignore[arg-type]
    assert set(memory) == set(blobs.values())

    def unread(oids: object) -> dict[str, bytes]:
        raise AssertionError(f"read {oids} again")

    again = decode_inputs(None, blobs, unread, memory)  # type: ignore[arg-type]
    assert again == first


def test_a_run_that_redoes_every_template_reads_their_records_in_one_batch(tmp_path: Path) -> None:
    """An inventory or status change redoes the whole fleet: its records are read with one git process,
    not one each (5,000 processes made the first status run at fleet M take 60 s instead of 40 s)."""
    repo = fleet(tmp_path)
    repo.write("inventory/member1.yaml", cluster_doc("member1", labels={"env": "prod", "tier": "gold"}))
    repo.commit("a label on member1: every fingerprint changes")
    store = GitStore.open(repo.path)
    state = read_commit(store, "HEAD")
    reads: list[list[str]] = []
    read_records = state.request.ports.read_records
    assert read_records is not None

    def counted(paths: Sequence[str]) -> Mapping[str, bytes | Decoded]:
        reads.append(list(paths))
        return read_records(paths)

    result = reconcile(state.request.with_ports(read_records=counted))
    assert result.input_ok and not any(o.reused for o in result.outcomes)
    record_reads = [paths for paths in reads if any("/bindings/" in p for p in paths)]
    assert [sorted(p.rpartition("/")[2] for p in paths) for paths in record_reads] == [
        ["web-0.yaml", "web-1.yaml", "web-2.yaml"]
    ]

    # decoded once: the next process finds the records in the cache of decoded files, by blob id
    records = {p: o for p, o in state.request.snapshot.state_blobs.items() if "/bindings/" in p}

    def unread(oids: Sequence[str]) -> dict[str, bytes]:
        raise AssertionError(f"decoded {oids} again")

    again = decode_inputs(store.git_dir, records, unread)
    assert again == {p: decode(store.read_blobs([o])[o]) for p, o in records.items()}


def test_the_cache_of_decoded_files_drops_what_the_commit_lacks_once_it_holds_twice_as_much(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = fleet(tmp_path)
    store = GitStore.open(repo.path)
    inputs = {e.path: e.oid for e in store.list_entries("HEAD", ["apps", "policies", "inventory"])}
    assert store.git_dir is not None
    for i in range(7):  # earlier versions of a file: blobs the commit no longer has
        old = git(repo.path, "hash-object", "-w", "--stdin", stdin=f"a: {i}\n".encode()).strip()
        decode_inputs(store.git_dir, {f"old-{i}.yaml": old}, store.read_blobs)
    decode_inputs(store.git_dir, inputs, store.read_blobs)
    live = set(inputs.values())
    assert prune_decoded(store.git_dir, live) == 0, "within twice the commit's files and the slack"
    monkeypatch.setattr(parse_cache, "PRUNE_SLACK", 0)
    assert prune_decoded(store.git_dir, live) == 7, "past them: the other blobs are dropped"

    def unread(oids: Sequence[str]) -> dict[str, bytes]:
        raise AssertionError(f"decoded {oids} again")

    assert decode_inputs(store.git_dir, inputs, unread).keys() == inputs.keys(), "the commit's own stay"
    assert prune_decoded(store.git_dir, live) == 0


def test_records_are_read_in_batches_that_give_what_one_batch_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full run of fleet XL reads 20,000 records: decoded a batch at a time, never all held at once."""
    repo = fleet(tmp_path)
    repo.write("inventory/member1.yaml", cluster_doc("member1", labels={"env": "prod", "tier": "gold"}))
    repo.commit("a label on member1: every fingerprint changes")
    store = GitStore.open(repo.path)
    whole = reconcile(read_commit(store, "HEAD").request)
    monkeypatch.setattr(previous, "RECORD_BATCH", 2)
    state = read_commit(store, "HEAD")
    read_records = state.request.ports.read_records
    assert read_records is not None
    reads: list[list[str]] = []

    def counted(paths: Sequence[str]) -> Mapping[str, bytes | Decoded]:
        reads.append([p.rpartition("/")[2] for p in paths])
        return read_records(paths)

    batched = reconcile(state.request.with_ports(read_records=counted))
    assert reads == [["web-0.yaml", "web-1.yaml"], ["web-2.yaml"]]
    assert batched.previous_bindings == whole.previous_bindings and batched.files == whole.files
