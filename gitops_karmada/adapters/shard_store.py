"""Sharded output in Git: the run's one tree of cluster folders assembled from the shards, and split again.

*Reading* (``output_view``): a commit whose state folder records shards (``core.shards.ShardRecord``) has no
cluster folders of its own; its view is its tree with ``clustersDir`` made of each cluster's folder as the
recorded shard commit holds it (or the shard branch's tip, for the write path: what the consumers see).
Only tree objects are made; no file is read or copied.

*Writing* (``write_output``): the run's changes are applied to the view (one fast-import, ``GitStore.stage``);
each shard whose folders differ gets a commit of the very subtrees of that result on its branch
(compare-and-swap on the branch, so a commit someone else made first is never pushed over); then the source
branch gets one commit: the result without the cluster folders, with the shard record naming each shard's
commit. A crash between shards leaves some branches ahead of the record; the next run builds its view from
the branch tips, finds the same changes and records the commits already made (``verify`` reports the gap
meanwhile). ``tree`` mode after a sharded one puts the folders back on the source branch.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from loguru import logger

from gitops_karmada.adapters.git_store import TEMPORARY_REF_PREFIX
from gitops_karmada.adapters.git_tree import SUBMODULE_MODE
from gitops_karmada.adapters.git_tree_edit import (
    TREE_MODE,
    Entry,
    TreeCommit,
    commit_tree,
    commit_trees,
    delete_refs,
    edit_tree,
    empty_tree,
    list_tree,
    make_tree,
    object_ids,
    tree_of,
    update_refs,
    write_blob,
)
from gitops_karmada.adapters.tool_commits import RENDERED_BY
from gitops_karmada.core.shards import (
    Shard,
    ShardPlan,
    ShardRecord,
    ShardRecordError,
    load_shard_record,
    next_record,
)
from gitops_karmada.model import wellknown
from gitops_karmada.model.errors import GitError

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from gitops_karmada.adapters.git_store import GitStore
    from gitops_karmada.core.file_changes import FileChange
    from gitops_karmada.core.layout import RepoLayout


def recorded_shards(store: GitStore, source: str, layout: RepoLayout) -> ShardRecord | None:
    """The shard record of ``source`` (None: its cluster folders are its own, ``tree`` mode)."""
    content = store.read_file(source, layout.shards_path)
    if content is None:
        return None
    try:
        return load_shard_record(content)
    except ShardRecordError as err:
        raise GitError("read", f"{layout.shards_path} at {source[:12]}: {err}") from err


@dataclass(frozen=True, slots=True)
class OutputView:
    """What the cluster folders of a commit are, whatever the output mode."""

    rev: str
    """The commit whose ``clustersDir`` holds them: the source commit itself in ``tree`` mode, else a commit
    on top of it made for reading (``_view_commit``)."""
    record: ShardRecord | None = None
    tips: Mapping[str, str | None] = field(default_factory=dict)
    """Each recorded shard's branch tip now (read for the write path only)."""

    @property
    def sharded(self) -> bool:
        return self.record is not None

    def branch_of(self, shard: str) -> str:
        """The branch of the recorded shard ``shard``."""
        assert self.record is not None
        return next(r.shard.branch for r in self.record.shards if r.shard.name == shard)

    @property
    def behind(self) -> tuple[str, ...]:
        """Shards whose branch is not at the recorded commit (a run interrupted between shards, or a
        commit made on the branch by someone else)."""
        if self.record is None:
            return ()
        return tuple(
            r.shard.name for r in self.record.shards if self.tips.get(r.shard.name, r.commit) != r.commit
        )


