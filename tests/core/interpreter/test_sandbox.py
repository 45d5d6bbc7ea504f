"""The Lua sandbox: hostile scripts are stopped with a clear error and the interpreter keeps working."""

from __future__ import annotations

import time
from pathlib import Path
from types import MappingProxyType

import pytest

from gitops_karmada.core.interpreter import (
    FailureReason,
    LuaLimits,
    Operation,
    ResourceInterpreter,
    ResourceInterpretError,
)
from gitops_karmada.core.interpreter.lua.sandbox import LuaFailure, LuaSandbox, LuaScript
from tests.core.interpreter.builders import customization, widget

LIMITS = LuaLimits(max_instructions=2_000_000, max_memory=8 * 1024 * 1024)

BENIGN_REPLICAS = """
function GetReplicas(obj)
  return obj.spec.size, {resourceRequest = {cpu = "250m"}}
end
"""

HOSTILE = [
    ("infinite-loop", "while true do end", FailureReason.INSTRUCTION_LIMIT, "instruction limit"),
    (
        "loop-catching-the-limit-with-pcall",
        "while true do pcall(function() while true do end end) end",
        FailureReason.INSTRUCTION_LIMIT,
        "instruction limit",
    ),
    (
        "deep-recursion",
        "local function f(n) return 1 + f(n + 1) end return f(1)",
        FailureReason.SCRIPT_ERROR,
        "stack overflow",
    ),
    ("os-execute", 'return os.execute("touch /tmp/pwned")', FailureReason.SCRIPT_ERROR, "execute"),
    ("os-exit", "os.exit(1)", FailureReason.SCRIPT_ERROR, "exit"),
    ("os-getenv", 'return os.getenv("HOME")', FailureReason.SCRIPT_ERROR, "getenv"),
    ("io-open", 'return io.open("/etc/passwd")', FailureReason.SCRIPT_ERROR, "'io'"),
    ("require-io", 'return require("io")', FailureReason.SCRIPT_ERROR, "module 'io' not found"),
    ("require-os-execute", 'return require("os").execute("ls")', FailureReason.SCRIPT_ERROR, "execute"),
    ("require-debug", 'return require("debug")', FailureReason.SCRIPT_ERROR, "module 'debug' not found"),
    ("load", 'return load("return 1")', FailureReason.SCRIPT_ERROR, "load is not allowed"),
    ("loadstring", 'local f = loadstring("return 1") return f()', FailureReason.SCRIPT_ERROR, "not allowed"),
    ("dofile", 'local x = dofile("/etc/passwd") return x', FailureReason.SCRIPT_ERROR, "not allowed"),
    ("setmetatable", "local t = setmetatable({}, {}) return t", FailureReason.SCRIPT_ERROR, "not allowed"),
    ("getmetatable", 'local m = getmetatable("") return m', FailureReason.SCRIPT_ERROR, "not allowed"),
    ("rawset", "local t = rawset({}, 1, 2) return t", FailureReason.SCRIPT_ERROR, "not allowed"),
    ("setfenv", "local f = setfenv(1, {}) return f", FailureReason.SCRIPT_ERROR, "not allowed"),
    (
        "collectgarbage",
        'local n = collectgarbage("count") return n',
        FailureReason.SCRIPT_ERROR,
        "not allowed",
    ),
    ("debug-library", "return debug.sethook()", FailureReason.SCRIPT_ERROR, "'debug'"),
    ("python-bridge", 'return python.eval("1")', FailureReason.SCRIPT_ERROR, "'python'"),
    ("coroutine", "return coroutine.create(function() end)", FailureReason.SCRIPT_ERROR, "'coroutine'"),
    (
        "huge-string",
        'local s = string.rep("x", 2^30) return #s > 0',
        FailureReason.MEMORY_LIMIT,
        "memory limit",
    ),
    (
        "huge-table",
        'local t = {} for i = 1, 1e7 do t[i] = string.rep("y", 4096 + i) end return true',
        FailureReason.MEMORY_LIMIT,
        "memory limit",
    ),
    ("string-dump", "return string.dump(function() end)", FailureReason.SCRIPT_ERROR, "dump"),
    (
        "empty-string-repeated-forever",
        'local s = string.rep("", 1e15) .. (""):rep(1e15) while true do end',
        FailureReason.INSTRUCTION_LIMIT,
        "instruction limit",
    ),
]


