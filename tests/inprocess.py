"""A fleet and a run in process, for tests: a tree of files (path → bytes) in, the run's result and the tree
after committing it out. One builder for every test that runs the pipeline without a repository (the
property tests, the change-scope tests, the Action's diff sides), so they all run it as the adapters do.

``request`` splits the tree as ``adapters.repository.read_worktree`` splits a work tree: the configuration
(``gitops-karmada.yaml``, unless a ``config`` is given), the input files its filter selects, the state
folder's files, the cluster folders' files by blob id, the cluster snapshots; a file of the tree is read
back on demand (``read_output``). ``commit`` applies ``result.changes`` to the tree, as a commit would.
The options are the run's: its ``mode``, the ``observed`` status, the cluster-folder paths edited since
the last tool commit (``output_edits``), the input files ``changed`` since the last run, and the ``warm``
state a long-lived process keeps between runs (decoded files by blob id, index lines, the run memo).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitops_karmada.adapters.parse_cache import decode_inputs
from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.inputs.loading import input_path_filter
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.core.ownership import is_state_file
from gitops_karmada.model.wellknown import CONFIG_FILE
from gitops_karmada.reconcile import (
    Ports,
    ReconcileRequest,
    RenderResult,
    RepoSnapshot,
    RunMode,
    WarmCaches,
    blob_sha,
    reconcile,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from gitops_karmada.adapters.warm_state import WarmState
    from gitops_karmada.core.incremental.change_scope import ChangedInputs
    from gitops_karmada.core.observed.fold import ObservedStatus
    from gitops_karmada.model.config import ToolConfig
    from gitops_karmada.model.diagnostics import Diagnostic
    from gitops_karmada.model.keys import ObjectKey

Tree = dict[str, bytes]

ORDINARY = RunMode()


def request(
    tree: Mapping[str, bytes],
    now: str,
    *,
    config: ToolConfig | None = None,
    mode: RunMode = ORDINARY,
    observed: ObservedStatus | None = None,
    output_edits: frozenset[str] | None = None,
    changed: ChangedInputs | None = None,
    warm: WarmState | None = None,
    hash_blob: Callable[[bytes], str] = blob_sha,
) -> ReconcileRequest:
    """The request of a run over ``tree`` at ``now`` (see the module's docstring for the options)."""
    config_diagnostics: tuple[Diagnostic, ...] = ()
    if config is None:
        config, config_diagnostics = load_config(tree.get(CONFIG_FILE))
    layout = RepoLayout.of(config)
    is_input = input_path_filter(config)
    inputs = {path: content for path, content in tree.items() if is_input(path)}
    decoded = None
    if warm is not None:  # decoded by blob id, as the adapters decode through the warm state's memory
        by_blob = {hash_blob(content): content for content in inputs.values()}
        decoded = decode_inputs(
            None,
            {path: hash_blob(content) for path, content in inputs.items()},
            lambda oids: {oid: by_blob[oid] for oid in oids},
            warm.decoded,
        )
    return ReconcileRequest(
        snapshot=RepoSnapshot(
            input_files=inputs,
            decoded=decoded,
            config=config,
            config_diagnostics=config_diagnostics,
            state_files={p: c for p, c in tree.items() if layout.is_state(p) and is_state_file(p)},
            snapshot_files={p: c for p, c in tree.items() if layout.is_snapshot(p)},
            output_blobs={p: hash_blob(c) for p, c in tree.items() if layout.is_output(p)},
            now=now,
            output_edits=output_edits,
            observed=observed,
            changed=changed,
        ),
        mode=mode,
        ports=Ports(read_output=tree.get, hash_blob=hash_blob),
        caches=WarmCaches(index_lines=warm.index_lines, classified=warm.classified, memo=warm.memo)
        if warm is not None
        else WarmCaches(),
    )


def run(
    tree: Mapping[str, bytes],
    now: str,
    *,
    config: ToolConfig | None = None,
    mode: RunMode = ORDINARY,
    observed: ObservedStatus | None = None,
    output_edits: frozenset[str] | None = None,
    changed: ChangedInputs | None = None,
    warm: WarmState | None = None,
    hash_blob: Callable[[bytes], str] = blob_sha,
) -> RenderResult:
    """One run over ``tree`` at ``now``: ``reconcile(request(...))``."""
    return reconcile(
        request(
            tree,
            now,
            config=config,
            mode=mode,
            observed=observed,
            output_edits=output_edits,
            changed=changed,
            warm=warm,
            hash_blob=hash_blob,
        )
    )


def commit(
    tree: Mapping[str, bytes], result: RenderResult, hash_blob: Callable[[bytes], str] = blob_sha
) -> Tree:
    """``tree`` after committing ``result``: its changes written, its deletions gone, every other file kept."""
    after = dict(tree)
    for path, content in result.changes({p: hash_blob(c) for p, c in tree.items()}, hash_blob).items():
        if content is None:
            after.pop(path, None)
        else:
            after[path] = content
    return after


def explaining(focus: Callable[[ObjectKey], bool]) -> RunMode:
    """The mode of an ``explain`` run of the templates ``focus`` names (``usecases.explain``)."""
    return RunMode(explain=True, focus=focus, materialize=False)