def output_view(store: GitStore, source: str, layout: RepoLayout, *, tips: bool = False) -> OutputView:
    """The cluster folders of ``source`` (``tips``: as the shard branches hold them now)."""
    record = recorded_shards(store, source, layout)
    if record is None:
        return OutputView(source)
    now = shard_tips(store, (r.shard for r in record.shards)) if tips else {}
    folders: dict[str, str] = {}
    for recorded in record.shards:
        commit = now.get(recorded.shard.name) or recorded.commit
        for cluster in recorded.clusters:
            where = recorded.shard.cluster_folder(cluster)
            folders[cluster] = f"{commit}:{where}" if where else f"{commit}^{{tree}}"
    found = object_ids(store.runner, list(folders.values()))
    if any(v is None for v in found.values()) and _fetch_from_default(store, source, layout):
        found = object_ids(store.runner, list(folders.values()))
    missing = sorted(
        {name.partition(":")[0].partition("^")[0] for name in folders.values() if found[name] is None}
    )
    if missing:
        raise GitError(
            "read",
            f"the output shards recorded at {source[:12]} are not in this repository (commits "
            f"{', '.join(m[:12] for m in missing)}): fetch the shard branches first, e.g. git fetch origin "
            "'refs/heads/clusters/*:refs/heads/clusters/*' (and each group's remote)",
        )
    clusters = make_tree(
        store.runner, {c: Entry(TREE_MODE, "tree", found[name] or "") for c, name in folders.items()}
    )
    # files committed under the cluster folders on the source branch itself (by hand, or a stray file beside
    # the folders) are seen where they are: a run moves a cluster's into its shard and keeps the others
    own = {
        e.path: Entry(e.mode, "commit" if e.mode == SUBMODULE_MODE else "blob", e.oid)
        for e in store.list_entries(source, [layout.clusters_dir])
    }
    edits: dict[str, Entry | None] = {layout.clusters_dir: Entry(TREE_MODE, "tree", clusters), **own}
    root = edit_tree(store.runner, tree_of(store.runner, source), edits)
    return OutputView(_view_commit(store, root, source), record, now)


def _view_commit(store: GitStore, tree: str, source: str) -> str:
    """A commit of the view ``tree`` on top of ``source``, on no branch, with ``source``'s own author and
    committer: the same view is the same object, however often it is read."""
    header = store.runner.run(
        ["cat-file", "commit", source], operation="cat-file", what=f"reading {source}"
    ).stdout.decode("utf-8", "surrogateescape")
    people = dict(
        line.split(" ", 1)
        for line in header.partition("\n\n")[0].splitlines()
        if line.startswith(("author ", "committer "))
    )
    return commit_tree(
        store.runner,
        tree,
        [source],
        "gitops-karmada: the output view (the cluster folders from their shards)\n",
        author=people["author"],
        committer=people["committer"],
    )


def _fetch_from_default(store: GitStore, source: str, layout: RepoLayout) -> bool:
    """Fetch the shards ``source`` records that this repository lacks (a fresh clone of a fleet whose groups
    live in repositories of their own), from ``origin`` or the only remote; whether any was fetched."""
    remotes = store.remotes()
    remote = "origin" if "origin" in remotes else remotes[0] if len(remotes) == 1 else None
    if remote is None:
        return False
    try:
        fetched = fetch_missing_shards(store, source, layout, remote)
    except GitError as err:
        logger.bind(logger="output").warning("the output shards could not be fetched: {}", err)
        return False
    if fetched:
        logger.bind(logger="output").info("fetched output shard(s) {}", ", ".join(fetched))
    return bool(fetched)


@dataclass(frozen=True, slots=True)
class ShardWrite:
    """A shard branch moved by a write."""

    shard: Shard
    old: str | None
    new: str
    clusters: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OutputWrite:
    commit: str | None
    """The source branch's new commit (None: its tree did not change)."""
    shards: tuple[ShardWrite, ...] = ()
    moved_in: bool = False
    """The cluster folders came back to the source branch (``tree`` mode after a sharded one)."""
    moved_out: bool = False
    """The cluster folders left the source branch for the shards."""


