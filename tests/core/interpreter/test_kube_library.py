"""The ``kube`` helper library scripts use (``luavm/kube.go``), and Go's float64 rules behind it."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitops_karmada.core.codecs.gonumbers import (
    approximate_float64,
    go_json_number,
    quantity_from_json_number,
)
from gitops_karmada.core.interpreter import FailureReason, LuaLimits
from gitops_karmada.core.interpreter.lua.sandbox import LuaFailure, LuaSandbox, LuaScript
from gitops_karmada.model.quantity import Format, Quantity

SANDBOX = LuaSandbox(LuaLimits(max_instructions=2_000_000, max_memory=8 * 1024 * 1024))


def _eval(expression: str, *args: Any) -> Any:
    # not a tail call, so that Lua knows the calling line for error messages
    script = LuaScript(
        "kube-test", f'local kube = require("kube")\nfunction F(a, b) local v = {expression} return v end'
    )
    (value,) = SANDBOX.call(script, "F", args, 1)
    return value


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('kube.resourceAdd("1Gi", "512Mi")', "1536Mi"),
        ('kube.resourceAdd("1", "500m")', "1500m"),
        ('kube.resourceAdd(nil, "100m", nil)', "100m"),
        ("kube.resourceAdd()", "0"),
        ('kube.resourceAdd("1Gi", "1")', "1073741825"),
        ('kube.getResourceQuantity("2Gi")', 2147483648),
        ('kube.getResourceQuantity("2048m")', 2.048),
        ('kube.getResourceQuantity("1.5Gi")', 1610612736),
        ('kube.getResourceQuantity("100m")', 0.1),
        ("kube.getResourceQuantity(nil)", 0),
        ('kube.getResourceQuantity("1e3")', 1000),
    ],
    ids=[
        "add-binary",
        "add-decimal",
        "add-nil-is-zero",
        "add-nothing",
        "add-keeps-first-format",
        "float-binary",
        "float-milli",
        "float-fraction-binary",
        "float-100m",
        "float-nil",
        "float-exponent",
    ],
)
def test_quantity_helpers(expression: str, expected: Any) -> None:
    assert _eval(expression) == expected


@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ('kube.resourceAdd("1Gi", 3)', "bad argument #2 to resourceAdd (string expected, got number)"),
        ('kube.resourceAdd("lots")', "cannot parse 'lots'"),
        (
            "kube.getResourceQuantity(2)",
            "bad argument #1 to getResourceQuantity (string expected, got number)",
        ),
        ('kube.getResourceQuantity("1 Gi")', "cannot parse '1 Gi'"),
        (
            "kube.accuratePodRequirements(nil)",
            "bad argument #1 to accuratePodRequirements (table expected, got nil)",
        ),
        ("kube.getPodDependencies(nil)", "bad argument #1 to getPodDependencies (table expected, got nil)"),
        (
            "kube.getPodDependencies({}, {})",
            "bad argument #2 to getPodDependencies (string expected, got table)",
        ),
        (
            'kube.accuratePodRequirements({spec = {containers = {{resources = {requests = {cpu = "x"}}}}}})',
            "spec.containers[0].resources.requests.cpu",
        ),
    ],
    ids=[
        "add-number",
        "add-malformed",
        "float-number",
        "float-malformed",
        "requirements-nil",
        "dependencies-nil",
        "dependencies-namespace-table",
        "requirements-bad-quantity",
    ],
)
def test_helper_errors_point_at_the_script_line(expression: str, fragment: str) -> None:
    with pytest.raises(LuaFailure) as raised:
        _eval(expression)
    assert raised.value.reason is FailureReason.SCRIPT_ERROR
    assert raised.value.message.startswith("kube-test:2: ")
    assert fragment in raised.value.message


def test_accurate_pod_requirements() -> None:
    template = {
        "spec": {
            "nodeSelector": {"disk": "ssd"},
            "containers": [{"name": "a", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}],
        }
    }
    assert _eval("kube.accuratePodRequirements(a)", template) == {
        "nodeClaim": {"nodeSelector": {"disk": "ssd"}},
        "resourceRequest": {"cpu": "1", "memory": "1Gi"},
    }
    assert _eval("kube.accuratePodRequirements(a)", {"spec": {"containers": [{"name": "a"}]}}) is None


def test_get_pod_dependencies_defaults_to_namespace_default() -> None:
    template = {"spec": {"containers": [{"name": "a", "envFrom": [{"configMapRef": {"name": "cm"}}]}]}}
    assert _eval("kube.getPodDependencies(a)", template) == [
        {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "default", "name": "cm"}
    ]
    assert _eval('kube.getPodDependencies(a, "prod")', template)[0]["namespace"] == "prod"


# -- Go's number text and AsApproximateFloat64 ------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "text"),
    [
        (3.0, "3"),
        (0.5, "0.5"),
        (2.048, "2.048"),
        (-0.0, "-0"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (0.000001, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (123456789.125, "123456789.125"),
        (2.5e-300, "2.5e-300"),
    ],
    ids=lambda v: str(v),
)
def test_go_json_number(value: float, text: str) -> None:
    assert go_json_number(value) == text


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_go_json_number_round_trips(value: float) -> None:
    assert float(go_json_number(value)) == value


def test_numbers_from_lua_become_decimal_quantities() -> None:
    quantity = quantity_from_json_number(2147483648.0)
    assert quantity == Quantity.parse("2Gi")
    assert quantity.format is Format.DECIMAL_SI
    assert str(quantity_from_json_number(2.048)) == "2048m"


_MULTIPLIERS: dict[str, Fraction] = {
    "": Fraction(1),
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "e3": Fraction(10**3),
    "E": Fraction(10**18),
    "Ki": Fraction(2**10),
    "Mi": Fraction(2**20),
    "Gi": Fraction(2**30),
    "Ti": Fraction(2**40),
}


@settings(max_examples=200, deadline=None)
@given(
    whole=st.integers(min_value=0, max_value=10**12),
    fraction=st.text(alphabet="0123456789", max_size=4),
    suffix=st.sampled_from(sorted(_MULTIPLIERS)),
)
def test_approximate_float64_is_within_two_ulps_of_gos_exact_value(
    whole: int, fraction: str, suffix: str
) -> None:
    text = f"{whole}{'.' + fraction if fraction else ''}{suffix}"
    # Go's value: rounded up to nano precision; only BinarySI is capped at MaxInt64
    exact = Fraction(math.ceil(Fraction(f"{whole}.{fraction or 0}") * _MULTIPLIERS[suffix] * 10**9), 10**9)
    if suffix.endswith("i"):
        exact = min(exact, Fraction(2**63 - 1))
    approximate = approximate_float64(text)
    if exact == 0:
        assert approximate == 0
        return
    assert abs(Fraction(approximate) - exact) <= 2 * Fraction(math.ulp(float(exact)))
