"""A binding is scheduled again only when something it reads changed (``core.scheduler.triggers``).

Karmada re-evaluates a Duplicated or non-workload binding whenever it is enqueued, and it is enqueued by a
change to what it reads. A full run (which trusts no index) must make the same choice as the incremental run
that reuses the binding, or a result that depended on the binding's previous clusters is re-judged without
them: a Duplicated workload scaled to 0 on a cluster whose NoSchedule taint it only passed because it was
already there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gitops_karmada.core.codecs.serialize import dump_yaml_documents
from gitops_karmada.reconcile import RunMode
from tests.builders import cluster_doc, deployment, pp_doc
from tests.inprocess import Tree, commit, run

if TYPE_CHECKING:
    from gitops_karmada.reconcile.result import RenderResult

NOW = "2026-01-02T03:04:05Z"
LATER = "2026-01-02T04:04:05Z"
WEB = ("apps", "Deployment", "shop", "web")
TAINT = {"key": "maintenance", "effect": "NoSchedule"}
FULL = RunMode(full=True)


def _yaml(*bodies: dict[str, Any]) -> bytes:
    return dump_yaml_documents(list(bodies)).encode()


def fleet(*, replicas: int, tainted: bool, clusters: tuple[str, ...] = ("m1",)) -> Tree:
    selectors = [{"apiVersion": "apps/v1", "kind": "Deployment"}]
    return {
        "inventory.yaml": _yaml(
            *(cluster_doc(c, taints=[TAINT] if tainted and c == "m1" else None) for c in clusters)
        ),
        "policies.yaml": _yaml(pp_doc("shop", "shop", selectors)),  # Duplicated over every cluster
        "apps/web.yaml": _yaml(deployment("web", "shop", replicas=replicas, requests={"cpu": "100m"})),
    }


def outcome_of(result: RenderResult) -> tuple[str | None, tuple[str, ...], list[str]]:
    (found,) = [o for o in result.outcomes if o.key.identity == WEB]
    assert found.binding is not None
    scheduled = found.binding.condition("Scheduled")
    return (
        scheduled.status if scheduled is not None else None,
        tuple(t.name for t in found.binding.spec.clusters),
        [str(d) for d in result.diagnostics if d.is_error],
    )


def test_a_full_run_with_nothing_changed_keeps_a_result_that_depended_on_the_previous_clusters() -> None:
    placed = fleet(replicas=2, tainted=False)
    placed = commit(placed, run(placed, NOW))
    # tainted and scaled to 0 in one commit: m1's taint is passed because the binding is already there, and a
    # workload of 0 replicas keeps no cluster (Karmada drops clusters assigned 0 replicas)
    edited = {**placed, **fleet(replicas=0, tainted=True)}
    first = run(edited, NOW, mode=FULL)
    assert outcome_of(first) == ("True", (), [])
    again = commit(edited, first)
    for mode in (FULL, RunMode()):  # nothing changed: no event enqueues the binding, in either kind of run
        rerun = run(again, LATER, mode=mode)
        assert outcome_of(rerun) == ("True", (), [])
        assert commit(again, rerun) == again  # a run is idempotent on its own output
        (web,) = [o for o in rerun.outcomes if o.key.identity == WEB]
        assert web.scheduling_reason is None  # kept, not re-evaluated


def test_a_duplicated_binding_is_re_evaluated_when_the_inventory_changes() -> None:
    tree = fleet(replicas=2, tainted=False)
    tree = commit(tree, run(tree, NOW))
    grown = {**tree, **fleet(replicas=2, tainted=False, clusters=("m1", "m2"))}
    result = run(grown, NOW, mode=FULL)
    (web,) = [o for o in result.outcomes if o.key.identity == WEB]
    assert web.scheduling_reason == "duplicated and non-workload bindings are re-evaluated when enqueued"
    assert outcome_of(result) == ("True", ("m1", "m2"), [])