def write_output(
    store: GitStore,
    *,
    source: str,
    ref: str,
    view: OutputView,
    plan: ShardPlan,
    layout: RepoLayout,
    changes: Mapping[str, FileChange],
    message: str,
    written: Mapping[str, tuple[bytes, str]] | None = None,
) -> OutputWrite:
    """Commit ``changes`` (made against ``view``) in the mode of ``plan``: see the module's docstring."""
    if not plan.sharded and not view.sharded:
        return OutputWrite(
            store.commit(parent=source, ref=ref, changes=changes, message=message, written=written)
        )
    for shard in plan.shards().values():
        if shard.ref == ref:  # the shard's commit would replace the inputs and records on the branch
            raise GitError(
                "write",
                f"output.branch makes {shard.branch}, the branch being reconciled, the branch of cluster "
                f"{shard.name}: choose an output.branch that names no source branch; nothing was written",
            )
    runner = store.runner
    record_path = layout.shards_path
    base = view.rev
    had_folders = any(e.kind == "tree" for e in _folder_entries(store, source, layout.clusters_dir).values())
    # the staged commit's ref keeps its objects referenced until the branches name them
    with store.stage(
        parent=base, changes={**changes, record_path: None}, message=message, written=written
    ) as staged:
        result = tree_of(runner, staged)
        if not plan.sharded:
            return OutputWrite(_commit_source(store, source, ref, result, message), moved_in=True)
        moved = _write_shards(store, source, view, plan, layout, result)
        record = _record(store, view, plan, moved)
        record_blob = Entry("100644", "blob", write_blob(runner, record.dump()))
        # the folders the shards hold leave the source branch; anything else under clustersDir stays
        held = {layout.cluster_folder(c): None for w in moved for c in w.clusters}
        source_tree = edit_tree(runner, result, {**held, record_path: record_blob})
        commit = _commit_source(store, source, ref, source_tree, message)
    return OutputWrite(commit, tuple(moved), moved_out=had_folders)


def _write_shards(
    store: GitStore, source: str, view: OutputView, plan: ShardPlan, layout: RepoLayout, result: str
) -> list[ShardWrite]:
    """Commit each shard whose folders differ from its branch tip, all in one fast-import, and move their
    branches in one transaction of compare-and-swaps; the shards in name order."""
    runner = store.runner
    present = {
        name for name, e in _folder_entries(store, result, layout.clusters_dir).items() if e.kind == "tree"
    }
    shards = plan.shards()
    members: dict[str, list[str]] = {name: list(plan.clusters_of(name)) for name in shards}
    if view.record is not None:
        for recorded in view.record.shards:  # a shard that held folders this plan no longer gives it
            shards.setdefault(recorded.shard.name, recorded.shard)
            members.setdefault(recorded.shard.name, [])
    names = {c: f"{result}:{layout.cluster_folder(c)}" for c in present}
    subtrees = object_ids(runner, list(names.values()))
    locals_ = shard_tips(store, shards.values())
    # no local branch (a fresh clone): the commit the record names, which the remote branch has
    tips = {
        name: locals_[name] or (view.record.commit_of(name) if view.record is not None else None)
        for name in shards
    }
    tip_trees = object_ids(runner, [f"{t}^{{tree}}" for t in tips.values() if t is not None])
    held: dict[str, tuple[str, ...]] = {}
    wanted: dict[str, TreeCommit] = {}
    kept: dict[str, str] = {}
    for name, shard in sorted(shards.items()):
        held[name] = tuple(sorted(c for c in members[name] if c in present))
        tree = _shard_tree(store, shard, {c: subtrees[names[c]] or "" for c in held[name]})
        tip = tips[name]
        if tip is not None and tip_trees[f"{tip}^{{tree}}"] == tree:
            kept[name] = tip
        elif tip is not None or held[name]:
            wanted[name] = TreeCommit(tree, tip, _shard_message(shard, source, list(held[name])))
    temp = f"{TEMPORARY_REF_PREFIX}shard-{os.getpid()}-{secrets.token_hex(4)}"
    made = commit_trees(
        runner,
        wanted,
        author=store.identity("AUTHOR"),
        committer=store.identity("COMMITTER"),
        temp_ref=temp,
    )
    try:
        moves = {shards[n].ref: (locals_[n], c) for n, c in made.items()}
        moves.update({shards[n].ref: (None, c) for n, c in kept.items() if locals_[n] is None})
        update_refs(runner, moves, reflog=f"gitops-karmada: output of {source[:12]}")
    finally:
        delete_refs(runner, [temp] if made else [])
    return [
        ShardWrite(shards[n], tips[n], made.get(n) or kept[n], held[n])
        for n in sorted(shards)
        if n in made or n in kept
    ]


def shard_tips(store: GitStore, shards: Iterable[Shard]) -> dict[str, str | None]:
    """Each shard's branch tip (None: no such branch), in one ``cat-file``."""
    listed = list(shards)
    found = object_ids(store.runner, [f"{s.ref}^{{commit}}" for s in listed])
    return {s.name: found[f"{s.ref}^{{commit}}"] for s in listed}


