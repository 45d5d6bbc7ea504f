-- ray.io/v1 RayJob: the components of spec.rayClusterSpec (none without one), health.
-- The submitter pod template is not counted.
local kube = require("kube")

local function ray_components(cluster_spec)
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

function GetComponents(desiredObj)
  return ray_components(get(desiredObj, "spec", "rayClusterSpec"))
end

function InterpretHealth(observedObj)
  local status = observedObj.status
  if type(status) ~= "table" then
    return false
  end
  local deployment, job = status.jobDeploymentStatus, status.jobStatus
  if job == "FAILED" or job == "STOPPED" or deployment == "Failed" or deployment == "ValidationFailed" then
    return false
  end
  return deployment == "Running" or (deployment == "Complete" and job == "SUCCEEDED")
end