@pytest.mark.parametrize(
    ("body", "reason", "fragment"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE]
)
def test_hostile_script_is_stopped_and_the_interpreter_goes_on(
    body: str, reason: FailureReason, fragment: str
) -> None:
    ric = customization(
        "hostile",
        healthInterpretation=f"function InterpretHealth(obj)\n  {body}\nend",
        replicaResource=BENIGN_REPLICAS,
    )
    interpreter = ResourceInterpreter([ric], limits=LIMITS)

    with pytest.raises(ResourceInterpretError) as raised:
        interpreter.interpret_health(widget())

    error = raised.value
    assert error.reason is reason
    assert fragment in error.cause
    assert 'ResourceInterpreterCustomization "hostile"' in str(error)
    assert "InterpretHealth" in str(error)
    assert "Traceback" not in str(error) and "stack traceback" not in str(error)
    # the same interpreter (and, but for a memory error, the same Lua runtime) serves the next object
    replicas, requirements = interpreter.get_replicas(widget(size=4))
    assert replicas == 4
    assert requirements is not None and str(requirements.resource_request["cpu"]) == "250m"


def test_lua_runtime_error_names_customization_operation_and_line() -> None:
    ric = customization(
        "broken-health", healthInterpretation="function InterpretHealth(obj)\n  return obj.status.x.y\nend"
    )
    with pytest.raises(ResourceInterpretError) as raised:
        ResourceInterpreter([ric], limits=LIMITS).interpret_health(widget())
    assert str(raised.value) == (
        'ResourceInterpreterCustomization "broken-health": '
        "InterpretHealth of example.io/v1/Widget ns/w failed: "
        "broken-health/healthInterpretation:2: attempt to index field 'status' (a nil value)"
    )
    assert raised.value.reason is FailureReason.SCRIPT_ERROR


def test_syntax_error_is_reported_as_a_script_error() -> None:
    ric = customization("typo", healthInterpretation="function InterpretHealth(obj) return end end")
    with pytest.raises(ResourceInterpretError) as raised:
        ResourceInterpreter([ric], limits=LIMITS).interpret_health(widget())
    assert raised.value.reason is FailureReason.SCRIPT_ERROR
    assert "typo/healthInterpretation:1:" in raised.value.cause


def test_missing_entry_function_uses_karmadas_message() -> None:
    ric = customization("wrong-name", healthInterpretation="function Healthy(obj) return true end")
    with pytest.raises(ResourceInterpretError) as raised:
        ResourceInterpreter([ric], limits=LIMITS).interpret_health(widget())
    assert raised.value.cause == "can't get function InterpretHealth, please check the function name"


def test_precompiled_bytecode_is_refused() -> None:
    sandbox = LuaSandbox(LIMITS)
    with pytest.raises(LuaFailure) as raised:
        sandbox.call(LuaScript("bytecode", "\x1bLua\x51\x00"), "F", (), 1)
    assert "bytecode" in raised.value.message


def test_globals_do_not_survive_between_calls() -> None:
    script = LuaScript(
        "stateful",
        "function Count(x) counter = (counter or 0) + x; string.evil = true; return counter end\n"
        "function Probe() return string.evil == nil end",
    )
    sandbox = LuaSandbox(LIMITS)
    assert sandbox.call(script, "Count", (1,), 1) == [1]
    assert sandbox.call(script, "Count", (2,), 1) == [2]
    assert sandbox.call(script, "Probe", (), 1) == [True]


def test_answers_are_cached_per_script_and_arguments() -> None:
    script = LuaScript("cached", "function F(obj) obj.n = obj.n + 1 return obj end")
    sandbox = LuaSandbox(LIMITS)
    first = sandbox.call(script, "F", ({"n": 1},), 1)
    first[0]["n"] = 100  # a caller's change must not leak into the next answer
    assert sandbox.call(script, "F", ({"n": 1},), 1) == [{"n": 2}]
    assert sandbox.call(script, "F", ({"n": 5},), 1) == [{"n": 6}]


