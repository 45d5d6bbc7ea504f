"""The built-in third-party interpreters: Lua scripts shipped with the package (``builtin_lua/``).

They stand for Karmada's ``default/thirdparty/resourcecustomizations`` for the eight multi-component
kinds of v1.16 (components, Flink's legacy replicas, health) and RayService (v1.17+); written for this
project from the specification, run in the same sandbox as user customizations. Each kind's script is
followed by the files of the Karmada version followed that change it (``since``/``until``), then by
``common.lua`` (shared helpers).
"""

from __future__ import annotations

import functools
import importlib.resources
from dataclasses import dataclass

from gitops_karmada.core.interpreter.lua.sandbox import LuaScript
from gitops_karmada.core.interpreter.operations import Operation
from gitops_karmada.core.interpreter.scripted import OwnedScript, ScriptSet
from gitops_karmada.model.versions import NEWEST_VERSION, KarmadaVersion


@dataclass(frozen=True, slots=True)
class BuiltinInterpreter:
    api_version: str
    kind: str
    script_file: str
    operations: frozenset[Operation]
    since: KarmadaVersion = KarmadaVersion.V1_16
    """The first Karmada version that ships the interpreter."""
    until: tuple[tuple[KarmadaVersion, str], ...] = ()
    """Files appended for versions before the one named (their functions replace the script's)."""


_COMPONENT, _REPLICA, _HEALTH = (
    Operation.INTERPRET_COMPONENT,
    Operation.INTERPRET_REPLICA,
    Operation.INTERPRET_HEALTH,
)
_REVISE, _AGGREGATE, _DEPENDENCY = (
    Operation.REVISE_REPLICA,
    Operation.AGGREGATE_STATUS,
    Operation.INTERPRET_DEPENDENCY,
)

BUILTIN_INTERPRETERS: tuple[BuiltinInterpreter, ...] = (
    BuiltinInterpreter(
        "flink.apache.org/v1beta1",
        "FlinkDeployment",
        "flinkdeployment.lua",
        frozenset({_COMPONENT, _REPLICA, _HEALTH}),
        # v1.18 (e6839b4fe): health from an allow-list of transient errors
        until=((KarmadaVersion.V1_18, "flinkdeployment_health_v1_16.lua"),),
    ),
    BuiltinInterpreter(
        "sparkoperator.k8s.io/v1beta2",
        "SparkApplication",
        "sparkapplication.lua",
        frozenset({_COMPONENT, _HEALTH}),
    ),
    BuiltinInterpreter(
        "batch.volcano.sh/v1alpha1", "Job", "volcanojob.lua", frozenset({_COMPONENT, _HEALTH})
    ),
    BuiltinInterpreter("kubeflow.org/v2beta1", "MPIJob", "mpijob.lua", frozenset({_COMPONENT, _HEALTH})),
    BuiltinInterpreter("kubeflow.org/v1", "TFJob", "tfjob.lua", frozenset({_COMPONENT})),
    BuiltinInterpreter("kubeflow.org/v1", "PyTorchJob", "pytorchjob.lua", frozenset({_COMPONENT})),
    BuiltinInterpreter("ray.io/v1", "RayCluster", "raycluster.lua", frozenset({_COMPONENT, _HEALTH})),
    BuiltinInterpreter("ray.io/v1", "RayJob", "rayjob.lua", frozenset({_COMPONENT, _HEALTH})),
    BuiltinInterpreter(
        "ray.io/v1",
        "RayService",
        "rayservice.lua",
        frozenset({_REPLICA, _REVISE, _HEALTH, _AGGREGATE, _DEPENDENCY}),
        since=KarmadaVersion.V1_17,
    ),
)


def _read(file_name: str) -> str:
    package = importlib.resources.files(__package__)
    return package.joinpath("builtin_lua", file_name).read_text(encoding="utf-8")


@functools.cache
def builtin_script_sets(
    version: KarmadaVersion = NEWEST_VERSION,
) -> dict[tuple[str, str], ScriptSet]:
    """Script sets per (apiVersion, kind) of the Karmada ``version`` followed; the package data is read once
    per version."""
    common = _read("common.lua")
    sets: dict[tuple[str, str], ScriptSet] = {}
    for builtin in BUILTIN_INTERPRETERS:
        if not version.at_least(builtin.since):
            continue
        parts = [_read(builtin.script_file)]
        parts += [_read(file) for before, file in builtin.until if not version.at_least(before)]
        owned = OwnedScript(
            owner=f"built-in interpreter for {builtin.api_version}/{builtin.kind}",
            answered_by="thirdparty",
            script=LuaScript(chunk_name=f"thirdparty/{builtin.kind}", source="\n".join([*parts, common])),
        )
        sets[(builtin.api_version, builtin.kind)] = ScriptSet(
            dict.fromkeys(sorted(builtin.operations), (owned,))
        )
    return sets
