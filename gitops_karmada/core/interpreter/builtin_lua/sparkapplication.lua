-- sparkoperator.k8s.io/v1beta2 SparkApplication: driver and executor components, health.
-- Memory sizes are Java sizes ("512m" = 512 MiB) plus Spark's overhead, formatted like C's %f.
local JAVA_UNITS = { b = "B", k = "Ki", kb = "Ki", m = "Mi", mb = "Mi", g = "Gi", gb = "Gi", t = "Ti", tb = "Ti",
  p = "Pi", pb = "Pi" }
local UNIT_RANK = { B = 0, Ki = 1, Mi = 2, Gi = 3, Ti = 4, Pi = 5 }
local MIN_OVERHEAD_MIB = 384

local function parse_java_size(text)
  local number, unit = string.match(string.lower(tostring(text)), "^%s*([%d%.]+)%s*(%a+)%s*$")
  local value, k8s_unit = tonumber(number), unit and JAVA_UNITS[unit]
  if value == nil or k8s_unit == nil then
    error("invalid memory size '" .. tostring(text) .. "': expected a number and a unit (b, k, m, g, t, p)", 0)
  end
  return value, k8s_unit
end

local function smaller_unit(a, b)
  if UNIT_RANK[a] < UNIT_RANK[b] then
    return a
  end
  return b
end

local function in_unit(value, from, to)
  return value * 1024 ^ (UNIT_RANK[from] - UNIT_RANK[to])
end

local function total_memory(role, app)
  local memory, unit = parse_java_size(role.memory or "1g")
  local overhead, overhead_unit
  if role.memoryOverhead ~= nil then
    overhead, overhead_unit = parse_java_size(role.memoryOverhead)
  else
    local factor = tonumber(app.memoryOverheadFactor)
    if factor == nil then
      factor = (app.type == "Java" or app.type == "Scala") and 0.10 or 0.40
    end
    overhead_unit = smaller_unit(unit, "Mi")
    overhead = math.max(in_unit(memory, unit, overhead_unit) * factor, in_unit(MIN_OVERHEAD_MIB, "Mi", overhead_unit))
  end
  local total_unit = smaller_unit(unit, overhead_unit)
  local total = in_unit(memory, unit, total_unit) + in_unit(overhead, overhead_unit, total_unit)
  return string.format("%f", total) .. total_unit
end

local function node_claim(role)
  return {
    nodeSelector = deep_copy(role.nodeSelector),
    tolerations = deep_copy(role.tolerations),
    hardNodeAffinity = deep_copy(get(role, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")),
  }
end

local function requirements(role, app)
  local request = { cpu = to_num(role.cores, 1), memory = total_memory(role, app) }
  local gpu = role.gpu
  if type(gpu) == "table" and not is_blank(gpu.name) and to_num(gpu.quantity, 0) > 0 then
    request[gpu.name] = to_num(gpu.quantity, 0)
  end
  local result = { resourceRequest = request, nodeClaim = node_claim(role) }
  if not is_blank(role.priorityClassName) then
    result.priorityClassName = role.priorityClassName
  end
  return result
end

function GetComponents(desiredObj)
  local spec = desiredObj.spec or {}
  if spec.type == nil then
    error("spec.type is required", 0)
  end
  local driver, executor = spec.driver or {}, spec.executor or {}
  local instances = to_num(executor.instances, 1)
  if get(spec, "dynamicAllocation", "enabled") == true then
    local dynamic = spec.dynamicAllocation
    -- maxExecutors does not bound the estimate
    instances = math.max(instances, to_num(dynamic.initialExecutors, 1), to_num(dynamic.minExecutors, 1))
  end
  return {
    { name = "driver", replicas = 1, replicaRequirements = requirements(driver, spec) },
    { name = "executor", replicas = instances, replicaRequirements = requirements(executor, spec) },
  }
end

function InterpretHealth(observedObj)
  local state = get(observedObj, "status", "applicationState", "state")
  return state ~= nil and state ~= "FAILED"
end
