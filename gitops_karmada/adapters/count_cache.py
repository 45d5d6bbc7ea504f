"""The file count of each cluster folder, by the folder's tree id, kept between runs (never committed).

The write guard counts each cluster folder's files before a commit (``CommittedOutputs.counts``). Cold, that
is one ``ls-tree -r`` of every manifest: 2.6 million records at fleet XL, over a second for a run that
changes one template. The run that writes a commit knows the counts after it (the counts before, plus the
files it adds, minus those it removes: the guard's plan) and the tree id each cluster folder gets, so it
keeps them in a file under ``<git dir>/gitops-karmada/``; the next run lists only the folders whose tree id
is not there (edited since, or written by another tool). A tree id names its content, so an entry can never
be stale. The file is an optimisation only: when it cannot be read or written, the run counts from the
listing and goes on.
"""

from __future__ import annotations

import os
import pickle
from typing import TYPE_CHECKING

from gitops_karmada import __version__
from gitops_karmada.adapters.parse_cache import CACHE_FOLDER

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

COUNTS_FILE = f"counts-{__version__}.pickle"

FolderCounts = dict[tuple[str, str], int]
"""(folder path, tree id) → files below it (submodules not counted)."""


def counts_path(git_dir: Path) -> Path:
    return git_dir / CACHE_FOLDER / COUNTS_FILE


def load_counts(git_dir: Path) -> FolderCounts:
    """What the last writing run kept, or nothing (none yet, or unreadable)."""
    try:
        found = pickle.loads(counts_path(git_dir).read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError):
        return {}
    if not isinstance(found, dict) or not all(isinstance(v, int) for v in found.values()):
        return {}
    return found


def save_counts(git_dir: Path, counts: Mapping[tuple[str, str], int]) -> None:
    """Keep ``counts`` for the next run: written beside and renamed over, so a reader never sees half a file
    and two runs at once leave one whole file (either is right: both are keyed by content)."""
    path = counts_path(git_dir)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(pickle.dumps(dict(counts), protocol=pickle.HIGHEST_PROTOCOL))
        partial.replace(path)
    except OSError:
        partial.unlink(missing_ok=True)
