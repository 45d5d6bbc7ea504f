"""What member clusters reported, folded into the template's status and summed up in words: rule tables."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.interpreter import ResourceInterpreter
from gitops_karmada.core.observed.fold import ObservedStatus, template_status
from gitops_karmada.core.views.status_summary import cluster_health, health_word, ready_text
from gitops_karmada.model.bindings import AggregatedStatusItem, ResourceBinding
from gitops_karmada.model.diagnostics import Severity, SourceRef
from gitops_karmada.model.keys import ObjectKey
from gitops_karmada.model.manifest import Manifest
from gitops_karmada.model.status import ClusterStatusSnapshot
from tests.core.interpreter.builders import WIDGET_API_VERSION, WIDGET_KIND, customization, widget


@pytest.mark.parametrize(
    ("health", "word"),
    [
        ({}, "-"),
        ({"m1": "Healthy", "m2": "Healthy"}, "Healthy"),
        ({"m1": "Healthy", "m2": "Unhealthy"}, "Unhealthy(m2)"),
        (
            {"m2": "Unknown", "m1": "NotApplied", "m3": "Unhealthy"},
            "Unhealthy(m3);NotApplied(m1);Unknown(m2)",
        ),
        ({"b": "NotApplied", "a": "NotApplied"}, "NotApplied(a,b)"),
    ],
)
def test_one_word_for_the_binding_lists_every_trouble_worst_first(health: dict[str, str], word: str) -> None:
    assert health_word(health) == word


@pytest.mark.parametrize(
    ("kind", "status", "text"),
    [
        ("Deployment", {"replicas": 4, "readyReplicas": 3}, "3/4"),
        ("StatefulSet", {"replicas": 2}, "0/2"),
        ("ReplicaSet", {"replicas": 1, "readyReplicas": 1}, "1/1"),
        ("DaemonSet", {"numberReady": 5, "desiredNumberScheduled": 6}, "5/6"),
        ("Deployment", None, "-"),
        ("Deployment", {}, "-"),
        ("Job", {"succeeded": 1}, "-"),
        ("Deployment", {"replicas": "4", "readyReplicas": True}, "0/0"),
    ],
)
def test_ready_is_kubectls_ready_for_kinds_that_count_replicas(
    kind: str, status: dict[str, Any] | None, text: str
) -> None:
    assert ready_text(kind, status) == text


def _binding(*items: AggregatedStatusItem) -> ResourceBinding:
    return ResourceBinding.model_validate(
        {
            "metadata": {"name": "w-widget", "namespace": "ns"},
            "spec": {"resource": {"apiVersion": WIDGET_API_VERSION, "kind": WIDGET_KIND, "name": "w"}},
            "status": {
                "aggregatedStatus": [i.model_dump(by_alias=True, exclude_defaults=True) for i in items]
            },
        }
    )


def test_cluster_health_says_not_applied_where_the_cluster_lacks_the_object() -> None:
    binding = _binding(
        AggregatedStatusItem(cluster_name="m1", applied=True, health="Healthy"),
        AggregatedStatusItem(cluster_name="m2", applied=False, health="Unknown"),
        AggregatedStatusItem(cluster_name="m3", applied=True),
    )
    assert cluster_health(binding) == {"m1": "Healthy", "m2": "NotApplied", "m3": "Unknown"}


TEMPLATE = Manifest(
    ObjectKey(WIDGET_API_VERSION, WIDGET_KIND, "ns", "w"), widget(), SourceRef("apps/w.yaml", 2)
)
ITEMS = (
    AggregatedStatusItem(cluster_name="m1", applied=True, status={"ready": 2}),
    AggregatedStatusItem(cluster_name="m2", applied=True, status={"ready": 3}),
)
SUM_READY = """function AggregateStatus(desired, items)
  local ready = 0
  for i = 1, #items do ready = ready + items[i].status.ready end
  desired.status = {ready = ready, at = os.date("!%Y-%m-%dT%H:%M:%SZ")}
  return desired
end"""


def _observed(*heartbeats: tuple[str, str]) -> ObservedStatus:
    return ObservedStatus(
        {
            cluster: ClusterStatusSnapshot.model_validate(
                {
                    "apiVersion": "status.gitops-karmada.io/v1alpha1",
                    "kind": "ClusterStatusSnapshot",
                    "metadata": {"name": cluster},
                    "collectedAt": at,
                }
            )
            for cluster, at in heartbeats
        }
    )


def test_a_customizations_aggregation_folds_the_items_at_the_newest_reports_time() -> None:
    interpreter = ResourceInterpreter([customization("sum", statusAggregation=SUM_READY)])
    observed = _observed(("m1", "2026-01-02T03:04:05Z"), ("m2", "2026-01-02T03:09:00Z"))
    status, problem = template_status(TEMPLATE, ITEMS, observed, interpreter)
    assert problem is None
    assert status == {"ready": 5, "at": "2026-01-02T03:09:00Z"}


def test_nothing_is_folded_without_reports_or_without_a_hook() -> None:
    with_hook = ResourceInterpreter([customization("sum", statusAggregation=SUM_READY)])
    assert template_status(TEMPLATE, (), _observed(), with_hook) == (None, None)
    # Widget has no native AggregateStatus and no customization here
    assert template_status(TEMPLATE, ITEMS, _observed(), ResourceInterpreter()) == (None, None)


def test_a_failing_aggregation_is_a_warning_naming_the_template_and_the_record_goes_on() -> None:
    broken = customization(
        "broken", statusAggregation="function AggregateStatus(d, items)\n  return d.x.y\nend"
    )
    status, problem = template_status(TEMPLATE, ITEMS, _observed(), ResourceInterpreter([broken]))
    assert status is None
    assert problem is not None and problem.severity is Severity.WARNING
    assert problem.source == SourceRef("apps/w.yaml", 2) and problem.field == "status"
    assert "could not be aggregated" in problem.message and "broken/statusAggregation:2" in problem.message
