"""Trees and commits made from objects already in the repository (``mktree``, ``commit-tree``), no files sent.

Sharded output moves whole folders between trees: a cluster's folder on its own branch is the very tree
object of ``clusters/<cluster>`` in the run's result, so writing a shard costs a tree or two and a commit,
however many files it holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.adapters.git_process import git_error
from gitops_karmada.adapters.git_tree import encode_path
from gitops_karmada.model.errors import GitError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitops_karmada.adapters.git_process import GitRunner

TREE_MODE = "040000"
BLOB_MODE = "100644"


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a tree: mode, object type, object id."""

    mode: str
    kind: str
    oid: str


def empty_tree(runner: GitRunner) -> str:
    return make_tree(runner, {})


def make_tree(runner: GitRunner, entries: Mapping[str, Entry]) -> str:
    """A tree of ``entries`` (name → entry), written to the object database."""
    body = b"".join(
        f"{e.mode} {e.kind} {e.oid}\t".encode() + encode_path(name) + b"\0"
        for name, e in sorted(entries.items())
    )
    return _output(runner, ["mktree", "-z"], "writing a tree", body)


def list_tree(runner: GitRunner, tree: str) -> dict[str, Entry]:
    """The entries of ``tree`` (not recursive)."""
    out = runner.run(["ls-tree", "-z", tree], operation="ls-tree", what=f"listing {tree}").stdout
    found: dict[str, Entry] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, oid = meta.decode("ascii").split(" ")
        found[name.decode("utf-8", "surrogateescape")] = Entry(mode, kind, oid)
    return found


def edit_tree(runner: GitRunner, tree: str | None, edits: Mapping[str, Entry | None]) -> str:
    """``tree`` (None: an empty one) with each path of ``edits`` set to its entry, or removed (None); the
    folders on the way are made or dropped as needed (an empty folder is dropped)."""
    here = list_tree(runner, tree) if tree is not None else {}
    below: dict[str, dict[str, Entry | None]] = {}
    for path, entry in edits.items():
        head, _, rest = path.partition("/")
        if rest:
            below.setdefault(head, {})[rest] = entry
        elif entry is None:
            here.pop(head, None)
        else:
            here[head] = entry
    for name, inner in below.items():
        current = here.get(name)
        subtree = edit_tree(
            runner, current.oid if current is not None and current.kind == "tree" else None, inner
        )
        if list_tree(runner, subtree):
            here[name] = Entry(TREE_MODE, "tree", subtree)
        else:
            here.pop(name, None)
    return make_tree(runner, here)


def object_ids(runner: GitRunner, names: Sequence[str]) -> dict[str, str | None]:
    """The object each of ``names`` (``rev:path``, ``rev^{tree}``) names, None where there is none."""
    if not names:
        return {}
    out = runner.run(
        ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
        operation="cat-file",
        what="looking up objects",
        stdin=b"".join(n.encode("utf-8", "surrogateescape") + b"\n" for n in names),
    ).stdout.decode("utf-8", "surrogateescape")
    found: dict[str, str | None] = {}
    for name, line in zip(names, out.splitlines(), strict=True):
        parts = line.split(" ")
        found[name] = parts[0] if len(parts) == 2 and parts[1] in ("tree", "blob", "commit") else None
    return found


def tree_of(runner: GitRunner, rev: str) -> str:
    return runner.text(["rev-parse", f"{rev}^{{tree}}"], operation="rev-parse", what=f"the tree of {rev}")


def write_blob(runner: GitRunner, content: bytes) -> str:
    return _output(runner, ["hash-object", "-w", "--stdin"], "writing a blob", content)


def commit_tree(
    runner: GitRunner, tree: str, parents: Sequence[str], message: str, *, author: str, committer: str
) -> str:
    """A commit of ``tree`` (``author``/``committer``: ``Name <email> <epoch> <tz>``, so the same inputs make
    the same commit id on any machine)."""
    env = {**_identity_env("AUTHOR", author), **_identity_env("COMMITTER", committer)}
    args = ["commit-tree", tree, *(a for p in parents for a in ("-p", p))]
    return _output(runner, args, f"committing {tree}", message.encode(), env)