def _shard_tree(store: GitStore, shard: Shard, subtrees: Mapping[str, str]) -> str:
    """The tree of ``shard``'s branch holding ``subtrees`` (cluster → its folder's tree)."""
    runner = store.runner
    if shard.per_cluster:
        inner = next(iter(subtrees.values()), None)
        if inner is None:
            return empty_tree(runner)
        return (
            edit_tree(runner, None, {shard.folder: Entry(TREE_MODE, "tree", inner)})
            if shard.folder
            else inner
        )
    if not subtrees:
        return empty_tree(runner)
    edits: dict[str, Entry | None] = {
        shard.cluster_folder(c): Entry(TREE_MODE, "tree", oid) for c, oid in subtrees.items()
    }
    return edit_tree(runner, None, edits)


def _shard_message(shard: Shard, source: str, clusters: list[str]) -> str:
    what = ", ".join(clusters) if clusters else "no cluster"
    return (
        f"gitops-karmada: {shard.name} from {source[:12]}\n\nThe rendered manifests of {what}.\n\n"
        f"{wellknown.SOURCE_COMMIT_TRAILER}: {source}\n{wellknown.RENDERED_BY_TRAILER}: {RENDERED_BY}\n"
    )


def _record(store: GitStore, view: OutputView, plan: ShardPlan, moved: list[ShardWrite]) -> ShardRecord:
    commits = {w.shard.name: w.new for w in moved if w.clusters}
    return next_record(plan, commits, {w.shard.name: w.clusters for w in moved})


def _folder_entries(store: GitStore, tree: str, folder: str) -> dict[str, Entry]:
    oid = object_ids(store.runner, [f"{tree}:{folder}"])[f"{tree}:{folder}"]
    return list_tree(store.runner, oid) if oid is not None else {}


def _commit_source(store: GitStore, source: str, ref: str, tree: str, message: str) -> str | None:
    """The source branch's commit of ``tree`` (None when it equals ``source``'s)."""
    if tree == tree_of(store.runner, source):
        return None
    commit = commit_tree(
        store.runner,
        tree,
        [source],
        message if message.endswith("\n") else message + "\n",
        author=store.identity("AUTHOR"),
        committer=store.identity("COMMITTER"),
    )
    store.move_ref(ref=ref, old=source, new=commit)
    return commit


def log_output_write(written: OutputWrite, layout: RepoLayout) -> None:
    """One line for the shards a write moved, and one when the cluster folders changed branch."""
    log = logger.bind(logger="output")
    changed = [w for w in written.shards if w.old != w.new]
    if changed:
        shown = ", ".join(f"{w.shard.name} ({w.shard.branch})" for w in changed[:10])
        more = f" and {len(changed) - 10} more" if len(changed) > 10 else ""
        log.info("{} output shard(s) committed: {}{}", len(changed), shown, more)
    if written.moved_out:
        log.info(
            "output.mode moved the cluster folders out of {}/ on the source branch into their shard branches",
            layout.clusters_dir,
        )
    if written.moved_in:
        log.info(
            "output.mode is tree: the cluster folders are back in {}/ on the source branch; shard branches "
            "are no longer written (delete them once no consumer reads them)",
            layout.clusters_dir,
        )


def layout_pending(
    store: GitStore, source: str, view: OutputView, plan: ShardPlan, layout: RepoLayout
) -> str | None:
    """Why the output must be written although the run changed no file (None: it need not): the mode
    changed, the shards' assignment changed, or a shard branch is not where the record says."""
    if not plan.sharded:
        return "the cluster folders come back to the source branch" if view.sharded else None
    on_source = _folder_entries(store, source, layout.clusters_dir)
    if any(e.kind == "tree" and name in plan.of_cluster for name, e in on_source.items()):
        return f"the cluster folders move from {layout.output_prefix} to their shard branches"
    record = view.record
    if record is None:
        return None
    if record.mode is not plan.mode:
        return f"output.mode changed from {record.mode.value} to {plan.mode.value}"
    for recorded in record.shards:
        for cluster in recorded.clusters:
            if plan.of_cluster.get(cluster) != recorded.shard:
                return f"cluster {cluster} changes shard"
    if view.behind:
        return f"shard branch(es) {', '.join(view.behind)} are not where the record says"
    return None


