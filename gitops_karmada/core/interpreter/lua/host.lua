-- Host side of the interpreter sandbox (Lua 5.1). Runs once per runtime with the full standard library,
-- keeps everything dangerous in locals of this chunk and returns the entry points Python uses.
-- Scripts never see these locals: they run with a fresh global table built by new_env() on every call.
--
-- Arguments (from Python): the kube helpers implemented in Python, the instruction limit in units of
-- HOOK_STEP instructions, the instruction cost charged per kube helper call (also in units), the memory
-- (KiB) above which a full collection runs before a call, and an optional time check (nil = none).
local py_requirements, py_dependencies, py_add, py_float, limit_units, kube_call_units, collect_above_kb,
  py_out_of_time = ...

local HOOK_STEP = 1000

local debug_sethook = debug.sethook
local loadstring, setfenv, pcall, error, type, pairs, ipairs, next, tostring, tonumber, select, unpack =
  loadstring, setfenv, pcall, error, type, pairs, ipairs, next, tostring, tonumber, select, unpack
local string_format, string_find, string_gsub, string_byte, string_sub = string.format, string.find,
  string.gsub, string.byte, string.sub
local table_concat = table.concat
local math_floor, math_huge = math.floor, math.huge
local os_date = os.date
local collectgarbage = collectgarbage
local string_metatable = getmetatable("")

-- Nothing below needs the global environment of the host any more: strip it, so that even a leak of a
-- host function's environment would not hand out io/os/debug/python.
for _, name in ipairs({ "io", "os", "debug", "python", "require", "module", "dofile", "loadfile", "load",
  "loadstring", "package", "newproxy", "collectgarbage", "gcinfo", "getfenv", "setfenv", "coroutine" }) do
  _G[name] = nil
end

---------------------------------------------------------------------------------------------------------
-- Instruction budget: a count hook every HOOK_STEP instructions. Once the budget is spent the hook fires
-- on every instruction, so a script that catches the error with pcall cannot run on. `armed` is reset
-- from Python (a raw table write, which runs no Lua code) if the error escapes the host.
local state = { count = 0, limit = 0, exceeded = false, timed_out = false, armed = false, now = nil }
local TIME_CHECK_EVERY = 16 -- hook calls between two time checks (when Python passed a clock)

local function hook()
  if not state.armed then
    return
  end
  state.count = state.count + 1
  if state.count > state.limit then
    state.exceeded = true
    debug_sethook(hook, "", 1)
    error("instruction limit exceeded", 0)
  end
  if py_out_of_time ~= nil and (state.timed_out or state.count % TIME_CHECK_EVERY == 0 and py_out_of_time()) then
    state.timed_out = true
    debug_sethook(hook, "", 1)
    error("time limit exceeded", 0)
  end
end

local function charge(units)
  if state.armed then
    state.count = state.count + units
    if state.count > state.limit then
      state.exceeded = true
      debug_sethook(hook, "", 1)
      error("instruction limit exceeded", 0)
    end
  end
end

local function error_text(err)
  local kind = type(err)
  if kind == "string" then
    return err
  elseif kind == "number" then
    return tostring(err)
  end
  return "(error object is a " .. kind .. " value)"
end

---------------------------------------------------------------------------------------------------------
-- Lua -> JSON with gopher-json's rules (what Karmada's ConvertLuaResultInto feeds to json.Unmarshal):
-- an empty table is [], number keys must be 1..n, the same table twice is an error, no functions.
local escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n",
  ["\r"] = "\\r", ["\t"] = "\\t" }
local function escape_char(c)
  return escapes[c] or string_format("\\u%04x", string_byte(c))
end
local INT64_LIMIT = 2 ^ 63
local MAX_DEPTH = 128 -- as for YAML input: nothing downstream may recurse deeper than this

-- Strings go into the buffer as three pieces (quote, text, quote): no new Lua string per value.
local function push_string(buf, n, s, closing)
  if string_find(s, '[%c"\\]') then
    s = string_gsub(s, '[%c"\\]', escape_char)
  end
  buf[n + 1], buf[n + 2], buf[n + 3] = '"', s, closing
  return n + 3
end

