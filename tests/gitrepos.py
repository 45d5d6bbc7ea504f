"""Real Git repositories for tests, built with real git: make, commit, inspect (no tests here)."""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    import pytest

PINNED_DATE = "2024-05-06T07:08:09+02:00"


def git(repo: Path, *args: str, stdin: bytes | None = None) -> str:
    """Run git in ``repo`` and return its stdout without the final newline (fails the test on error)."""
    done = subprocess.run(["git", "-C", str(repo), *args], input=stdin, capture_output=True, check=False)
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr.decode(errors='replace')}"
    return done.stdout.decode("utf-8", "surrogateescape").removesuffix("\n")


def pin_dates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixed author and committer dates, so that commit ids are reproducible."""
    monkeypatch.setenv("GIT_AUTHOR_DATE", PINNED_DATE)
    monkeypatch.setenv("GIT_COMMITTER_DATE", PINNED_DATE)


def write_files(root: Path, files: Mapping[str, bytes | str]) -> None:
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)


def make_repo(
    path: Path,
    files: Mapping[str, bytes | str],
    *,
    executables: tuple[str, ...] = (),
    symlinks: Mapping[str, str] | None = None,
    message: str = "initial",
) -> Path:
    """A work tree on branch ``main`` with one commit holding ``files`` (plus executables and symlinks)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    write_files(path, files)
    for name in executables:
        (path / name).chmod(0o755)
    for name, target in (symlinks or {}).items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).symlink_to(target)
    git(path, "add", "-A")
    git(path, "commit", "-q", "--allow-empty", "-m", message)
    return path


def commit_all(repo: Path, files: Mapping[str, bytes | str], message: str = "more") -> str:
    """Write ``files`` into the work tree, commit everything, return the new HEAD."""
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def status(repo: Path) -> list[str]:
    """``git status --porcelain`` lines (untracked files included)."""
    return git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()


def tree_files(repo: Path, rev: str) -> dict[str, str]:
    """path → blob id of every entry of ``rev``, straight from ``git ls-tree``."""
    listing = git(repo, "ls-tree", "-r", "-z", rev)
    entries = {}
    for record in listing.split("\0"):
        if record:
            meta, _, path = record.partition("\t")
            entries[path] = meta.split(" ")[2]
    return entries


def show(repo: Path, rev: str, path: str) -> bytes:
    done = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "blob", f"{rev}:{path}"], capture_output=True, check=True
    )
    return done.stdout


def refs_under(repo: Path, prefix: str) -> list[str]:
    return git(repo, "for-each-ref", "--format=%(refname)", prefix).splitlines()
