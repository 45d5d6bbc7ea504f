-- Helpers shared by the built-in interpreters. This file is appended after each kind's script, so the
-- kind's line numbers in error messages stay as written; the functions exist by the time one is called.
local kube = require("kube")


-- obj[k1][k2]...; nil as soon as a level is missing or is not a table.
function get(obj, ...)
  local current = obj
  for i = 1, select("#", ...) do
    if type(current) ~= "table" then
      return nil
    end
    current = current[select(i, ...)]
  end
  return current
end

-- A number from a number or a numeric string ("3"); `default` for nil, "" and anything non-numeric.
function to_num(value, default)
  if value == nil or value == "" then
    return default
  end
  local number = tonumber(value)
  if number == nil then
    return default
  end
  return number
end

function is_blank(value)
  return value == nil or value == ""
end

-- Results must not share tables (gopher-json rejects a table seen twice), so copies are handed out.
function deep_copy(value)
  if type(value) ~= "table" then
    return value
  end
  local copy = {}
  for k, v in pairs(value) do
    copy[k] = deep_copy(v)
  end
  return copy
end

-- Keys in byte order: the output must not depend on Lua's table order.
function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do
    keys[#keys + 1] = k
  end
  table.sort(keys, function(a, b)
    return tostring(a) < tostring(b)
  end)
  return keys
end

function has_true_condition(conditions, condition_type)
  if type(conditions) ~= "table" then
    return false
  end
  for _, condition in ipairs(conditions) do
    if type(condition) == "table" and condition.type == condition_type and condition.status == "True" then
      return true
    end
  end
  return false
end

-- RayCluster and RayJob (applied to spec.rayClusterSpec): the head (always 1 replica) and one component
-- per worker group, unnamed groups numbered from 1.
function ray_components(cluster_spec)
  local components = {}
  if type(cluster_spec) ~= "table" then
    return components
  end
  local head = cluster_spec.headGroupSpec
  if type(head) == "table" and head.template ~= nil then
    components[1] = { name = "ray-head", replicas = 1, replicaRequirements = kube.accuratePodRequirements(head.template) }
  end
  for i, group in ipairs(cluster_spec.workerGroupSpecs or {}) do
    local name = group.groupName
    if is_blank(name) then
      name = "worker-" .. i
    end
    local requirements = nil
    if group.template ~= nil then
      requirements = kube.accuratePodRequirements(group.template)
    end
    components[#components + 1] = { name = name, replicas = to_num(group.replicas, 0), replicaRequirements = requirements }
  end
  return components
end

-- Kubeflow's TFJob/PyTorchJob: one component per known replica-spec key, in the given order; a spec
-- without a template gives a component without requirements; other keys are ignored.
function role_components(specs, roles)
  local components = {}
  if type(specs) ~= "table" then
    return components
  end
  for _, role in ipairs(roles) do
    local replica_spec = specs[role[1]]
    if type(replica_spec) == "table" then
      local requirements = nil
      if replica_spec.template ~= nil then
        requirements = kube.accuratePodRequirements(replica_spec.template)
      end
      components[#components + 1] = {
        name = role[2],
        replicas = to_num(replica_spec.replicas, 1),
        replicaRequirements = requirements,
      }
    end
  end
  return components
end
