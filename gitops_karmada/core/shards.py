"""Sharded output (``output.mode``): which shard holds each cluster's folder, and the record of shard commits.

The run itself never sees shards: it reads and writes one tree of cluster folders (``clustersDir/<cluster>/``)
whatever the mode. The adapters assemble that tree from the shards before a run (a *view*) and split the
result into shards after it, so every verb works the same in every mode. This module is the pure part:

* ``plan_shards``: the shard of each cluster, from the configuration and the clusters' labels;
* ``ShardRecord``: which commit of which shard holds each cluster's files, kept in the state folder
  (``shards.yaml``) by the source branch's reconcile commit; the view of a commit is built from it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import yaml

from gitops_karmada.core.layout import SHARDS_FILE
from gitops_karmada.core.selectors import labels_match
from gitops_karmada.model.config import OutputLayout, OutputMode

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from gitops_karmada.model.clusters import Cluster

GROUP_REF_PREFIX = "refs/gitops-karmada/groups/"
"""Where the local copy of each group's branch is kept (the group's repository is a remote)."""


@dataclass(frozen=True, slots=True)
class Shard:
    """A branch holding cluster folders: one cluster's (``branch-per-cluster``) or a group's."""

    name: str
    ref: str
    """The local ref the tool commits to."""
    folder: str
    """Where the files go on the branch (``""``: its root)."""
    per_cluster: bool
    """The cluster's files at ``folder`` itself; otherwise each cluster in ``<folder>/<cluster>/``."""
    remote: str | None = None
    """A group's repository (a remote name or URL); None: the source repository's own remote."""
    remote_branch: str | None = None
    """The branch on ``remote`` (a group's); None: the branch of ``ref``."""

    def cluster_folder(self, cluster: str) -> str:
        """Where ``cluster``'s files are on the shard's branch (``""``: the root)."""
        if self.per_cluster:
            return self.folder
        return f"{self.folder}/{cluster}" if self.folder else cluster

    @property
    def branch(self) -> str:
        """The branch name the shard is pushed to."""
        if self.remote_branch is not None:
            return self.remote_branch
        return self.ref.removeprefix("refs/heads/")


@dataclass(frozen=True, slots=True)
class ShardPlan:
    """The shard of every cluster this run writes (empty in ``tree`` mode)."""

    mode: OutputMode
    of_cluster: Mapping[str, Shard]
    problems: tuple[str, ...] = ()
    """Clusters no group takes, or two groups take: the configuration must say (validate refuses)."""

    @property
    def sharded(self) -> bool:
        return self.mode is not OutputMode.TREE

    def shards(self) -> dict[str, Shard]:
        """Each shard once, by name, in name order."""
        return {s.name: s for s in sorted(self.of_cluster.values(), key=lambda s: s.name)}

    def clusters_of(self, shard: str) -> tuple[str, ...]:
        return tuple(sorted(c for c, s in self.of_cluster.items() if s.name == shard))


def cluster_shard(output: OutputLayout, cluster: str) -> Shard:
    """``branch-per-cluster``: the shard of ``cluster``."""
    branch = output.branch.replace("{cluster}", cluster)
    return Shard(name=cluster, ref=f"refs/heads/{branch}", folder=output.folder, per_cluster=True)


def shard_plan(output: OutputLayout, clusters: Iterable[Cluster]) -> ShardPlan:
    """``plan_shards`` of the inventory's ``clusters``."""
    return plan_shards(output, {c.metadata.name: dict(c.metadata.labels or {}) for c in clusters})


def plan_shards(output: OutputLayout, clusters: Mapping[str, Mapping[str, str]]) -> ShardPlan:
    """The shard of each of ``clusters`` (name → labels) under ``output``'s mode."""
    if output.mode is OutputMode.TREE:
        return ShardPlan(output.mode, {})
    if output.mode is OutputMode.BRANCH_PER_CLUSTER:
        return ShardPlan(output.mode, {c: cluster_shard(output, c) for c in sorted(clusters)})
    taken: dict[str, Shard] = {}
    problems: list[str] = []
    for cluster, labels in sorted(clusters.items()):
        groups = [
            g
            for g in output.groups
            if cluster in g.clusters
            or (g.cluster_selector is not None and labels_match(g.cluster_selector, labels))
        ]
        if len(groups) != 1:
            named = " and ".join(g.name for g in groups) or "no group"
            problems.append(
                f"cluster {cluster} belongs to {named}; each cluster must belong to exactly one group"
            )
            continue
        group = groups[0]
        taken[cluster] = Shard(
            name=group.name,
            ref=f"{GROUP_REF_PREFIX}{group.name}",
            folder=group.folder,
            per_cluster=False,
            remote=group.remote,
            remote_branch=group.branch,
        )
    return ShardPlan(output.mode, taken, tuple(problems))