def _output(
    runner: GitRunner, args: list[str], what: str, stdin: bytes, env: Mapping[str, str] | None = None
) -> str:
    done = runner.run(args, operation=args[0], what=what, stdin=stdin, env=env)
    return done.stdout.decode("ascii").strip()


def _identity_env(role: str, identity: str) -> dict[str, str]:
    rest, epoch, zone = identity.rsplit(" ", 2)
    name, _, email = rest.partition(" <")
    return {
        f"GIT_{role}_NAME": name,
        f"GIT_{role}_EMAIL": email.rstrip(">"),
        f"GIT_{role}_DATE": f"{epoch} {zone}",
    }


@dataclass(frozen=True, slots=True)
class TreeCommit:
    """A commit to make of an existing tree."""

    tree: str
    parent: str | None
    message: str


def commit_trees(
    runner: GitRunner, commits: Mapping[str, TreeCommit], *, author: str, committer: str, temp_ref: str
) -> dict[str, str]:
    """Make every commit of ``commits`` (name → commit) in one ``git fast-import``, each read back by its
    mark; they pass through the one temporary ref ``temp_ref`` (the caller moves the real refs, then drops
    it: one ref, not one per shard, to create and delete). Name → the commit id."""
    if not commits:
        return {}
    names = list(commits)
    stream = bytearray(b"feature done\n")
    for mark, name in enumerate(names, start=1):
        item = commits[name]
        message = item.message.encode()
        # reset: a commit without a parent starts afresh, not on the commit before it on the ref
        stream += b"reset %s\ncommit %s\nmark :%d\nauthor %s\ncommitter %s\ndata %d\n%s\n" % (
            temp_ref.encode(),
            temp_ref.encode(),
            mark,
            author.encode(),
            committer.encode(),
            len(message),
            message,
        )
        if item.parent is not None:
            stream += b"from %s\n" % item.parent.encode()
        stream += b'M 040000 %s ""\n\n' % item.tree.encode()
    stream += b"".join(b"get-mark :%d\n" % mark for mark in range(1, len(names) + 1))
    stream += b"done\n"
    done = runner.run(
        ["fast-import", "--quiet", "--force"],
        operation="fast-import",
        what="committing shards",
        stdin=bytes(stream),
    )
    made = done.stdout.decode("ascii", "replace").split()
    if len(made) != len(names) or not all(re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", c) for c in made):
        raise GitError("fast-import", f"unexpected reply instead of the shard commits: {done.stdout[:200]!r}")
    return dict(zip(names, made, strict=True))


def update_refs(runner: GitRunner, updates: Mapping[str, tuple[str | None, str]], *, reflog: str) -> None:
    """Move every ref of ``updates`` (ref → (old or None for absent, new)) in one transaction, each a
    compare-and-swap: all move, or none (a temporary GitError when one moved meanwhile)."""
    if not updates:
        return
    zero = "0" * 40
    body = (
        "start\n"
        + "".join(f"update {ref} {new} {old or zero}\n" for ref, (old, new) in sorted(updates.items()))
        + "prepare\ncommit\n"
    )
    done = runner.run(
        ["update-ref", "--stdin", "-m", reflog],
        operation="update-ref",
        what="moving the shard branches",
        stdin=body.encode(),
        ok_codes=range(256),
    )
    if done.returncode != 0:
        raise git_error(
            "update-ref",
            "a shard branch moved since it was read (another run, or a commit on it); none moved, rerun",
            done.stderr,
            temporary=True,
        )


def delete_refs(runner: GitRunner, refs: Sequence[str]) -> None:
    if refs:
        runner.run(
            ["update-ref", "--stdin"],
            operation="update-ref",
            what="dropping temporary refs",
            stdin="".join(f"delete {r}\n" for r in refs).encode(),
            ok_codes=range(256),
        )