def test_output_does_not_depend_on_addresses_the_clock_or_process_randomness() -> None:
    script = LuaScript(
        "deterministic",
        "function F() return tostring({}), tostring(print), math.random(1000), math.random() end\n"
        "function Date()\n"
        "  local t = os.time({year = 2024, month = 2, day = 29, hour = 13})\n"
        '  return os.date("%Y-%m-%dT%H:%M:%S", t)\n'
        "end\n"
        "function Now() return os.time(), os.date('%Y-%m-%dT%H:%M:%SZ') end",
    )
    sandbox = LuaSandbox(LIMITS)
    first = sandbox.call(script, "F", (), 4)
    assert first[:2] == ["table", "function"]
    assert sandbox.call(script, "F", (), 4) == first
    assert LuaSandbox(LIMITS).call(script, "F", (), 4) == first
    assert sandbox.call(script, "Date", (), 1) == ["2024-02-29T13:00:00"]
    with pytest.raises(LuaFailure, match="this operation gets no current time"):
        sandbox.call(script, "Now", (), 2)
    # the time the caller injects, never the host's clock
    assert sandbox.call(script, "Now", (), 2, now=1709211600) == [1709211600, "2024-02-29T13:00:00Z"]


def test_string_methods_and_number_printing_follow_lua_5_1() -> None:
    script = LuaScript(
        "strings",
        "function F()\n"
        '  return ("abc"):upper(), tostring(3), tostring(10 / 4), 7 / 7, string.format("%d", 3)\n'
        "end",
    )
    assert LuaSandbox(LIMITS).call(script, "F", (), 5) == ["ABC", "3", "2.5", 1, "3"]


def test_in_process_wall_time_limit_uses_the_clock_from_the_caller() -> None:
    ticks = iter(range(1_000_000))
    limits = LuaLimits(
        max_instructions=10**9,
        max_memory=8 * 1024 * 1024,
        max_seconds=5,
        clock=lambda: next(ticks),
        isolated=False,
    )
    script = LuaScript("slow", "function F() while true do end end")
    with pytest.raises(LuaFailure) as raised:
        LuaSandbox(limits).call(script, "F", (), 1)
    assert raised.value.reason is FailureReason.TIME_LIMIT


def test_operations_are_answered_by_the_customization() -> None:
    ric = customization("ok", healthInterpretation="function InterpretHealth(obj) return obj.spec.ok end")
    interpreter = ResourceInterpreter([ric], limits=LIMITS)
    assert (
        interpreter.answered_by("example.io/v1", "Widget", Operation.INTERPRET_HEALTH) == "customization/ok"
    )
    assert interpreter.interpret_health(widget(ok=True)) is True
    assert interpreter.interpret_health(widget(ok=False)) is False


def test_read_only_mappings_are_accepted_and_python_objects_are_not() -> None:
    script = LuaScript("echo", "function F(obj) return obj end")
    sandbox = LuaSandbox(LIMITS)
    assert sandbox.call(script, "F", (MappingProxyType({"a": (1, 2)}),), 1) == [{"a": [1, 2]}]
    with pytest.raises(LuaFailure) as raised:
        sandbox.call(script, "F", ({"a": object()},), 1)
    assert raised.value.reason is FailureReason.INVALID_OBJECT


NEVER_RETURNS = [
    (
        "xpcall-handler-loop",
        "function F() xpcall(function() error('x') end, function() while true do end end) return 1 end",
    ),
    (
        "backtracking-pattern",
        "function F() return string.find(string.rep('a', 5000), '.-.-.-.-.-.-.-.-x') end",
    ),
    ("huge-rep-in-pcall-loop", "function F() for i = 1, 100000 do pcall(string.rep, 'x', 1e9) end end"),
]


