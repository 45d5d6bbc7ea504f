-- ray.io/v1 RayService (built in since Karmada v1.17): a single-template workload (no components), written
-- from the specification (karmada-1.17-1.19.md section 11.1). The RayCluster it runs is spec.rayClusterConfig:
-- one head pod and the worker groups' pods.
local kube = require("kube")

local function cluster_config(obj)
  local config = get(obj, "spec", "rayClusterConfig")
  if type(config) ~= "table" then
    return nil
  end
  return config
end

local function worker_groups(config)
  local groups = config.workerGroupSpecs
  if type(groups) ~= "table" then
    return {}
  end
  return groups
end

-- The larger of two quantity strings, compared numerically (nil loses).
local function larger(current, candidate)
  if candidate == nil then
    return current
  end
  if current == nil or kube.getResourceQuantity(candidate) > kube.getResourceQuantity(current) then
    return candidate
  end
  return current
end

-- Replicas: the head and every worker. Requirements: the head's (its node claim included), with cpu and
-- memory each raised to the largest request of any pod template, head or worker (a group of 0 replicas
-- counts too); none when the head itself has none.
function GetReplicas(desiredObj)
  local config = cluster_config(desiredObj)
  local head_template = get(config, "headGroupSpec", "template")
  if config == nil or head_template == nil then
    return 0, nil
  end
  local replicas = 1
  local requirements = kube.accuratePodRequirements(head_template)
  local largest = {}
  if requirements ~= nil and type(requirements.resourceRequest) == "table" then
    largest.cpu = requirements.resourceRequest.cpu
    largest.memory = requirements.resourceRequest.memory
  end
  for _, group in ipairs(worker_groups(config)) do
    replicas = replicas + to_num(group.replicas, 0)
    if group.template ~= nil then
      local worker = kube.accuratePodRequirements(group.template)
      local request = get(worker, "resourceRequest")
      if type(request) == "table" then
        largest.cpu = larger(largest.cpu, request.cpu)
        largest.memory = larger(largest.memory, request.memory)
      end
    end
  end
  if requirements == nil then
    return replicas, nil
  end
  requirements.resourceRequest = requirements.resourceRequest or {}
  requirements.resourceRequest.cpu = largest.cpu
  requirements.resourceRequest.memory = largest.memory
  return replicas, requirements
end

-- n replicas: the head and n - 1 workers over the groups; one group takes them all, several share them
-- in proportion to what they run (equally when they run none), the last group taking what is left.
function ReviseReplica(obj, desiredReplica)
  local config = cluster_config(obj)
  if config == nil then
    return obj
  end
  local groups = worker_groups(config)
  local count = #groups
  if count == 0 then
    return obj
  end
  local workers = math.max(0, desiredReplica - 1)
  if count == 1 then
    groups[1].replicas = workers
    return obj
  end
  if workers == 0 then
    for _, group in ipairs(groups) do
      group.replicas = 0
    end
    return obj
  end
  local total = 0
  for _, group in ipairs(groups) do
    total = total + to_num(group.replicas, 0)
  end
  local given = 0
  for i = 1, count - 1 do
    local share
    if total == 0 then
      share = math.floor(workers / count)
      if i <= workers % count then
        share = share + 1
      end
    else
      share = math.floor(workers * to_num(groups[i].replicas, 0) / total + 0.5)
    end
    groups[i].replicas = share
    given = given + share
  end
  groups[count].replicas = workers - given
  return obj
end

function InterpretHealth(observedObj)
  return has_true_condition(get(observedObj, "status", "conditions"), "Ready")
end

local APPLICATION_SEVERITY = {
  RUNNING = 1, NOT_STARTED = 2, DEPLOYING = 3, DELETING = 4, UNHEALTHY = 5, DEPLOY_FAILED = 6,
}

local function severity(application)
  return APPLICATION_SEVERITY[get(application, "status")] or 0
end

-- The first item's active service status, each application's entry replaced by the worst one reported.
local function merged_active_status(statuses)
  local merged = nil
  for _, status in ipairs(statuses) do
    local applications = get(status, "activeServiceStatus", "applicationStatuses")
    if type(applications) == "table" then
      if merged == nil then
        merged = deep_copy(status.activeServiceStatus)
      else
        for _, name in ipairs(sorted_keys(applications)) do
          local current = merged.applicationStatuses[name]
          if current == nil or severity(applications[name]) > severity(current) then
            merged.applicationStatuses[name] = deep_copy(applications[name])
          end
        end
      end
    end
  end
  return merged
end

function AggregateStatus(desiredObj, statusItems)
  desiredObj.spec = nil
  local statuses = {}
  for _, item in ipairs(statusItems or {}) do
    if type(item.status) == "table" then
      statuses[#statuses + 1] = item.status
    end
  end
  if #statuses == 0 then
    return desiredObj
  end
  if #statuses == 1 then
    desiredObj.status = deep_copy(statuses[1])
    return desiredObj
  end
  local status = { conditions = {}, numServeEndpoints = 0, serviceStatus = "Running" }
  for _, item in ipairs(statuses) do
    for _, condition in ipairs(item.conditions or {}) do
      status.conditions[#status.conditions + 1] = deep_copy(condition)
    end
    status.numServeEndpoints = status.numServeEndpoints + to_num(item.numServeEndpoints, 0)
    if item.lastUpdateTime ~= nil and (status.lastUpdateTime == nil or item.lastUpdateTime > status.lastUpdateTime) then
      status.lastUpdateTime = item.lastUpdateTime
    end
    local generation = to_num(item.observedGeneration, nil)
    if generation ~= nil and (status.observedGeneration == nil or generation > status.observedGeneration) then
      status.observedGeneration = generation
    end
    if is_blank(item.serviceStatus) then
      status.serviceStatus = ""
    end
    if status.pendingServiceStatus == nil and item.pendingServiceStatus ~= nil then
      status.pendingServiceStatus = deep_copy(item.pendingServiceStatus)
    end
  end
  status.activeServiceStatus = merged_active_status(statuses)
  desiredObj.status = status
  return desiredObj
end

-- What the head and worker pods need (service account, secrets, config maps, volumes...), once each.
function GetDependencies(desiredObj)
  local config = cluster_config(desiredObj)
  local namespace = get(desiredObj, "metadata", "namespace") or ""
  local found, seen = {}, {}
  local function add(template)
    if type(template) ~= "table" then
      return
    end
    for _, reference in ipairs(kube.getPodDependencies(template, namespace) or {}) do
      local key = (reference.apiVersion or "") .. "/" .. (reference.kind or "") .. "/" .. (reference.name or "")
      if not seen[key] then
        seen[key] = true
        found[#found + 1] = reference
      end
    end
  end
  if config ~= nil then
    add(get(config, "headGroupSpec", "template"))
    for _, group in ipairs(worker_groups(config)) do
      add(group.template)
    end
  end
  return found
end