local encode_into
local function encode_table(v, buf, n, seen, depth)
  if seen[v] then
    error("cannot encode recursively nested tables to JSON", 0)
  end
  if depth > MAX_DEPTH then
    error("the result is nested more than " .. MAX_DEPTH .. " levels deep", 0)
  end
  seen[v] = true
  local first_key = next(v)
  if first_key == nil then
    n = n + 1
    buf[n] = "[]"
  elseif type(first_key) == "number" then
    local count = 0
    for k in pairs(v) do
      if type(k) ~= "number" then
        error("cannot encode mixed or invalid key types", 0)
      end
      count = count + 1
    end
    n = n + 1
    buf[n] = "["
    for i = 1, count do
      local item = v[i]
      if item == nil then
        error("cannot encode sparse array", 0)
      end
      if i > 1 then
        n = n + 1
        buf[n] = ","
      end
      n = encode_into(item, buf, n, seen, depth + 1)
    end
    n = n + 1
    buf[n] = "]"
  else
    n = n + 1
    buf[n] = "{"
    local separator = false
    for k, item in pairs(v) do
      if type(k) ~= "string" then
        error("cannot encode mixed or invalid key types", 0)
      end
      if separator then
        n = n + 1
        buf[n] = ","
      end
      separator = true
      n = push_string(buf, n, k, '":')
      n = encode_into(item, buf, n, seen, depth + 1)
    end
    n = n + 1
    buf[n] = "}"
  end
  return n
end

encode_into = function(v, buf, n, seen, depth)
  local kind = type(v)
  if kind == "string" then
    return push_string(buf, n, v, '"')
  elseif kind == "table" then
    return encode_table(v, buf, n, seen, depth)
  end
  n = n + 1
  if kind == "number" then
    if v ~= v then
      error("json: unsupported value: NaN", 0)
    elseif v == math_huge or v == -math_huge then
      error("json: unsupported value: " .. (v > 0 and "+Inf" or "-Inf"), 0)
    elseif v == math_floor(v) and v > -INT64_LIMIT and v < INT64_LIMIT then
      buf[n] = string_format("%d", v) -- whole numbers stay integers, as Go's unstructured decoding makes them
    else
      buf[n] = string_format("%.17g", v)
    end
  elseif kind == "boolean" then
    buf[n] = v and "true" or "false"
  elseif kind == "nil" then
    buf[n] = "null"
  else
    error("cannot encode a " .. kind .. " value to JSON", 0)
  end
  return n
end

local function encode(v)
  local buf = {}
  local n = encode_into(v, buf, 0, {}, 1)
  return table_concat(buf, "", 1, n)
end

