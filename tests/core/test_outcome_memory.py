"""Issues 12 and 36: what a run keeps of each rendered cluster once its file is made. The overridden object
lives on in the file; only a run that explains keeps the override results in the outcome too, so a fleet of
millions of manifests is not held twice."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

from gitops_karmada.adapters.repository import read_worktree
from gitops_karmada.core.codecs.serialize import load_yaml_documents
from gitops_karmada.reconcile import reconcile

REPO_LAYOUT = Path(__file__).resolve().parents[2] / "repo-layout"


def test_overridden_objects_are_kept_only_by_a_run_that_explains(tmp_path: Path) -> None:
    root = tmp_path / "fleet"
    shutil.copytree(REPO_LAYOUT, root)
    state = read_worktree(root, datetime(2026, 1, 1, tzinfo=UTC))

    plain = reconcile(state.request)
    explained = reconcile(state.request.with_mode(explain=True))

    assert plain.files == explained.files, "what is written does not depend on it"
    overridden = [
        (o, cluster, result)
        for o in explained.outcomes
        for cluster, result in o.overrides.items()
        if result.applied_overrides or result.applied_cluster_overrides
    ]
    assert overridden, "the example fleet has override policies that apply"
    for outcome, cluster, result in overridden:
        written = load_yaml_documents(explained.files[outcome.paths[cluster]].decode())[0].body
        body = {k: v for k, v in result.object.items() if k != "metadata"}
        assert body and body == {k: v for k, v in written.items() if k != "metadata"}, "the one written"
    kept = [result for o in plain.outcomes for result in o.overrides.values()]
    assert not kept, "a run that does not explain keeps no override result: at fleet XL, 2.6 million"
