"""Every case of tests/vectors/karmada-1.17-1.19.yaml (Karmada's own unit tests, v1.17 to v1.19).

One runner per family, each through the project's public functions; a case is run for the newest Karmada
version it holds for, and, when the file records what an older version's test asserted (``previous``), once
more following that older version.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import BaseModel, ValidationError

from gitops_karmada.model.diagnostics import field_path
from gitops_karmada.model.quantity import Quantity
from gitops_karmada.model.versions import KarmadaVersion
from tests.core.interpreter.vectors import (
    normalized_requirements,
    requirements_of,
    status_with_zero_defaults,
)
from tests.core.scheduler.builders import cluster, load_vector_section

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from gitops_karmada.core.scheduler.estimate import AssumedWorkload

FILE = "karmada-1.17-1.19.yaml"
CASES = load_vector_section(FILE)
NEWEST = max(KarmadaVersion)


def _holds_for(text: str, version: KarmadaVersion) -> bool:
    """Whether a case's ``versions`` field (``>=v1.18 (v1.16.5, v1.17.2)``) covers ``version``: a minor
    version here is its latest patch release, so the minor versions of back-port releases count too."""
    floors = [text.split()[0].removeprefix(">=")]
    floors += [part.strip(" (),") for part in text.split()[1:] if part.startswith(("(v", "v"))]
    minors = [tuple(int(n) for n in f.removeprefix("v").split(".")[:2]) for f in floors]
    return (1, version.minor) >= minors[0] or (1, version.minor) in minors[1:]


def _runs() -> list[Any]:
    runs = []
    for case in CASES:
        runs.append(pytest.param(case, NEWEST, case["expected"], id=case["id"]))
        previous = case.get("previous")
        if previous is not None:
            older = KarmadaVersion.parse(previous["versions"].split("-")[-1])
            runs.append(pytest.param(case, older, previous["expected"], id=f"{case['id']}@{older}"))
    return runs


# -- helpers ------------------------------------------------------------------------------------------------


def _ns(text: str) -> int:
    """RFC 3339 → Unix nanoseconds."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return int(moment.timestamp()) * 1_000_000_000


