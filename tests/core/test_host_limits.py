"""``core.host_limits``: folders counted as the commit would have them, and each one past a limit named once
with its remedy."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gitops_karmada.core.host_limits import (
    HOST_LIMIT_CODE,
    LimitKind,
    folder_entries,
    host_limit_findings,
    touched_folders,
)
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.model.config import HostLimitsConfig

LAYOUT = RepoLayout.default()
ROOTS = LAYOUT.folders
KIND = "clusters/m1/shop/configmap"


def test_touched_folders_are_every_folder_up_to_the_managed_one() -> None:
    paths = [f"{KIND}/a.yaml", "karmada-state/index/shop.json", "apps/web.yaml"]
    assert touched_folders(paths, ROOTS) == {
        KIND,
        "clusters/m1/shop",
        "clusters/m1",
        "clusters",
        "karmada-state/index",
        "karmada-state",
    }


def test_a_folder_counts_what_it_kept_plus_what_is_written_minus_what_is_deleted() -> None:
    before = {KIND: {"a.yaml", "b.yaml", "c.yaml"}, "clusters/m1/shop": {"configmap"}}
    changes = {f"{KIND}/c.yaml": False, f"{KIND}/d.yaml": True, f"{KIND}/a.yaml": True}
    folders = touched_folders(changes, ROOTS)
    counts = folder_entries(before, changes.items(), folders)
    assert counts[KIND] == 3  # a (rewritten), b (kept), d (new); c deleted
    assert counts["clusters/m1/shop"] == 1


def test_new_folders_count_in_their_parents_and_emptied_ones_do_not() -> None:
    before = {
        "clusters/m1/shop": {"configmap", "secret"},
        "clusters/m1/shop/secret": {"s.yaml"},
        "clusters/m1": {"shop"},
    }
    changes = {"clusters/m1/shop/secret/s.yaml": False, "clusters/m1/shop/service/x.yaml": True}
    counts = folder_entries(before, changes.items(), touched_folders(changes, ROOTS))
    assert counts["clusters/m1/shop/secret"] == 0
    assert counts["clusters/m1/shop/service"] == 1
    assert counts["clusters/m1/shop"] == 2  # configmap kept, secret emptied, service new
    assert counts["clusters/m1"] == 1


def test_each_folder_and_file_past_a_limit_is_named_once_with_its_remedy() -> None:
    limits = HostLimitsConfig(max_folder_entries=5, max_file_bytes=100)
    found = host_limit_findings(
        {KIND: 6, "clusters/m1/shop": 5, "clusters": 7},
        {f"{KIND}/a.yaml": 101, f"{KIND}/b.yaml": 100},
        limits,
        LAYOUT,
    )
    assert [(f.path, f.kind, f.size) for f in found] == [
        ("clusters", LimitKind.FOLDER, 7),
        (KIND, LimitKind.FOLDER, 6),
        (f"{KIND}/a.yaml", LimitKind.FILE, 101),
    ]
    clusters, kind, file = found
    assert "no layout option spreads this folder" in clusters.message
    assert kind.message.startswith(f"{KIND}/ would hold 6 entries, more than the 5")
    assert "output.buckets: 16" in kind.message and "--allow" not in kind.message
    assert "101 bytes" in file.message
    item = kind.to_diagnostic().to_dict()
    assert item == {"severity": "warning", "message": kind.message, "subject": KIND, "code": HOST_LIMIT_CODE}


def test_the_remedy_follows_the_buckets_already_set_and_zero_turns_a_limit_off() -> None:
    bucketed = RepoLayout("clusters", "karmada-state", "cluster-snapshots", buckets=256)
    limits = HostLimitsConfig(max_folder_entries=5, max_file_bytes=0)
    (bucket,) = host_limit_findings({f"{KIND}/ab": 9}, {f"{KIND}/ab/x.yaml": 10**9}, limits, bucketed)
    assert "output.buckets: 4096" in bucket.message
    widest = RepoLayout("clusters", "karmada-state", "cluster-snapshots", buckets=4096)
    (kind,) = host_limit_findings({KIND: 4096}, {}, limits, widest)
    assert "4096 buckets already" in kind.message
    assert host_limit_findings({KIND: 10**6}, {}, HostLimitsConfig(max_folder_entries=0), LAYOUT) == ()


def test_the_defaults_are_githubs_figures() -> None:
    limits = HostLimitsConfig()
    assert (limits.max_folder_entries, limits.max_file_bytes) == (3000, 1_000_000)
    assert host_limit_findings({KIND: 3000}, {"x": 1_000_000}, limits, LAYOUT) == ()
    assert len(host_limit_findings({KIND: 3001}, {"x": 1_000_001}, limits, LAYOUT)) == 2


def _entries(files: set[str]) -> dict[str, set[str]]:
    """Folder → the names directly inside it, of every folder holding one of ``files``."""
    found: dict[str, set[str]] = {}
    for path in files:
        folder, _, name = path.rpartition("/")
        while folder:
            found.setdefault(folder, set()).add(name)
            folder, _, name = folder.rpartition("/")
    return found


PATHS = [f"{KIND}/{n}.yaml" for n in "abcd"] + [f"clusters/m1/shop/secret/{n}.yaml" for n in "xy"]


@given(st.sets(st.sampled_from(PATHS)), st.dictionaries(st.sampled_from(PATHS), st.booleans(), min_size=1))
def test_the_counts_equal_a_listing_of_every_file_after_the_changes(
    files: set[str], changes: dict[str, bool]
) -> None:
    changes = {path: kept for path, kept in changes.items() if kept or path in files}  # deletes what is there
    after = (files | {p for p, kept in changes.items() if kept}) - {
        p for p, kept in changes.items() if not kept
    }
    folders = touched_folders(changes, ROOTS)
    listed = _entries(after)
    assert folder_entries(_entries(files), changes.items(), folders) == {
        f: len(listed.get(f, ())) for f in folders
    }
