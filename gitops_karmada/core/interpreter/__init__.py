"""Karmada's resource interpreter: customizations (sandboxed Lua) → built-in third-party → native.

Pure: plain objects in, plain data out; failures are ``ResourceInterpretError`` (an ``InterpretError``).
"""

from __future__ import annotations

from gitops_karmada.core.interpreter.chain import ResourceHealth, ResourceInterpreter
from gitops_karmada.core.interpreter.customization import check_customization
from gitops_karmada.core.interpreter.errors import FailureReason, ResourceInterpretError
from gitops_karmada.core.interpreter.lua.sandbox import DEFAULT_LUA_LIMITS, LuaLimits
from gitops_karmada.core.interpreter.operations import DependentObjectReference, Operation

__all__ = [
    "DEFAULT_LUA_LIMITS",
    "DependentObjectReference",
    "FailureReason",
    "LuaLimits",
    "Operation",
    "ResourceHealth",
    "ResourceInterpretError",
    "ResourceInterpreter",
    "check_customization",
]