@dataclass(frozen=True, slots=True)
class RecordedShard:
    """One shard as a reconcile commit recorded it."""

    shard: Shard
    commit: str
    clusters: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ShardRecord:
    """Which commit of which shard holds each cluster's files (``shards.yaml`` in the state folder)."""

    mode: OutputMode
    shards: tuple[RecordedShard, ...] = ()

    def folders(self) -> dict[str, tuple[str, str]]:
        """Each cluster's folder as (shard commit, folder on that commit)."""
        return {c: (r.commit, r.shard.cluster_folder(c)) for r in self.shards for c in r.clusters}

    def commit_of(self, shard: str) -> str | None:
        return next((r.commit for r in self.shards if r.shard.name == shard), None)

    def dump(self) -> bytes:
        """The record as the state file holds it (deterministic: shards and clusters in name order)."""
        body: dict[str, object] = {
            "mode": self.mode.value,
            "shards": [
                {
                    "name": r.shard.name,
                    "ref": r.shard.ref,
                    **({"remote": r.shard.remote} if r.shard.remote is not None else {}),
                    **({"remoteBranch": r.shard.remote_branch} if r.shard.remote_branch is not None else {}),
                    "folder": r.shard.folder,
                    "perCluster": r.shard.per_cluster,
                    "commit": r.commit,
                    "clusters": list(r.clusters),
                }
                for r in sorted(self.shards, key=lambda r: r.shard.name)
            ],
        }
        header = (
            "# Written by gitops-karmada: the commit of each output shard (docs/scaling.md). Do not edit.\n"
        )
        return (
            header + yaml.dump(body, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False)
        ).encode()


class ShardRecordError(ValueError):
    """The shard record does not parse (a hand edit, or a file from another tool)."""


@functools.lru_cache(maxsize=8)
def load_shard_record(content: bytes) -> ShardRecord:
    """The record ``ShardRecord.dump`` wrote (remembered by content: a run reads its record several times, and
    the daemon the same record run after run)."""
    try:
        # libyaml's safe loader (the same values as ``safe_load``): at 200 shards the pure-Python one took a
        # fifth of a second, and a run reads the record three times
        body = yaml.load(content, Loader=yaml.CSafeLoader)
        mode = OutputMode(body["mode"])
        shards = tuple(
            RecordedShard(
                Shard(
                    name=str(s["name"]),
                    ref=str(s["ref"]),
                    folder=str(s.get("folder", "")),
                    per_cluster=bool(s["perCluster"]),
                    remote=str(s["remote"]) if s.get("remote") is not None else None,
                    remote_branch=str(s["remoteBranch"]) if s.get("remoteBranch") is not None else None,
                ),
                commit=_commit_id(s["commit"]),
                clusters=tuple(str(c) for c in s["clusters"]),
            )
            for s in body["shards"]
        )
    except (yaml.YAMLError, KeyError, TypeError, ValueError) as err:
        raise ShardRecordError(
            f"{SHARDS_FILE} does not parse ({err}); it is written by the tool only"
        ) from err
    return ShardRecord(mode, shards)


def _commit_id(value: object) -> str:
    text = str(value)
    if len(text) not in (40, 64) or any(c not in "0123456789abcdef" for c in text):
        raise ValueError(f"{text!r} is not a commit id")
    return text


def next_record(
    plan: ShardPlan, commits: Mapping[str, str], clusters_of: Mapping[str, Iterable[str]]
) -> ShardRecord:
    """The record after a write: ``commits`` (shard name → its commit now) of the shards that hold files,
    ``clusters_of`` (shard name → the clusters whose folders it holds)."""
    shards = plan.shards()
    return ShardRecord(
        plan.mode,
        tuple(
            RecordedShard(shards[name], commits[name], tuple(sorted(clusters_of[name])))
            for name in sorted(commits)
            if tuple(clusters_of.get(name, ()))
        ),
    )
