"""Go <-> Lua conversion rules of Karmada's luavm, observed through customization scripts."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.interpreter import (
    FailureReason,
    LuaLimits,
    ResourceInterpreter,
    ResourceInterpretError,
)
from gitops_karmada.model.bindings import AggregatedStatusItem
from gitops_karmada.model.quantity import Quantity
from tests.core.interpreter.builders import customization, widget

LIMITS = LuaLimits(max_instructions=2_000_000, max_memory=8 * 1024 * 1024)


def _interpreter(**scripts: str) -> ResourceInterpreter:
    return ResourceInterpreter([customization("conv", **scripts)], limits=LIMITS)


def _replicas_script(replicas: str, requirements: str = "nil") -> str:
    return f"function GetReplicas(obj)\n  return {replicas}, {requirements}\nend"


@pytest.mark.parametrize(
    ("replicas", "requirements_lua", "expected_replicas", "expected_api"),
    [
        ("6 / 2", "nil", 3, None),
        ("obj.spec.size", "nil", 5, None),
        ("1", "{}", 1, {}),
        (
            "1",
            "{resourceRequest = {memory = 2.048, cpu = 0.5}}",
            1,
            {"resourceRequest": {"cpu": "500m", "memory": "2048m"}},
        ),
        (
            "1",
            '{resourceRequest = {memory = "2048m"}, nodeClaim = {}}',
            1,
            {"resourceRequest": {"memory": "2048m"}},
        ),
        (
            "1",
            '{namespace = "ns", unknownField = 1, nodeClaim = {nodeSelector = {a = "b"}, extra = true}}',
            1,
            {"namespace": "ns", "nodeClaim": {"nodeSelector": {"a": "b"}}},
        ),
        (
            "1",
            '{resourceRequest = {memory = "1Gi"}, priorityClassName = ""}',
            1,
            {"resourceRequest": {"memory": "1Gi"}},
        ),
    ],
    ids=[
        "whole-float-is-an-int",
        "field-read",
        "empty-table-is-empty-requirements",
        "numbers-are-quantities-via-go-json",
        "empty-node-claim-disappears",
        "unknown-fields-dropped",
        "empty-string-omitted",
    ],
)
def test_get_replicas_results(
    replicas: str, requirements_lua: str, expected_replicas: int, expected_api: dict[str, Any] | None
) -> None:
    interpreter = _interpreter(replicaResource=_replicas_script(replicas, requirements_lua))
    got_replicas, requirements = interpreter.get_replicas(widget(size=5))
    assert got_replicas == expected_replicas
    assert isinstance(got_replicas, int)
    if expected_api is None:
        assert requirements is None
    else:
        assert requirements is not None
        api = requirements.to_api()
        assert {k: v for k, v in api.items() if k != "resourceRequest"} == {
            k: v for k, v in expected_api.items() if k != "resourceRequest"
        }
        assert requirements.resource_request == {
            name: Quantity.parse(value) for name, value in expected_api.get("resourceRequest", {}).items()
        }


@pytest.mark.parametrize(
    ("replicas", "requirements_lua", "fragment"),
    [
        ("2.5", "nil", "not an integer"),
        ('"3"', "nil", "number but got string"),
        ("true", "nil", "number but got boolean"),
        ("2^40", "nil", "int32"),
        ("0/0", "nil", "NaN"),
        ("1", '"cpu=1"', "table but got string"),
        ("1", "{resourceRequest = {cpu = true}}", "Quantity"),
        ("1", '{resourceRequest = {cpu = "one"}}', "quantities must match"),
        ("1", "{nodeClaim = {nodeSelector = {a = 1}}}", "nodeSelector.a"),
        ("1", "{resourceRequest = {1, nil, 3}}", "sparse array"),
        ("1", "{resourceRequest = {1, cpu = 2}}", "mixed or invalid key types"),
        ("1", "{resourceRequest = {cpu = function() end}}", "function"),
    ],
    ids=[
        "fractional-replicas",
        "string-replicas",
        "boolean-replicas",
        "replicas-beyond-int32",
        "nan-replicas",
        "requirements-not-a-table",
        "quantity-of-wrong-type",
        "malformed-quantity",
        "node-selector-value-not-string",
        "sparse-array",
        "mixed-keys",
        "function-value",
    ],
)
def test_get_replicas_invalid_results(replicas: str, requirements_lua: str, fragment: str) -> None:
    interpreter = _interpreter(replicaResource=_replicas_script(replicas, requirements_lua))
    with pytest.raises(ResourceInterpretError) as raised:
        interpreter.get_replicas(widget(size=1))
    assert raised.value.reason is FailureReason.INVALID_RESULT
    assert fragment in raised.value.cause


def test_the_same_table_twice_in_a_result_is_an_error() -> None:
    script = """
    function GetComponents(obj)
      local selector = {zone = "a"}
      return {
        {name = "a", replicas = 1, replicaRequirements = {nodeClaim = {nodeSelector = selector}}},
        {name = "b", replicas = 1, replicaRequirements = {nodeClaim = {nodeSelector = selector}}},
      }
    end
    """
    with pytest.raises(ResourceInterpretError) as raised:
        _interpreter(componentResource=script).get_components(widget())
    assert "recursively nested" in raised.value.cause


def test_components_drop_unknown_fields_and_empty_tables() -> None:
    script = """
    function GetComponents(obj)
      return {
        {name = "a", replicas = 2, namespace = "dropped",
         replicaRequirements = {namespace = "dropped", resourceRequest = {cpu = "1"},
                                nodeClaim = {tolerations = {}}}},
        {name = "b", replicas = 0, replicaRequirements = {}},
      }
    end
    """
    components = _interpreter(componentResource=script).get_components(widget())
    assert [c.to_api() for c in components] == [
        {"name": "a", "replicas": 2, "replicaRequirements": {"resourceRequest": {"cpu": "1"}}},
        {"name": "b", "replicas": 0},  # an empty table is no requirements at all
    ]


@pytest.mark.parametrize(
    ("result", "fragment"),
    [
        ('{{name = "a", replicas = 1.5}}', "int32"),
        ('{{name = "", replicas = 1}}', "name"),
        ('{{name = "' + "n" * 33 + '", replicas = 1}}', "32"),
        ('{name = "a", replicas = 1}', "list"),
    ],
    ids=["fractional-replicas", "empty-name", "name-longer-than-32", "object-instead-of-list"],
)
def test_invalid_components(result: str, fragment: str) -> None:
    interpreter = _interpreter(componentResource=f"function GetComponents(obj) return {result} end")
    with pytest.raises(ResourceInterpretError) as raised:
        interpreter.get_components(widget())
    assert raised.value.reason is FailureReason.INVALID_RESULT
    assert fragment in raised.value.cause


def test_nil_components_are_none() -> None:
    assert (
        _interpreter(componentResource="function GetComponents(obj) return nil end").get_components(widget())
        == ()
    )


def test_revise_replica_keeps_empty_values_of_the_object_and_drops_new_empty_tables() -> None:
    obj = widget(size=1, volumes=[{"name": "tmp", "emptyDir": {}}], args=[], labels={})
    script = """
    function ReviseReplica(obj, replicas)
      obj.spec.size = replicas
      obj.spec.added = {}
      obj.spec.ratio = 10 / 4
      return obj
    end
    """
    revised = _interpreter(replicaRevision=script).revise_replica(obj, 3)
    assert revised["spec"] == {
        "args": [],
        "labels": {},
        "ratio": 2.5,
        "size": 3,
        "volumes": [{"emptyDir": {}, "name": "tmp"}],
    }
    assert isinstance(revised["spec"]["size"], int)
    assert obj["spec"]["size"] == 1, "the input must not change"


def test_retain_uses_desired_and_observed_as_references() -> None:
    desired = widget(a={})
    observed = widget(b=[])
    script = """
    function Retain(desired, observed)
      desired.spec.b = observed.spec.b
      desired.spec.c = {}
      return desired
    end
    """
    retained = _interpreter(retention=script).retain(desired, observed)
    assert retained["spec"] == {"a": {}, "b": []}


def test_aggregate_status_sees_items_as_go_marshals_them() -> None:
    script = """
    function AggregateStatus(desired, items)
      local total, names = 0, {}
      for _, item in ipairs(items) do
        total = total + (item.status and item.status.ready or 0)
        names[#names + 1] = item.clusterName .. ":" .. tostring(item.applied) .. ":" .. tostring(item.health)
      end
      desired.status = {ready = total, seen = table.concat(names, ",")}
      return desired
    end
    """
    items = [
        AggregatedStatusItem(cluster_name="m1", status={"ready": 2}, applied=True, health="Healthy"),
        AggregatedStatusItem(cluster_name="m2"),
    ]
    result = _interpreter(statusAggregation=script).aggregate_status(widget(), items)
    assert result["status"] == {"ready": 2, "seen": "m1:true:Healthy,m2:nil:nil"}


def test_no_status_items_reach_the_script_as_nil_not_an_empty_table() -> None:
    """Karmada's scripts branch on ``statusItems == nil`` (a nil Go slice marshals as null)."""
    script = """
    function AggregateStatus(desired, statusItems)
      if statusItems == nil then
        desired.status = {seen = "nil"}
      else
        desired.status = {seen = type(statusItems) .. ":" .. #statusItems}
      end
      return desired
    end
    """
    interpreter = _interpreter(statusAggregation=script)
    assert interpreter.aggregate_status(widget(), [])["status"] == {"seen": "nil"}
    one = [AggregatedStatusItem(cluster_name="m1")]
    assert interpreter.aggregate_status(widget(), one)["status"] == {"seen": "table:1"}


def test_status_results_lose_every_empty_table_even_where_the_desired_object_had_one() -> None:
    """AggregateStatus and ReflectStatus results are converted with no reference objects."""
    script = """
    function AggregateStatus(desired, statusItems)
      desired.status = {conditions = {}, replicas = 0, nested = {list = {}, keep = "x"}}
      return desired
    end
    """
    desired = {**widget(), "spec": {"size": 1, "selector": {}}}
    result = _interpreter(statusAggregation=script).aggregate_status(desired, [])
    assert result["status"] == {"replicas": 0, "nested": {"keep": "x"}}
    assert "selector" not in result["spec"]


def test_os_time_and_date_in_aggregate_status_answer_the_injected_time() -> None:
    """Karmada's Notebook and TFJob scripts stamp conditions with os.date(); here "now" is passed in."""
    script = """
    function AggregateStatus(desired, statusItems)
      desired.status = {at = os.date("!%Y-%m-%dT%H:%M:%SZ"), epoch = os.time()}
      return desired
    end
    """
    interpreter = _interpreter(statusAggregation=script)
    result = interpreter.aggregate_status(widget(), [], now="2026-11-24T06:00:00Z")
    assert result["status"] == {"at": "2026-11-24T06:00:00Z", "epoch": 1795500000}
    with pytest.raises(ResourceInterpretError, match="this operation gets no current time"):
        interpreter.aggregate_status(widget(), [])


def test_reflect_status_nil_means_no_status() -> None:
    script = "function ReflectStatus(obj) if obj.status == nil then return nil end return obj.status end"
    interpreter = _interpreter(statusReflection=script)
    assert interpreter.reflect_status(widget()) is None
    # converted without reference objects, as Karmada does: the empty table goes even though the
    # observed status had it
    assert interpreter.reflect_status({**widget(), "status": {"ready": 1, "conditions": []}}) == {"ready": 1}


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("return 1", "bool but got number"),
        ('return "true"', "bool but got string"),
        ("return nil", "got nil"),
    ],
    ids=["number", "string", "nil"],
)
def test_health_must_be_a_boolean(body: str, fragment: str) -> None:
    interpreter = _interpreter(healthInterpretation=f"function InterpretHealth(obj) {body} end")
    with pytest.raises(ResourceInterpretError) as raised:
        interpreter.interpret_health(widget())
    assert fragment in raised.value.cause
