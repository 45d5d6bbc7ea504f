"""The lint's "this policy propagates nothing" in a run: a policy that claims a template needs no search of
the templates, one that selects a template it does not claim (a higher priority claims it) is searched and
not warned of, one that selects nothing is warned of; the same in a run the index lets reuse everything."""

from __future__ import annotations

from typing import TYPE_CHECKING

import yaml

from gitops_karmada.core.incremental.change_scope import ChangedInputs
from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.inputs.loading import load
from tests.builders import cluster_doc, deployment, pp_doc
from tests.inprocess import commit, run

if TYPE_CHECKING:
    from collections.abc import Iterable

    from gitops_karmada.model.diagnostics import Diagnostic

NOW = "2026-01-01T00:00:00Z"
WEB = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}]
PLACEMENT = {"clusterAffinity": {"clusterNames": ["member1"]}}


def fleet() -> dict[str, bytes]:
    docs = {
        "clusters/inventory.yaml": [cluster_doc("member1")],
        "apps/web.yaml": [deployment("web", "shop")],
        "policies/first.yaml": [pp_doc("first", "shop", WEB, priority=2, placement=PLACEMENT)],
        "policies/second.yaml": [pp_doc("second", "shop", WEB, priority=1, placement=PLACEMENT)],
        "policies/idle.yaml": [
            pp_doc(
                "idle",
                "shop",
                [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "gone"}],
                placement=PLACEMENT,
            )
        ],
    }
    return {path: yaml.safe_dump_all(body).encode() for path, body in docs.items()}


def nothing_warnings(diagnostics: Iterable[Diagnostic]) -> list[str]:
    return sorted(str(d) for d in diagnostics if "propagates nothing" in str(d))


def test_only_the_policy_that_selects_nothing_is_warned_of_in_a_full_and_a_change_scoped_run() -> None:
    tree = fleet()
    first = run(tree, NOW)
    warned = nothing_warnings(first.diagnostics)
    assert len(warned) == 1 and "idle.yaml" in warned[0], warned
    after = commit(tree, first)
    after["apps/web.yaml"] = yaml.safe_dump_all([deployment("web", "shop", replicas=3)]).encode()
    config, _ = load_config(None)
    before = load({"apps/web.yaml": tree["apps/web.yaml"]}, config).inputs
    again = run(after, NOW, changed=ChangedInputs(frozenset({"apps/web.yaml"}), before))
    assert again.incremental and [o.reused for o in again.outcomes] == [False]
    assert nothing_warnings(again.diagnostics) == warned