def shards_behind(store: GitStore, source: str, layout: RepoLayout) -> tuple[str, ...]:
    """The shards of ``source``'s record whose branch moved since (cheap: one read and one ref listing)."""
    record = recorded_shards(store, source, layout)
    if record is None:
        return ()
    now = shard_tips(store, (r.shard for r in record.shards))
    return tuple(r.shard.name for r in record.shards if now[r.shard.name] != r.commit)


def fetch_missing_shards(store: GitStore, source: str, layout: RepoLayout, remote: str) -> tuple[str, ...]:
    """Fetch the branch of every shard ``source`` records whose commit this repository lacks (a group's
    from its own remote, the others from ``remote``); the shards fetched."""
    record = recorded_shards(store, source, layout)
    if record is None:
        return ()
    found = object_ids(store.runner, [f"{r.commit}^{{commit}}" for r in record.shards])
    fetched = []
    for recorded in record.shards:
        if found[f"{recorded.commit}^{{commit}}"] is None:
            shard = recorded.shard
            store.fetch_ref(shard.remote or remote, shard.branch, shard.ref)
            fetched.append(shard.name)
    return tuple(fetched)


def push_shards(
    store: GitStore,
    source: str,
    layout: RepoLayout,
    remote: str,
    written: tuple[ShardWrite, ...] = (),
    *,
    source_branch: str | None = None,
    source_ref: str | None = None,
) -> int:
    """Push every shard ``source`` records, and those ``written`` emptied, to its remote branch (a group's to
    its own remote, the others to ``remote``), one push per remote, before the source branch is pushed: the
    remote's source branch never names a shard commit the remote lacks. ``source_ref``: the source branch
    too (to ``source_branch`` of ``remote``), in the same atomic push as ``remote``'s shards, pushed after
    every other remote's. A shard whose branch is the source branch's is refused before anything is pushed.
    The number of shards pushed."""
    record = recorded_shards(store, source, layout)
    heads: dict[str, tuple[Shard, str]] = {}
    for recorded in record.shards if record is not None else ():
        heads[recorded.shard.name] = (recorded.shard, recorded.commit)
    for write in written:
        heads.setdefault(write.shard.name, (write.shard, write.new))
    by_remote: dict[str, dict[str, str]] = {}
    for shard, commit in heads.values():
        if (shard.remote or remote, shard.branch) == (remote, source_branch):
            raise GitError(
                "push",
                f"output shard {shard.name} would be pushed to {remote} {source_branch}, the branch the "
                "fleet itself is pushed to: give it a branch of its own in gitops-karmada.yaml; nothing was "
                "pushed",
            )
        by_remote.setdefault(shard.remote or remote, {})[shard.branch] = commit
    # the source branch's remote last: a group's repository holds its shard commits before the source
    # branch anywhere names them
    for target, refs in sorted(by_remote.items(), key=lambda item: (item[0] == remote, item[0])):
        if target == remote and source_ref is not None and source_branch is not None:
            store.push_refs(target, {**refs, source_branch: source_ref})
            source_ref = None
        else:
            store.push_refs(target, refs)
    if heads:
        logger.bind(logger="output", shards=len(heads)).info(
            "pushed {} output shard(s) to {}", len(heads), ", ".join(sorted(by_remote))
        )
    if source_ref is not None and source_branch is not None:
        store.push(remote, source_ref, source_branch)
    return len(heads)


def locate_output(store: GitStore, commit: str, layout: RepoLayout, path: str) -> tuple[str, str]:
    """Where the cluster-folder file ``path`` of ``commit`` is committed: (the commit, the path in it); the
    shard commit ``commit`` records and the path on its branch, in a sharded output mode."""
    record = recorded_shards(store, commit, layout)
    cluster = layout.cluster_of(path)
    if record is None or cluster is None:
        return commit, path
    inside = path[len(layout.cluster_folder(cluster)) + 1 :]
    for recorded in record.shards:
        if cluster in recorded.clusters:
            folder = recorded.shard.cluster_folder(cluster)
            return recorded.commit, f"{folder}/{inside}" if folder else inside
    return commit, path
