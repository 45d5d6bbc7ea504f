"""What a long-lived process (the watch daemon) keeps between runs over one repository.

Every entry is keyed by content: decoded input files by blob id (and what loading made of them, by the
decoded object itself), state index entries by their line. A stale entry cannot exist, so a warm run
renders exactly what a cold one does; it only skips re-reading the decode cache, re-validating unchanged
files and re-parsing unchanged index lines. Each run leaves the state holding what that run used, so memory
follows the fleet's size, not the number of runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitops_karmada.adapters.subtree_memo import ShallowMemo, SubtreeMemo
from gitops_karmada.core.inputs.loading import ClassifiedFiles
from gitops_karmada.core.run_memo import RunMemo

if TYPE_CHECKING:
    from gitops_karmada.adapters.git_tree import TreeEntry
    from gitops_karmada.core.incremental.state_index import IndexLines
    from gitops_karmada.core.inputs.loading import Decoded


@dataclass
class WarmState:
    decoded: dict[str, Decoded] = field(default_factory=dict)
    """Input files' documents by blob id."""
    index_lines: IndexLines = field(default_factory=dict)
    """State index entries by their line of the index file."""
    classified: ClassifiedFiles = field(default_factory=ClassifiedFiles)
    """What loading made of each input file (validated models, template bodies, diagnostics), reused while
    the file's decoded documents are the ones ``decoded`` holds for its blob id."""
    listed: SubtreeMemo[tuple[TreeEntry, ...]] = field(default_factory=SubtreeMemo)
    """The files outside the cluster folders, by subtree and tree id (only changed trees are listed again)."""
    counted: SubtreeMemo[int] = field(default_factory=SubtreeMemo)
    """The write guard's file counts of the cluster folders, by subtree and tree id."""
    shallow: ShallowMemo = field(default_factory=ShallowMemo)
    """The files of the cluster folders where a manifest's folder belongs, by subtree and tree id."""
    memo: RunMemo = field(default_factory=RunMemo)
    """What runs computed of those objects (checked templates, defaulted policies, the policy index,
    matches, fingerprints, reused outcomes, index lines), recalled while the objects are the same."""
