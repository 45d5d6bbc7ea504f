"""A plain directory as input (``--worktree``) or output (``render --out``), for when Git is not wanted."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from gitops_karmada.model.errors import AdapterError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


def read_directory(
    root: Path, include: Callable[[str], bool], skipped: list[str] | None = None, *, under: str = ""
) -> dict[str, bytes]:
    """Files under ``root`` (only its folder ``under``, when given) whose POSIX path relative to ``root``
    passes ``include`` (dot-folders skipped).

    Symbolic links are never followed (they may point outside the repository); their paths are added to
    ``skipped`` when it is given.
    """
    if not root.is_dir():
        raise AdapterError(f"{root}: not a directory")
    files: dict[str, bytes] = {}
    start = root / under if under else root
    if not start.is_dir():
        return files
    for folder, dirnames, filenames in os.walk(start):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        base = Path(folder)
        for filename in sorted(filenames):
            path = base / filename
            rel = path.relative_to(root).as_posix()
            if not include(rel):
                continue
            if path.is_symlink():
                if skipped is not None:
                    skipped.append(rel)
            elif path.is_file():
                files[rel] = path.read_bytes()
    return files


def write_tree(root: Path, files: Mapping[str, bytes]) -> None:
    """Write ``files`` under ``root``; each file is written to a temporary name and renamed into place."""
    resolved_root = root.resolve()
    for rel, content in sorted(files.items()):
        target = (resolved_root / rel).resolve()
        if not target.is_relative_to(resolved_root):
            raise AdapterError(f"refusing to write {rel!r}: it would land outside {root}")
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
            Path(tmp).replace(target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