def _rfc3339(ns: int) -> str:
    return datetime.fromtimestamp(ns // 1_000_000_000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _model_errors(model: type[BaseModel], raw: Any, path: str) -> tuple[Any, list[str]]:
    """``raw`` parsed as ``model``, or the errors the loader reports for it (``<path>: <message>``)."""
    try:
        return model.model_validate(raw), []
    except ValidationError as err:
        return None, [
            f"{path}.{field_path(item['loc'])}".rstrip(". ") + ": " + str(item["msg"])
            for item in err.errors()
        ]


def _check_validation(expected: Mapping[str, Any], errors: list[str]) -> None:
    text = "; ".join(errors)
    assert (not errors) is expected["valid"], text
    for fragment in expected.get("error_contains") or ():
        assert fragment in text
    if "error_count" in expected:
        assert len(errors) == expected["error_count"], text


def _assumed(raw: list[Mapping[str, Any]] | None) -> tuple[AssumedWorkload, ...]:
    from gitops_karmada.core.scheduler.estimate import AssumedComponent, AssumedWorkload

    return tuple(
        AssumedWorkload(
            namespace=w.get("namespace", ""),
            components=tuple(
                AssumedComponent(
                    name=c.get("name", ""),
                    replicas=c["replicas"],
                    resource_request={
                        k: Quantity.parse(str(v))
                        for k, v in (
                            (c.get("replicaRequirements") or {}).get("resourceRequest") or {}
                        ).items()
                    },
                )
                for c in w["components"]
            ),
        )
        for w in raw or ()
    )


def _assumed_api(workload: AssumedWorkload) -> dict[str, Any]:
    return {
        "namespace": workload.namespace,
        "components": [
            {
                "name": c.name,
                "replicas": c.replicas,
                "replicaRequirements": {
                    "resourceRequest": {k: str(v) for k, v in c.resource_request.items()}
                },
            }
            for c in workload.components
        ],
    }


def _partial_match(got: Any, want: Any) -> bool:
    """``want`` is PARTIAL: every field it shows must match (lists positionally, quantities numerically)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and _partial_match(got[k], v) for k, v in want.items())
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(_partial_match(g, w) for g, w in zip(got, want, strict=True))
        )
    if isinstance(want, str) and isinstance(got, str) and want != got:
        try:
            return Quantity.parse(want) == Quantity.parse(got)
        except ValueError:
            return False
    return bool(got == want)


def _cache(raw: list[Mapping[str, Any]] | None, ttl: float = 300) -> Any:
    from gitops_karmada.core.scheduler.assumptions import AssumptionCache

    cache = AssumptionCache(ttl_seconds=ttl)
    for entry in raw or ():
        (workload,) = _assumed([entry["workload"]])
        cache = cache.assume(entry["binding"], entry["cluster"], workload, now=0)
    return cache


def _check_assumed(cache: Any, expected: Mapping[str, Any], now: float = 0) -> None:
    for name, count in (expected.get("assumed_count_for_cluster") or {}).items():
        assert len(cache.workloads_on(name, now)) == count
    for name, workloads in (expected.get("assumed_for_cluster") or {}).items():
        got = [_assumed_api(w) for w in cache.workloads_on(name, now)]
        assert _partial_match(got, workloads), got


# -- families -----------------------------------------------------------------------------------------------


def _assumption_cache(given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion) -> None:
    from gitops_karmada.core.scheduler.assumptions import AssumptionCache

    cache, now, removed = AssumptionCache(ttl_seconds=given["ttl_seconds"]), 0.0, None
    for op in given["ops"]:
        match op["op"]:
            case "assume":
                (workload,) = _assumed([op["workload"]])
                cache = cache.assume(op["binding"], op["cluster"], workload, now=now)
            case "release_cluster":
                cache = cache.release_cluster(op["binding"], op["cluster"])
            case "release":
                cache = cache.release(op["binding"])
            case "expire":
                cache = cache.expire(op["binding"], now=now)
            case "gc":
                cache, removed = cache.gc(now=now)
            case other:
                pytest.fail(f"unknown op {other}")
    if "entries" in expected:
        assert {k: sorted(v) for k, v in cache.entries().items()} == {
            k: sorted(v) for k, v in expected["entries"].items()
        }
    if "binding_count" in expected:
        assert cache.binding_count() == expected["binding_count"]
    if "gc_removed" in expected:
        assert removed == expected["gc_removed"]
    _check_assumed(cache, expected, now)


def _assign_input(given: Mapping[str, Any], version: KarmadaVersion) -> tuple[Any, Any]:
    from gitops_karmada.core.defaults import default_placement
    from gitops_karmada.core.scheduler.division import AssignmentInput
    from gitops_karmada.core.scheduler.filters import affinity_in_force
    from gitops_karmada.core.scheduler.schedule import target_components
    from gitops_karmada.core.scheduler.spread import ClusterDetail
    from gitops_karmada.model.bindings import Component, TargetCluster
    from gitops_karmada.model.config import FeatureGate, default_gates
    from gitops_karmada.model.policies import Placement

    spec, status = given["spec"], given.get("status") or {}
    gates = {
        **default_gates(version),
        **{FeatureGate(k): v for k, v in (given.get("feature_gates") or {}).items()},
    }
    placement = default_placement(Placement.model_validate(spec.get("placement") or {}))
    components = tuple(Component.model_validate(c) for c in spec.get("components") or ())
    candidates = [
        ClusterDetail(
            cluster=cluster(c["name"]),
            score=0,
            allocatable=c.get("allocatableReplicas", 0),
            available=c.get("availableReplicas", c.get("allocatableReplicas", 0)),
            overflow_order=c.get("overflowOrder", 0),
        )
        for c in given["candidates"]
    ]
    observed = status.get("schedulerObservingAffinityName", "")
    replicas = spec.get("replicas", 0)
    requirements = spec.get("replicaRequirements")
    assignment = AssignmentInput(
        placement=placement,
        replicas=replicas,
        has_requirements=requirements is not None,
        components=target_components(placement, components, gates, version),
        component_count=len(components),
        previous=tuple(TargetCluster.model_validate(c) for c in spec.get("clusters") or ()),
        uid=spec.get("uid", ""),
        overflow=bool(affinity_in_force(placement, observed, True).overflow),
    )
    return candidates, assignment


def _assign_replicas(given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion) -> None:
    from gitops_karmada.core.scheduler.division import assign_replicas
    from gitops_karmada.core.scheduler.errors import ScheduleStepError

    candidates, assignment = _assign_input(given, version)
    if "error_contains" in expected:
        with pytest.raises(ScheduleStepError, match=expected["error_contains"]):
            assign_replicas(candidates, assignment)
        return
    got = [c.to_api() for c in assign_replicas(candidates, assignment).result]
    assert got == expected["clusters"]


def _assign_by_dynamic_strategy(
    given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion
) -> None:
    from gitops_karmada.core.scheduler.division import assign_by_dynamic_strategy
    from gitops_karmada.core.scheduler.errors import UnschedulableError
    from gitops_karmada.core.scheduler.queue import ErrorRoute, route_error
    from gitops_karmada.core.scheduler.strategy import replica_strategy

    candidates, assignment = _assign_input(given, version)
    assert expected["error_kind"] == "UnschedulableError"
    with pytest.raises(UnschedulableError) as raised:
        assign_by_dynamic_strategy(
            candidates,
            replica_strategy(assignment.placement),
            assignment.replicas,
            assignment.previous,
            fresh=False,
            uid="",
        )
    # what the queue does with it, wrapped as the scheduler wraps it
    try:
        raise RuntimeError("failed to assign replicas") from raised.value
    except RuntimeError as wrapped:
        assert route_error(wrapped) is ErrorRoute.UNSCHEDULABLE


def _cluster_affinities_walk(
    given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion
) -> None:
    from gitops_karmada.core.scheduler.schedule import walk_cluster_affinities
    from gitops_karmada.model.bindings import TargetCluster

    spec, status = given["spec"], given.get("status") or {}
    names = [t["affinityName"] for t in spec["placement"]["clusterAffinities"]]
    outcomes = given["term_outcomes"]
    attempted: list[str] = []

    def attempt(name: str) -> tuple[TargetCluster, ...] | None:
        attempted.append(name)
        result = outcomes.get(name, {}).get("result")
        return None if result is None else tuple(TargetCluster.model_validate(c) for c in result)

    triggered, scheduled = spec.get("rescheduleTriggeredAt"), status.get("lastScheduledTime")
    walk = walk_cluster_affinities(
        names,
        status.get("schedulerObservingAffinityName", ""),
        reschedule_required=triggered is not None and (scheduled is None or _ns(triggered) > _ns(scheduled)),
        version=version,
        attempt=attempt,
    )
    assert attempted == expected["attempted_terms"]
    assert [c.to_api() for c in walk.result or ()] == (expected.get("result_clusters") or [])
    if "status_patch" in expected:
        patch = expected["status_patch"]
        wanted = None if patch is None else patch.get("schedulerObservingAffinityName")
        assert walk.observed_name_patch == wanted


def _scheduler_error_routing(
    given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion
) -> None:
    from gitops_karmada.core.scheduler.errors import UnschedulableError
    from gitops_karmada.core.scheduler.queue import route_error

    error = given["error"]
    err: BaseException | None
    match error["kind"]:
        case "none":
            err = None
        case "generic":
            err = RuntimeError(error.get("message", ""))
        case "unschedulable":
            err = UnschedulableError(error.get("message", ""))
        case "wrapped":
            err = RuntimeError(error.get("message", ""))
            err.__cause__ = (
                UnschedulableError("not enough")
                if error.get("wraps") == "unschedulable"
                else RuntimeError("x")
            )
        case other:
            pytest.fail(f"unknown error kind {other}")
    assert route_error(err).value == expected["action"]


def _build_assumed_workloads_by_cluster(
    given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion
) -> None:
    from gitops_karmada.core.scheduler.assumptions import assumed_by_cluster

    got = assumed_by_cluster(_cache(given["cache"]), given["clusters"], now=0)
    assert {k: [_assumed_api(w) for w in v] for k, v in got.items()} == {
        k: [
            {
                "namespace": w.get("namespace", ""),
                "components": [
                    {
                        "name": c.get("name", ""),
                        "replicas": c["replicas"],
                        "replicaRequirements": {"resourceRequest": {}},
                    }
                    for c in w["components"]
                ],
            }
            for w in v
        ]
        for k, v in (expected["result"] or {}).items()
    }


def _deduct_assumed(given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion) -> None:
    from gitops_karmada.core.scheduler.estimate import deduct_assumed_workloads

    allocating = {k: Quantity.parse(str(v)) for k, v in (given["allocating"] or {}).items()}
    got = deduct_assumed_workloads(allocating, _assumed(given["assumedWorkloads"]))
    assert got == {k: Quantity.parse(str(v)) for k, v in expected["allocating"].items()}


def _estimator_cluster(raw: Mapping[str, Any], name: str = "member1") -> Any:
    return cluster(
        name, status={"resourceSummary": raw["resourceSummary"]}, resource_models=raw.get("resourceModels")
    )


def _estimator(given: Mapping[str, Any], version: KarmadaVersion) -> Any:
    from gitops_karmada.core.scheduler.estimate import GeneralEstimator
    from gitops_karmada.model.config import FeatureGate, default_gates

    gates = {**default_gates(version), **{FeatureGate(k): v for k, v in given["feature_gates"].items()}}
    return GeneralEstimator(
        customized_modeling=gates[FeatureGate.CUSTOMIZED_CLUSTER_RESOURCE_MODELING],
        overcommit_protection=gates[FeatureGate.SCHEDULING_OVERCOMMIT_PROTECTION],
        assumed={"member1": _assumed(given.get("assumedWorkloads"))},
    )


def _max_available_replicas(
    given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion
) -> None:
    from gitops_karmada.model.bindings import ReplicaRequirements

    requirements = ReplicaRequirements.model_validate(given["replicaRequirements"])
    got = _estimator(given, version).max_available_replicas(
        _estimator_cluster(given["cluster"]), requirements
    )
    assert got == expected["replicas"]


def _max_available_component_sets(
    given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion
) -> None:
    from gitops_karmada.model.bindings import Component

    components = [Component.model_validate(c) for c in given["components"]]
    got = _estimator(given, version).max_available_component_sets(
        _estimator_cluster(given["cluster"]), components
    )
    assert got == expected["sets"]


def _node_resource_component_sets(
    given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion
) -> None:
    from gitops_karmada.core.scheduler.accurate import estimate_sets_on_nodes, node_capacities
    from gitops_karmada.core.scheduler.snapshot import parse_snapshot_document
    from gitops_karmada.model.bindings import Component

    assert given["plugin_enabled"] and not given["pods"]
    nodes = [
        {
            "metadata": {"name": n["name"], "labels": n.get("labels") or {}},
            "status": {"allocatable": n["allocatable"]},
        }
        for n in given["nodes"]
    ]
    snapshot = parse_snapshot_document({"apiVersion": "v1", "kind": "NodeList", "items": nodes})
    components = [Component.model_validate({"name": f"c{i}", **c}) for i, c in enumerate(given["components"])]
    estimate = estimate_sets_on_nodes(
        node_capacities(snapshot), components, _assumed(given["assumedWorkloads"])
    )
    assert (estimate.value, "Success") == (expected["sets"], expected["code"])


def _interpret(given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion) -> None:
    from gitops_karmada.core.interpreter import Operation, ResourceInterpreter
    from gitops_karmada.model.bindings import AggregatedStatusItem

    interpreter = ResourceInterpreter(karmada_version=version)
    target = given["target"]
    operation = Operation(given["operation"])
    assert interpreter.answered_by(target["apiVersion"], target["kind"], operation) == "thirdparty"
    match operation:
        case Operation.INTERPRET_REPLICA:
            replicas, requirements = interpreter.get_replicas(given["desiredObj"])
            assert replicas == expected["replicas"]
            assert requirements_of(requirements) == normalized_requirements(expected.get("requires"))
        case Operation.REVISE_REPLICA:
            assert (
                interpreter.revise_replica(given["desiredObj"], given["inputReplicas"]) == expected["object"]
            )
        case Operation.AGGREGATE_STATUS:
            items = [AggregatedStatusItem.model_validate(item) for item in given["statusItems"]]
            aggregated = interpreter.aggregate_status(given["desiredObj"], items)
            assert status_with_zero_defaults(aggregated.get("status")) == status_with_zero_defaults(
                expected["object"].get("status")
            )
            assert {k: v for k, v in aggregated.items() if k != "status"} == {
                k: v for k, v in expected["object"].items() if k != "status"
            }
        case Operation.INTERPRET_HEALTH:
            assert interpreter.interpret_health(given["observedObj"]) is expected["healthy"]
        case Operation.INTERPRET_DEPENDENCY:
            got_deps = interpreter.get_dependencies(given["desiredObj"])
            found = {(d.api_version, d.kind, d.namespace, d.name) for d in got_deps}
            want = {
                (d["apiVersion"], d["kind"], d["namespace"], d["name"])
                for d in expected["dependencies"] or ()
            }
            assert found == want
            assert len(got_deps) == len(found), "dependencies must be de-duplicated"
        case other:
            pytest.fail(f"no runner for {other}")


def _validate_override_spec(
    given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion
) -> None:
    from gitops_karmada.core.inputs.webhook import validate_override_spec
    from gitops_karmada.model.overrides import OverrideSpec

    spec, errors = _model_errors(OverrideSpec, given["spec"], "spec")
    if spec is not None:
        errors = [str(e) for e in validate_override_spec(spec, given["policy_namespace"], version)]
    _check_validation(expected, errors)


def _validate_propagation_spec(
    given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion
) -> None:
    from gitops_karmada.core.inputs.webhook import validate_propagation_spec
    from gitops_karmada.model.policies import PropagationSpec

    raw = {"resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap"}], **given["spec"]}
    spec, errors = _model_errors(PropagationSpec, raw, "spec")
    if spec is not None:
        errors = [str(e) for e in validate_propagation_spec(spec, given["policy_namespace"], version)]
    _check_validation(expected, errors)


def _validate_placement(
    given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion
) -> None:
    from gitops_karmada.core.inputs.webhook import validate_placement
    from gitops_karmada.model.policies import Placement

    placement, errors = _model_errors(Placement, given["placement"], given["field_path"])
    if placement is not None:
        errors = [str(e) for e in validate_placement(placement, given["field_path"], version)]
    _check_validation(expected, errors)


def _validate_overflow_affinities(
    given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion
) -> None:
    from gitops_karmada.core.inputs.webhook import validate_overflow_affinities
    from gitops_karmada.model.policies import ClusterAffinityTerm

    term, errors = _model_errors(ClusterAffinityTerm, given["term"], given["field_path"])
    if term is not None:
        errors = [str(e) for e in validate_overflow_affinities(term, given["field_path"])]
    _check_validation(expected, errors)


def _validate_workload_affinity(
    given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion
) -> None:
    from gitops_karmada.core.inputs.webhook import validate_workload_affinity
    from gitops_karmada.model.policies import WorkloadAffinity

    raw = given["workloadAffinity"]
    affinity, errors = (
        (None, []) if raw is None else _model_errors(WorkloadAffinity, raw, given["field_path"])
    )
    if not errors:
        errors = [str(e) for e in validate_workload_affinity(affinity, given["field_path"])]
    _check_validation(expected, errors)


def _validate_cluster_tolerations(
    given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion
) -> None:
    from gitops_karmada.core.inputs.webhook import validate_cluster_tolerations
    from gitops_karmada.model.base import Toleration

    errors: list[str] = []
    tolerations = []
    for i, raw in enumerate(given["clusterTolerations"] or ()):
        toleration, problems = _model_errors(Toleration, raw, f"{given['field_path']}[{i}]")
        errors += problems
        tolerations.append(toleration)
    if not errors:
        errors = [str(e) for e in validate_cluster_tolerations(tolerations, given["field_path"], version)]
    _check_validation(expected, errors)


def _is_overflow_scheduling_allowed(
    given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion
) -> None:
    from gitops_karmada.core.inputs.webhook import is_overflow_scheduling_allowed
    from gitops_karmada.model.policies import ReplicaSchedulingStrategy

    raw = given["replicaScheduling"]
    strategy = None if raw is None else ReplicaSchedulingStrategy.model_validate(raw)
    assert is_overflow_scheduling_allowed(strategy) is expected["allowed"]


def _webhook_validate_policy(
    given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion
) -> None:
    from gitops_karmada.core.inputs.webhook import validate_override_spec, validate_propagation_spec
    from gitops_karmada.model.overrides import OverrideSpec
    from gitops_karmada.model.policies import PropagationSpec

    spec = given["policy"]["spec"]
    namespace = given["request_namespace"]
    if given["kind"] in ("OverridePolicy", "ClusterOverridePolicy"):
        errors = validate_override_spec(OverrideSpec.model_validate(spec), namespace, version)
    else:
        errors = validate_propagation_spec(PropagationSpec.model_validate(spec), namespace, version)
    assert (not errors) is expected["allowed"]
    assert "; ".join(str(e) for e in errors) == expected["message"]


def _match_zones(given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion) -> None:
    from gitops_karmada.core.selectors import ZoneMatching, match_zones
    from gitops_karmada.model.policies import FieldSelectorRequirement

    requirement = FieldSelectorRequirement.model_validate(given["expression"])
    got = match_zones(requirement, given["zones"] or (), ZoneMatching.of(version))
    assert got is expected["matches"]


def _workload_affinity_groups(
    given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion
) -> None:
    from gitops_karmada.core.layout import binding_name
    from gitops_karmada.core.scheduler.workload_affinity import affinity_groups
    from gitops_karmada.model.keys import ObjectKey
    from gitops_karmada.model.policies import Placement

    template = given["template"]
    metadata = template["metadata"]
    key = ObjectKey(template["apiVersion"], template["kind"], metadata.get("namespace", ""), metadata["name"])
    groups = affinity_groups(
        template,
        Placement.model_validate(given["placement"]),
        enabled=bool(given["feature_gates"].get("WorkloadAffinity", False)),
        namespaced=bool(key.namespace),
    )
    assert ("ResourceBinding" if key.namespace else "ClusterResourceBinding") == expected["binding_kind"]
    assert binding_name(key) == expected["binding_name"]
    want = expected["workloadAffinityGroups"]
    assert (None if groups is None else groups.to_api()) == (
        None if want is None else {k: v for k, v in want.items() if v}
    )


def _is_multi_template_scheduling_applicable(
    given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion
) -> None:
    from gitops_karmada.core.scheduler.schedule import is_component_set_scheduling
    from gitops_karmada.model.bindings import Component
    from gitops_karmada.model.policies import Placement

    spec = given["spec"] or {}
    placement = spec.get("placement")
    components = [Component.model_validate({"replicas": 1, **c}) for c in spec.get("components") or ()]
    got = placement is not None and is_component_set_scheduling(
        Placement.model_validate(placement), components, True, version
    )
    assert got is expected["applicable"]


def _is_binding_replicas_changed(
    given: Mapping[str, Any], expected: Mapping[str, Any], version: KarmadaVersion
) -> None:
    from gitops_karmada.core.scheduler.triggers import binding_replicas_changed
    from gitops_karmada.model.bindings import Component, TargetCluster
    from gitops_karmada.model.policies import ReplicaSchedulingStrategy

    spec = given["spec"]
    got = binding_replicas_changed(
        replicas=spec.get("replicas", 0),
        components=tuple(Component.model_validate(c) for c in spec.get("components") or ()),
        clusters=tuple(TargetCluster.model_validate(c) for c in spec.get("clusters") or ()),
        strategy=ReplicaSchedulingStrategy.model_validate(given["replicaScheduling"]),
        multiple_pod_templates=bool(given["feature_gates"].get("MultiplePodTemplatesScheduling", False)),
        version=version,
    )
    assert got is expected["changed"]


def _calc_group_score_for_duplicate(
    given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion
) -> None:
    from gitops_karmada.core.scheduler.spread import calc_group_score
    from tests.core.scheduler.builders import detail

    clusters = [
        detail(c["name"], score=c["score"], allocatable=c["availableReplicas"]) for c in given["clusters"]
    ]
    got = calc_group_score(
        clusters, replicas=given["replicas"], duplicated=True, min_groups=0, cluster_min_groups=0
    )
    assert got == expected["score"]


def _newly_healthy_clusters(given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion) -> None:
    from gitops_karmada.core.scheduler.assumptions import newly_healthy_clusters
    from gitops_karmada.model.bindings import AggregatedStatusItem

    old = [AggregatedStatusItem.model_validate(i) for i in given["oldAggregatedStatus"] or ()]
    new = [AggregatedStatusItem.model_validate(i) for i in given["newAggregatedStatus"] or ()]
    assert list(newly_healthy_clusters(old, new)) == (expected["clusters"] or [])


def _release_on_healthy(given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion) -> None:
    from gitops_karmada.core.scheduler.assumptions import release_healthy
    from gitops_karmada.model.bindings import AggregatedStatusItem

    cache = _cache(given["pre_assumptions"])
    old = [AggregatedStatusItem.model_validate(i) for i in given["oldAggregatedStatus"] or ()]
    new = [AggregatedStatusItem.model_validate(i) for i in given["newAggregatedStatus"] or ()]
    cache = release_healthy(
        cache,
        given["binding"]["key"],
        old,
        new,
        enabled=bool(given["feature_gates"].get("SchedulingOvercommitProtection", False)),
    )
    _check_assumed(cache, expected)


def _update_assumptions(given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion) -> None:
    from gitops_karmada.core.scheduler.assumptions import update_assumptions
    from gitops_karmada.model.bindings import Component, ReplicaRequirements, TargetCluster

    binding = given["binding"]
    spec = binding["spec"]
    requirements = spec.get("replicaRequirements")
    cache = update_assumptions(
        _cache(given["pre_assumptions"]),
        binding["key"],
        namespace=spec["resource"]["namespace"],
        template_name=spec["resource"].get("name", ""),
        replicas=spec.get("replicas", 0),
        requirements=None if requirements is None else ReplicaRequirements.model_validate(requirements),
        components=tuple(Component.model_validate(c) for c in spec.get("components") or ()),
        previous=tuple(TargetCluster.model_validate(c) for c in spec.get("clusters") or ()),
        result=tuple(TargetCluster.model_validate(c) for c in given["schedule_result"]),
        enabled=bool(given["feature_gates"].get("SchedulingOvercommitProtection", False)),
        now=0,
    )
    _check_assumed(cache, expected)


def _build_job_completions_map(
    given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion
) -> None:
    from gitops_karmada.core.scheduler.division import job_completions_map
    from gitops_karmada.model.bindings import TargetCluster

    completions = tuple(TargetCluster.model_validate(c) for c in given["completions"])
    assert job_completions_map(completions) == expected["map"]


def _taint_enqueue_decision(given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion) -> None:
    from gitops_karmada.core.codecs.times import parse_time
    from gitops_karmada.core.failover.taints import enqueue_decision
    from gitops_karmada.model.base import Taint

    taints = [Taint.model_validate(t) for t in given["noExecuteTaints"]]
    decision = enqueue_decision(parse_time(given["now"]), taints, given["bindingAnnotations"])
    assert decision.action.value == expected["action"]


def _queue_backoff_duration(given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion) -> None:
    from gitops_karmada.core.scheduler.queue import backoff_duration

    got = backoff_duration(given["attempts"], given["initial_backoff_ns"], given["max_backoff_ns"])
    assert got == expected["duration_ns"]


def _queue_backoff_time(given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion) -> None:
    from gitops_karmada.core.scheduler.queue import backoff_expiry

    binding = given["binding"]
    got = backoff_expiry(
        _ns(binding["timestamp"]), binding["attempts"], given["initial_backoff_ns"], given["max_backoff_ns"]
    )
    assert _rfc3339(got) == expected["backoff_time"]


def _queue_backoff_pop_order(
    given: Mapping[str, Any], expected: Mapping[str, Any], _: KarmadaVersion
) -> None:
    from gitops_karmada.core.scheduler.queue import QueuedBinding, pop_backoff_completed

    now = 1_000 * 1_000_000_000
    queue = [
        QueuedBinding(
            key=b["key"],
            priority=b.get("priority", 0),
            timestamp=now + b["timestamp_offset_s"] * 1_000_000_000,
            attempts=b["attempts"],
        )
        for b in given["backoff_queue"]
    ]
    popped, remaining = pop_backoff_completed(
        queue, now, given["initial_backoff_ns"], given["max_backoff_ns"]
    )
    assert [b.key for b in popped] == expected["popped"]
    assert len(remaining) == expected["remaining"]


RUNNERS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any], KarmadaVersion], None]] = {
    "assumption_cache": _assumption_cache,
    "assign_replicas": _assign_replicas,
    "assign_by_dynamic_strategy": _assign_by_dynamic_strategy,
    "cluster_affinities_walk": _cluster_affinities_walk,
    "scheduler_error_routing": _scheduler_error_routing,
    "build_assumed_workloads_by_cluster": _build_assumed_workloads_by_cluster,
    "deduct_assumed_workloads_from_summary": _deduct_assumed,
    "max_available_replicas": _max_available_replicas,
    "max_available_component_sets": _max_available_component_sets,
    "node_resource_component_sets": _node_resource_component_sets,
    "interpret": _interpret,
    "validate_override_spec": _validate_override_spec,
    "validate_propagation_spec": _validate_propagation_spec,
    "validate_placement": _validate_placement,
    "validate_overflow_affinities": _validate_overflow_affinities,
    "validate_workload_affinity": _validate_workload_affinity,
    "validate_cluster_tolerations": _validate_cluster_tolerations,
    "is_overflow_scheduling_allowed": _is_overflow_scheduling_allowed,
    "webhook_validate_policy": _webhook_validate_policy,
    "match_zones": _match_zones,
    "workload_affinity_groups": _workload_affinity_groups,
    "is_multi_template_scheduling_applicable": _is_multi_template_scheduling_applicable,
    "is_binding_replicas_changed": _is_binding_replicas_changed,
    "calc_group_score_for_duplicate": _calc_group_score_for_duplicate,
    "newly_healthy_clusters": _newly_healthy_clusters,
    "release_on_healthy": _release_on_healthy,
    "update_assumptions": _update_assumptions,
    "build_job_completions_map": _build_job_completions_map,
    "taint_enqueue_decision": _taint_enqueue_decision,
    "queue_backoff_duration": _queue_backoff_duration,
    "queue_backoff_time": _queue_backoff_time,
    "queue_backoff_pop_order": _queue_backoff_pop_order,
}


@pytest.mark.parametrize(("case", "version", "expected"), _runs())
def test_vector(case: dict[str, Any], version: KarmadaVersion, expected: dict[str, Any]) -> None:
    assert version is not NEWEST or _holds_for(case["versions"], version), case["versions"]
    RUNNERS[case["family"]](case["input"], expected, version)


def test_every_case_has_a_runner_and_the_file_is_whole() -> None:
    assert len(CASES) == 70
    assert len({c["id"] for c in CASES}) == 70
    assert {c["family"] for c in CASES} <= set(RUNNERS)
