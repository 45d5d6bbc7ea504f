"""The built-in third-party interpreters: Lua scripts shipped with the package (``builtin_lua/``).

They stand for Karmada's ``default/thirdparty/resourcecustomizations`` for the eight multi-component
kinds of v1.16 (components, Flink's legacy replicas, health); written for this project, run in the same
sandbox as user customizations. Each kind's script is followed by ``common.lua`` (shared helpers).
"""

from __future__ import annotations

import functools
import importlib.resources
from dataclasses import dataclass

from gitops_karmada.core.interpreter.lua.sandbox import LuaScript
from gitops_karmada.core.interpreter.operations import Operation
from gitops_karmada.core.interpreter.scripted import OwnedScript, ScriptSet


@dataclass(frozen=True, slots=True)
class BuiltinInterpreter:
    api_version: str
    kind: str
    script_file: str
    operations: frozenset[Operation]


_COMPONENT, _REPLICA, _HEALTH = (
    Operation.INTERPRET_COMPONENT,
    Operation.INTERPRET_REPLICA,
    Operation.INTERPRET_HEALTH,
)

BUILTIN_INTERPRETERS: tuple[BuiltinInterpreter, ...] = (
    BuiltinInterpreter(
        "flink.apache.org/v1beta1",
        "FlinkDeployment",
        "flinkdeployment.lua",
        frozenset({_COMPONENT, _REPLICA, _HEALTH}),
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
)


def _read(file_name: str) -> str:
    package = importlib.resources.files(__package__)
    return package.joinpath("builtin_lua", file_name).read_text(encoding="utf-8")


@functools.cache
def builtin_script_sets() -> dict[tuple[str, str], ScriptSet]:
    """Script sets per (apiVersion, kind); the package data is read once."""
    common = _read("common.lua")
    sets: dict[tuple[str, str], ScriptSet] = {}
    for builtin in BUILTIN_INTERPRETERS:
        owned = OwnedScript(
            owner=f"built-in interpreter for {builtin.api_version}/{builtin.kind}",
            answered_by="thirdparty",
            script=LuaScript(
                chunk_name=f"thirdparty/{builtin.kind}", source=_read(builtin.script_file) + "\n" + common
            ),
        )
        sets[(builtin.api_version, builtin.kind)] = ScriptSet(
            dict.fromkeys(sorted(builtin.operations), (owned,))
        )
    return sets