---------------------------------------------------------------------------------------------------------
-- The sandbox libraries (Karmada's luavm: package, base, table, a safe string, math, a safe os).
local function copy(t)
  local c = {}
  for k, v in pairs(t) do
    c[k] = v
  end
  return c
end

local function blocked(name)
  return function()
    error("function " .. name .. " is not allowed in the sandbox", 2)
  end
end

local BASE = {
  assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs, pcall = pcall,
  select = select, tonumber = tonumber, type = type, unpack = unpack, xpcall = xpcall,
  _VERSION = _VERSION,
  -- print writes to the controller's stdout in Karmada; here it must not do I/O
  print = function() end,
  -- table/function addresses would make output depend on the allocator: print the type only
  tostring = function(v)
    local kind = type(v)
    if kind == "table" or kind == "function" or kind == "userdata" or kind == "thread" then
      return kind
    end
    return tostring(v)
  end,
}
for _, name in ipairs({ "collectgarbage", "dofile", "getfenv", "getmetatable", "load", "loadfile",
  "loadstring", "rawequal", "rawget", "rawset", "setfenv", "setmetatable", "module", "newproxy" }) do
  BASE[name] = blocked(name)
end

local SAFE_STRING = {}
for _, name in ipairs({ "byte", "char", "find", "format", "gmatch", "gsub", "len", "lower", "match", "rep",
  "reverse", "sub", "upper" }) do
  SAFE_STRING[name] = string[name]
end
-- string.rep("", 1e12) loops in C without allocating, where neither the hook nor the memory limit sees it
local string_rep = string.rep
SAFE_STRING.rep = function(s, n)
  if s == "" and type(n) == "number" then
    return ""
  end
  return string_rep(s, n)
end

local TABLE = {}
for _, name in ipairs({ "concat", "insert", "maxn", "remove", "sort", "getn", "foreach", "foreachi" }) do
  TABLE[name] = table[name]
end

local MATH = copy(math)
MATH.random, MATH.randomseed = nil, nil

-- math.random: Lua's is process-global C rand(); a per-call Park-Miller generator keeps runs reproducible.
local function new_random(lib)
  local seed = 1
  lib.randomseed = function(x)
    x = tonumber(x)
    if x == nil then
      error("bad argument #1 to 'randomseed' (number expected)", 2)
    end
    seed = math_floor(x) % 2147483646 + 1
  end
  lib.random = function(m, n)
    seed = (16807 * seed) % 2147483647
    local r = (seed - 1) / 2147483646
    if m == nil then
      return r
    end
    local position = 2
    if n == nil then
      m, n, position = 1, m, 1
    end
    m, n = math_floor(tonumber(m) or 0), math_floor(tonumber(n) or 0)
    if m > n then
      error("bad argument #" .. position .. " to 'random' (interval is empty)", 2)
    end
    return math_floor(r * (n - m + 1)) + m
  end
end

-- os: Karmada exposes a "safe" os with time and date. The sandbox never reads the clock: "now" is the
-- time the caller injects for the call (the status operations get the run's time), and without one both
-- need an explicit time. Dates are UTC (Karmada's pods run in UTC).
local function days_from_civil(y, m, d)
  if m <= 2 then
    y = y - 1
  end
  local era = math_floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = math_floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math_floor(yoe / 4) - math_floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

local SAFE_OS = {}
SAFE_OS.time = function(t)
  if t == nil then
    if state.now ~= nil then
      return state.now
    end
    error("os.time() needs a date table: this operation gets no current time", 2)
  end
  if type(t) ~= "table" then
    error("bad argument #1 to 'time' (table expected, got " .. type(t) .. ")", 2)
  end
  local function field(key, default)
    local v = t[key]
    if v == nil then
      if default == nil then
        error("field '" .. key .. "' missing in date table", 3)
      end
      return default
    end
    v = tonumber(v)
    if v == nil then
      error("field '" .. key .. "' is not a number", 3)
    end
    return math_floor(v)
  end
  local year, month, day = field("year"), field("month"), field("day")
  local hour, min, sec = field("hour", 12), field("min", 0), field("sec", 0)
  year = year + math_floor((month - 1) / 12)
  month = (month - 1) % 12 + 1
  return ((days_from_civil(year, month, 1) + day - 1) * 24 + hour) * 3600 + min * 60 + sec
end
SAFE_OS.date = function(format, t)
  if t == nil then
    t = state.now
  end
  if t == nil then
    error("os.date() needs a time: this operation gets no current time", 2)
  end
  if format == nil then
    format = "%c"
  end
  if type(format) ~= "string" then
    error("bad argument #1 to 'date' (string expected, got " .. type(format) .. ")", 2)
  end
  if string_sub(format, 1, 1) ~= "!" then
    format = "!" .. format
  end
  return os_date(format, t)
end

---------------------------------------------------------------------------------------------------------
-- kube: Karmada's helper library (luavm/kube.go). The arithmetic lives in Python (exact quantities,
-- Karmada's pod-template rules); these wrappers check arguments and raise errors at the caller's line.
local KUBE = {}

KUBE.accuratePodRequirements = function(template)
  charge(kube_call_units)
  if type(template) ~= "table" then
    error("bad argument #1 to accuratePodRequirements (table expected, got " .. type(template) .. ")", 2)
  end
  local ok, json = pcall(encode, template)
  if not ok then
    error("bad argument #1 to accuratePodRequirements (" .. error_text(json) .. ")", 2)
  end
  local done, result = py_requirements(json)
  if not done then
    error(result, 2)
  end
  return result
end

KUBE.getPodDependencies = function(template, namespace)
  charge(kube_call_units)
  if type(template) ~= "table" then
    error("bad argument #1 to getPodDependencies (table expected, got " .. type(template) .. ")", 2)
  end
  if namespace == nil then
    namespace = "default"
  elseif type(namespace) == "number" then
    namespace = tostring(namespace)
  elseif type(namespace) ~= "string" then
    error("bad argument #2 to getPodDependencies (string expected, got " .. type(namespace) .. ")", 2)
  end
  local ok, json = pcall(encode, template)
  if not ok then
    error("bad argument #1 to getPodDependencies (" .. error_text(json) .. ")", 2)
  end
  local done, result = py_dependencies(json, namespace)
  if not done then
    error(result, 2)
  end
  return result
end

local function check_quantity_args(fname, first, ...)
  for i = first, select("#", ...) do
    local v = select(i, ...)
    if v ~= nil and type(v) ~= "string" then
      error("bad argument #" .. i .. " to " .. fname .. " (string expected, got " .. type(v) .. ")", 3)
    end
  end
end

KUBE.resourceAdd = function(...)
  charge(kube_call_units)
  check_quantity_args("resourceAdd", 1, ...)
  local done, result = py_add(...)
  if not done then
    error(result, 2)
  end
  return result
end

KUBE.getResourceQuantity = function(q)
  charge(kube_call_units)
  check_quantity_args("getResourceQuantity", 1, q)
  if q == nil then
    return 0
  end
  local done, result = py_float(q)
  if not done then
    error(result, 2)
  end
  return result
end

---------------------------------------------------------------------------------------------------------
-- A fresh global table for every call: scripts cannot leave state behind or change shared libraries.
local function new_env()
  local env = copy(BASE)
  local str, tbl, mth, os_lib, kube = copy(SAFE_STRING), copy(TABLE), copy(MATH), copy(SAFE_OS), copy(KUBE)
  new_random(mth)
  env.string, env.table, env.math, env.os = str, tbl, mth, os_lib
  local loaded = { string = str, table = tbl, math = mth, os = os_lib, kube = kube, _G = env }
  env.package = { loaded = loaded, preload = {} }
  env.require = function(name)
    local mod = loaded[name]
    if mod == nil then
      error("module '" .. tostring(name) .. "' not found", 2)
    end
    return mod
  end
  env._G = env
  -- method calls on strings ("x"):upper() must see this call's string table, not the real one
  string_metatable.__index = str
  return env
end

local function compile(source, chunk_name)
  if string_byte(source, 1) == 27 then
    return nil, "precompiled Lua bytecode is not accepted"
  end
  local fn, err = loadstring(source, "=" .. chunk_name)
  return fn, err
end

-- A new budget for one call (the chunk's top level and the entry function share it).
local function reset()
  -- Lua 5.1 has no emergency collection: start a call with garbage collected if memory is filling up
  if collectgarbage("count") > collect_above_kb then
    collectgarbage("collect")
  end
  state.count, state.limit, state.exceeded, state.timed_out = 0, limit_units, false, false
end

local function arm()
  debug_sethook(hook, "", HOOK_STEP)
  state.armed = true
end

local function disarm()
  state.armed = false
  debug_sethook()
end

-- Define the script's functions in a fresh environment; nil + message when the chunk fails.
local function load_env(chunk)
  local env = new_env()
  setfenv(chunk, env)
  arm()
  local ok, err = pcall(chunk)
  disarm()
  if not ok then
    return nil, error_text(err)
  end
  return env
end

-- Run `function_name` of a compiled chunk. Returns "ok" and the results as JSON texts, or
-- "script"/"result" and a message (a failure of the script, or a result JSON cannot represent).
local function run(chunk, function_name, nret, now, ...)
  reset()
  state.now = now
  local env, err = load_env(chunk)
  if env == nil then
    return "script", err
  end
  local fn = env[function_name]
  if fn == nil then
    return "script", "can't get function " .. function_name .. ", please check the function name"
  end
  arm()
  local results = { pcall(fn, ...) }
  disarm()
  if not results[1] then
    return "script", error_text(results[2])
  end
  local out = {}
  for i = 1, nret do
    local ok, json = pcall(encode, results[i + 1])
    if not ok then
      return "result", error_text(json)
    end
    out[i] = json
  end
  return "ok", unpack(out, 1, nret)
end

-- Which of `names` the chunk defines as functions (for the offline check).
local function defined_functions(chunk, names)
  reset()
  local env, err = load_env(chunk)
  if env == nil then
    return "script", err
  end
  local found = {}
  for i = 1, #names do
    found[i] = type(env[names[i]]) == "function"
  end
  return "ok", found
end

return {
  compile = compile,
  run = run,
  defined_functions = defined_functions,
  state = state,
}
