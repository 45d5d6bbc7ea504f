"""What Git hosts handle well, checked on a run's changes: a folder past 3,000 entries or a file past 1 MB.

GitHub recommends at most 3,000 entries per folder (its web views and API truncate larger ones) and shows
no file over 1 MB; the limits are ``output.hostLimits`` of gitops-karmada.yaml
(``model.config.HostLimitsConfig``).
A folder is counted as the commit would have it: the entries its parent commit holds, plus the files and
folders the run adds, minus those it removes. Only the folders the run touches are counted (the others did
not change; ``usecases.host_limits`` narrows them to the folders a run adds to or deletes from, when it
knows the existing paths). Pure: the adapter layer lists those folders and sizes the files.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gitops_karmada.core.layout import BUCKET_COUNTS
from gitops_karmada.model.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

    from gitops_karmada.core.layout import RepoLayout
    from gitops_karmada.model.config import HostLimitsConfig

HOST_LIMIT_CODE = "host-limit"
"""The ``code`` of a host-limit finding in a JSON report's diagnostics."""


class LimitKind(enum.StrEnum):
    FOLDER = "folder"
    FILE = "file"


@dataclass(frozen=True, slots=True, order=True)
class HostLimitFinding:
    """A folder with more entries, or a file with more bytes, than a Git host handles well."""

    path: str
    kind: LimitKind
    size: int
    """Entries (a folder) or bytes (a file)."""
    limit: int
    remedy: str

    @property
    def message(self) -> str:
        if self.kind is LimitKind.FOLDER:
            what = (
                f"{self.path}/ would hold {self.size:,} entries, more than the {self.limit:,} a Git host "
                "handles well"
            )
        else:
            what = f"{self.path} is {self.size:,} bytes, more than the {self.limit:,} a Git host shows"
        return f"{what}: {self.remedy}"

    def to_diagnostic(self) -> Diagnostic:
        return Diagnostic(Severity.WARNING, self.message, subject=self.path, code=HOST_LIMIT_CODE)


def touched_folders(paths: Iterable[str], roots: Collection[str]) -> frozenset[str]:
    """Every folder holding one of ``paths``, up to the one of ``roots`` (included) it lies in."""
    found: set[str] = set()
    # each distinct folder once: a first reconcile at fleet XL writes 2.6 million files into 4,000 folders
    for folder in {path.rpartition("/")[0] for path in paths}:
        root = next((r for r in roots if folder == r or folder.startswith(r + "/")), None)
        if root is None:
            continue
        while folder not in found:
            found.add(folder)
            if folder == root or "/" not in folder:
                break
            folder = folder.rpartition("/")[0]
    return frozenset(found)


def folder_entries(
    before: Mapping[str, Collection[str]], changes: Iterable[tuple[str, bool]], folders: Collection[str]
) -> dict[str, int]:
    """How many entries each of ``folders`` holds after ``changes`` ((path, written), or (path, False):
    deleted), from ``before``: the names of the entries (files and folders) directly inside each, at the
    parent commit. A sub-folder every file of which is deleted is gone; ``folders`` must hold every folder of
    the changes up to a root (``touched_folders``)."""
    named: defaultdict[str, set[str]] = defaultdict(set)
    """Names written into a folder that held entries, and the new sub-folders of any folder."""
    added: defaultdict[str, int] = defaultdict(int)
    """Files written into a folder that held none: only counted (their paths, so their names, are unique)."""
    deleted: defaultdict[str, set[str]] = defaultdict(set)
    for path, kept in changes:
        folder, _, name = path.rpartition("/")
        if not kept:
            deleted[folder].add(name)
        elif before.get(folder):
            named[folder].add(name)
        else:
            added[folder] += 1
    for folder in {*named, *added}:
        while "/" in folder:  # a new file may make new folders on its way up
            parent, _, child = folder.rpartition("/")
            if child in named[parent]:
                break  # and the folders above it, for an earlier file
            named[parent].add(child)
            folder = parent
    counts: dict[str, int] = {}
    for folder in sorted(folders, key=lambda f: f.count("/"), reverse=True):  # the deepest first
        names = (set(before.get(folder, ())) | named.get(folder, set())) - deleted.get(folder, set())
        prefix = folder + "/"
        names -= {
            name
            for name in names
            if counts.get(prefix + name) == 0  # a sub-folder the run emptied
        }
        counts[folder] = len(names) + added.get(folder, 0)
    return counts


def host_limit_findings(
    folder_counts: Mapping[str, int],
    file_sizes: Mapping[str, int],
    limits: HostLimitsConfig,
    layout: RepoLayout,
) -> tuple[HostLimitFinding, ...]:
    """Each folder and file past ``limits`` (0: no limit), once, in path order, with its remedy."""
    found: list[HostLimitFinding] = []
    if limits.max_folder_entries:
        for folder, count in folder_counts.items():
            if count > limits.max_folder_entries:
                found.append(
                    HostLimitFinding(
                        folder,
                        LimitKind.FOLDER,
                        count,
                        limits.max_folder_entries,
                        _folder_remedy(folder, layout),
                    )
                )
    if limits.max_file_bytes:
        for path, size in file_sizes.items():
            if size > limits.max_file_bytes:
                found.append(
                    HostLimitFinding(
                        path,
                        LimitKind.FILE,
                        size,
                        limits.max_file_bytes,
                        "split the object (a ConfigMap's or a Secret's data over several) or keep it out of "
                        "Git",
                    )
                )
    return tuple(sorted(found))


def _folder_remedy(folder: str, layout: RepoLayout) -> str:
    if not layout.holds_objects(folder):
        return "no layout option spreads this folder (output.buckets spreads the files of one kind folder)"
    bigger = next((n for n in BUCKET_COUNTS if n > layout.buckets), None)
    if bigger is None:
        return (
            f"it is spread over {layout.buckets} buckets already: spread the templates over more namespaces"
        )
    return (
        f"set output.buckets: {bigger} in gitops-karmada.yaml to spread each kind folder's files over "
        f"{bigger} bucket folders (the next reconcile moves every file, in one commit)"
    )