@pytest.mark.parametrize(("name", "source"), NEVER_RETURNS, ids=[n for n, _ in NEVER_RETURNS])
def test_a_call_the_instruction_count_cannot_stop_is_stopped_by_the_wall_clock(
    name: str, source: str
) -> None:
    sandbox = LuaSandbox(LuaLimits(call_seconds=0.3))
    with pytest.raises(LuaFailure) as raised:
        sandbox.call(LuaScript(name, source), "F", (), 1)
    assert raised.value.reason is FailureReason.TIME_LIMIT
    assert raised.value.message == "time limit of 0.3 s exceeded (the call never returned)"
    # the worker was replaced: the same sandbox answers the next call
    assert sandbox.call(LuaScript("ok", "function F(n) return n + 1 end"), "F", (1,), 1) == [2]


def test_calls_of_one_run_share_the_run_time_budget() -> None:
    sandbox = LuaSandbox(LuaLimits(call_seconds=0.3, run_seconds=0.5))
    hang = LuaScript("hang", NEVER_RETURNS[0][1])
    with pytest.raises(LuaFailure, match=r"time limit of 0\.3 s exceeded"):
        sandbox.call(hang, "F", (), 1)
    with pytest.raises(LuaFailure, match=r"Lua time budget of 0\.5 s is spent"):
        sandbox.call(hang, "F", (), 1)  # stopped after what was left of the budget
    with pytest.raises(LuaFailure, match=r"Lua time budget of 0\.5 s is spent") as raised:
        sandbox.call(LuaScript("ok", "function F() return 1 end"), "F", (), 1)  # refused at once
    assert raised.value.reason is FailureReason.TIME_LIMIT
    # another run (another sandbox) has a budget of its own
    assert LuaSandbox(LuaLimits(run_seconds=0.5)).call(
        LuaScript("ok", "function F() return 1 end"), "F", (), 1
    ) == [1]


def test_a_worker_killed_from_outside_fails_its_call_with_the_exit_code_and_is_replaced() -> None:
    import os
    import signal
    import threading

    from gitops_karmada.core.interpreter.lua import worker

    sandbox = LuaSandbox(LuaLimits(call_seconds=5))
    echo = LuaScript("echo", "function F(n) return n end")
    assert sandbox.call(echo, "F", (1,), 1) == [1]
    assert worker._worker is not None
    pid = worker._worker.process.pid
    assert pid is not None
    # as the kernel's OOM killer would, in the middle of a call
    threading.Timer(0.2, os.kill, (pid, signal.SIGKILL)).start()
    with pytest.raises(LuaFailure, match=r"the Lua worker process ended \(exit code -9\)"):
        sandbox.call(LuaScript("hang", NEVER_RETURNS[0][1]), "F", (), 1)
    # reaped by the failed call, not left a zombie: a zombie keeps its /proc entry until it is waited for
    assert not Path(f"/proc/{pid}").exists()
    assert sandbox.call(echo, "F", (2,), 1) == [2]
    # a worker that died between calls is replaced before the next one (and reaped then)
    replacement = worker._worker
    assert replacement.process.pid is not None
    assert replacement.process.pid != pid
    os.kill(replacement.process.pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while Path(f"/proc/{replacement.process.pid}/stat").read_text().split(") ")[1][0] != "Z":
        assert time.monotonic() < deadline, "the killed worker never ended"
        time.sleep(0.01)
    assert sandbox.call(echo, "F", (3,), 1) == [3]
    assert not Path(f"/proc/{replacement.process.pid}").exists(), "left a zombie"


def test_in_process_and_worker_answers_are_the_same() -> None:
    script = LuaScript(
        "mixed",
        "function F(obj) return obj.spec.size * 2, {a = {1, 2, 3}, b = 'x'}, nil end",
    )
    args = ({"spec": {"size": 4}},)
    isolated = LuaSandbox(LIMITS).call(script, "F", args, 3)
    local = LuaSandbox(LuaLimits(max_instructions=2_000_000, max_memory=8 * 1024 * 1024, isolated=False))
    assert isolated == local.call(script, "F", args, 3) == [8, {"a": [1, 2, 3], "b": "x"}, None]
