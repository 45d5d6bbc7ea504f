"""Pod-template replica requirements: Karmada's rules as decision tables, plus a property."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitops_karmada.core.interpreter import ResourceInterpreter
from gitops_karmada.core.interpreter.requirements import is_scalar_resource_name, pod_spec_requirements
from gitops_karmada.model.quantity import Format, Quantity
from tests.core.interpreter.builders import deployment


def _container(
    requests: dict[str, Any] | None = None, limits: dict[str, Any] | None = None
) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    return {"name": "c", "image": "img", "resources": resources}


REQUEST_RULES: list[tuple[str, dict[str, Any], dict[str, str] | None]] = [
    (
        "requests-only",
        {"containers": [_container({"cpu": "100m", "memory": "64Mi"})]},
        {"cpu": "100m", "memory": "64Mi"},
    ),
    (
        "limits-fill-missing-requests-per-key",
        {"containers": [_container({"cpu": "100m"}, {"cpu": "1", "memory": "1Gi"})]},
        {"cpu": "100m", "memory": "1Gi"},
    ),
    ("limits-only", {"containers": [_container(None, {"cpu": "2"})]}, {"cpu": "2"}),
    (
        "containers-summed",
        {
            "containers": [
                _container({"cpu": "100m", "memory": "1Gi"}),
                _container({"cpu": "250m", "memory": "512Mi"}),
            ]
        },
        {"cpu": "350m", "memory": "1536Mi"},
    ),
    (
        "init-container-larger-wins",
        {"initContainers": [_container({"cpu": "2"})], "containers": [_container({"cpu": "300m"})]},
        {"cpu": "2"},
    ),
    (
        "init-container-smaller-ignored",
        {"initContainers": [_container({"cpu": "100m"})], "containers": [_container({"cpu": "300m"})]},
        {"cpu": "300m"},
    ),
    (
        "init-max-is-per-resource",
        {
            "initContainers": [
                _container({"cpu": "4", "memory": "1Mi"}),
                _container({"cpu": "1", "memory": "2Gi"}),
            ],
            "containers": [_container({"cpu": "1", "memory": "1Gi"})],
        },
        {"cpu": "4", "memory": "2Gi"},
    ),
    (
        "init-limits-default-requests-too",
        {
            "initContainers": [_container(None, {"memory": "3Gi"})],
            "containers": [_container({"memory": "1Gi"})],
        },
        {"memory": "3Gi"},
    ),
    (
        "overhead-added-after-init-max",
        {
            "initContainers": [_container({"cpu": "2"})],
            "containers": [_container({"cpu": "500m"})],
            "overhead": {"cpu": "100m", "memory": "10Mi"},
        },
        {"cpu": "2100m", "memory": "10Mi"},
    ),
    ("cpu-rounds-up-to-millicores", {"containers": [_container({"cpu": "100.5m"})]}, {"cpu": "101m"}),
    (
        "rounding-is-per-container",
        {"containers": [_container({"cpu": "0.0001"}), _container({"cpu": "0.0001"})]},
        {"cpu": "2m"},
    ),
    ("memory-rounds-up-to-whole-bytes", {"containers": [_container({"memory": "1500m"})]}, {"memory": "2"}),
    (
        "ephemeral-storage-and-pods-kept",
        {"containers": [_container({"ephemeral-storage": "1Gi", "pods": "1"})]},
        {"ephemeral-storage": "1Gi", "pods": "1"},
    ),
    (
        "init-container-pods-not-maxed",
        {"initContainers": [_container({"pods": "5"})], "containers": [_container({"pods": "1"})]},
        {"pods": "1"},
    ),
    ("zero-values-dropped", {"containers": [_container({"cpu": "0", "memory": "0"})]}, None),
    (
        "numbers-are-quantities",
        {"containers": [_container({"cpu": 2, "memory": 1.5})]},
        {"cpu": "2", "memory": "2"},
    ),
    ("no-resources-no-claim", {"containers": [_container()]}, None),
]


@pytest.mark.parametrize(
    ("pod_spec", "expected"), [r[1:] for r in REQUEST_RULES], ids=[r[0] for r in REQUEST_RULES]
)
def test_resource_request_rules(pod_spec: dict[str, Any], expected: dict[str, str] | None) -> None:
    _, requirements = ResourceInterpreter().get_replicas(deployment(**pod_spec))
    if expected is None:
        assert requirements is None
        return
    assert requirements is not None
    assert requirements.resource_request == {name: Quantity.parse(value) for name, value in expected.items()}
    assert {name: str(q) for name, q in requirements.resource_request.items()} == expected


SCALAR_NAMES = [
    ("nvidia.com/gpu", True),
    ("example.com/foo", True),
    ("hugepages-2Mi", True),
    ("kubernetes.io/something", True),
    ("attachable-volumes-aws-ebs", True),
    ("foo", False),
    ("requests.example.com/foo", False),
    ("example.com/foo bar", False),
    ("example.com/" + "x" * 64, False),
]


@pytest.mark.parametrize(("name", "kept"), SCALAR_NAMES, ids=[n for n, _ in SCALAR_NAMES])
def test_scalar_resource_names_kept_or_dropped(name: str, kept: bool) -> None:
    assert is_scalar_resource_name(name) is kept
    requirements = pod_spec_requirements({"containers": [_container({name: "2"})]}, with_priority_class=False)
    assert (requirements is not None and name in requirements.resource_request) is kept


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("cpu", Format.DECIMAL_SI),
        ("memory", Format.BINARY_SI),
        ("ephemeral-storage", Format.BINARY_SI),
        ("hugepages-2Mi", Format.BINARY_SI),
        ("nvidia.com/gpu", Format.DECIMAL_SI),
        ("pods", Format.DECIMAL_SI),
    ],
    ids=["cpu", "memory", "ephemeral-storage", "hugepages", "extended", "pods"],
)
def test_output_formats(name: str, fmt: Format) -> None:
    # the format matters downstream: the general estimator counts DecimalSI in milli-units
    requirements = pod_spec_requirements(
        {"containers": [_container({name: "3000"})]}, with_priority_class=False
    )
    assert requirements is not None
    assert requirements.resource_request[name].format is fmt


def test_binary_memory_that_is_not_a_multiple_of_1024_prints_as_go_does() -> None:
    requirements = pod_spec_requirements(
        {"containers": [_container({"memory": "1025"})]}, with_priority_class=False
    )
    assert requirements is not None
    assert requirements.to_api() == {"resourceRequest": {"memory": "1025"}}


NODE_CLAIMS: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = [
    ("node-selector", {"nodeSelector": {"disk": "ssd"}}, {"nodeSelector": {"disk": "ssd"}}),
    ("empty-node-selector-still-claims", {"nodeSelector": {}}, {}),
    (
        "tolerations",
        {"tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule", "unknown": 1}]},
        {"tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]},
    ),
    ("empty-tolerations-no-claim", {"tolerations": []}, None),
    (
        "required-node-affinity-only",
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "z", "operator": "In", "values": ["a"]}]}
                        ]
                    },
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 1,
                            "preference": {"matchExpressions": [{"key": "x", "operator": "Exists"}]},
                        }
                    ],
                },
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": []},
            }
        },
        {
            "hardNodeAffinity": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "z", "operator": "In", "values": ["a"]}]}]
            }
        },
    ),
    (
        "preferred-affinity-is-no-claim",
        {
            "affinity": {
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 1,
                            "preference": {"matchExpressions": [{"key": "x", "operator": "Exists"}]},
                        }
                    ]
                }
            }
        },
        None,
    ),
]


@pytest.mark.parametrize(
    ("pod_spec", "expected"), [r[1:] for r in NODE_CLAIMS], ids=[r[0] for r in NODE_CLAIMS]
)
def test_node_claim_rules(pod_spec: dict[str, Any], expected: dict[str, Any] | None) -> None:
    requirements = pod_spec_requirements(
        {"containers": [_container()], **pod_spec}, with_priority_class=False
    )
    if expected is None:
        assert requirements is None
        return
    assert requirements is not None and requirements.node_claim is not None
    assert requirements.node_claim.to_api() == expected


@pytest.mark.parametrize(
    ("gate", "priority_class", "expected"),
    [(False, "high", ""), (True, "high", "high"), (True, None, "")],
    ids=["gate-off", "gate-on", "gate-on-without-class"],
)
def test_priority_class_only_with_resource_quota_estimate(
    gate: bool, priority_class: str | None, expected: str
) -> None:
    pod_spec: dict[str, Any] = {"containers": [_container({"cpu": "1"})]}
    if priority_class is not None:
        pod_spec["priorityClassName"] = priority_class
    _, requirements = ResourceInterpreter(resource_quota_estimate=gate).get_replicas(deployment(**pod_spec))
    assert requirements is not None
    assert requirements.priority_class_name == expected
    assert requirements.namespace == "", "the detector, not the interpreter, fills the namespace"


_MILLIS = st.integers(min_value=0, max_value=4000)
_BYTES = st.integers(min_value=0, max_value=2**34)


@settings(max_examples=60, deadline=None)
@given(
    app=st.lists(st.tuples(_MILLIS, _BYTES), min_size=1, max_size=4),
    init_cpu=st.lists(_MILLIS, max_size=3),
    overhead_cpu=_MILLIS,
)
def test_cpu_and_memory_follow_the_sum_max_overhead_formula(
    app: list[tuple[int, int]], init_cpu: list[int], overhead_cpu: int
) -> None:
    """cpu = max(Σ app, max init) + overhead in millicores; memory = Σ ceil(bytes) per container."""
    spec = {
        "containers": [_container({"cpu": f"{cpu}m", "memory": f"{memory}m"}) for cpu, memory in app],
        "initContainers": [_container({"cpu": f"{cpu}m"}) for cpu in init_cpu],
        "overhead": {"cpu": f"{overhead_cpu}m"},
    }
    requirements = pod_spec_requirements(spec, with_priority_class=False)
    expected_cpu = max(sum(cpu for cpu, _ in app), max(init_cpu, default=0)) + overhead_cpu
    expected_memory = sum(math.ceil(Fraction(memory, 1000)) for _, memory in app)
    request = requirements.resource_request if requirements is not None else {}
    assert (request["cpu"].milli_value() if "cpu" in request else 0) == expected_cpu
    assert (request["memory"].value if "memory" in request else 0) == expected_memory
