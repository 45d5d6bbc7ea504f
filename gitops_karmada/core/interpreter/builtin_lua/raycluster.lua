-- ray.io/v1 RayCluster: the head (always 1 replica) and one component per worker group, health.
-- Unnamed worker groups are worker-1, worker-2, ... (1-based); min/maxReplicas and suspend are not read.
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
  return ray_components(desiredObj.spec)
end

function InterpretHealth(observedObj)
  local conditions = get(observedObj, "status", "conditions")
  return has_true_condition(conditions, "HeadPodReady")
    and has_true_condition(conditions, "RayClusterProvisioned")
    and not has_true_condition(conditions, "RayClusterReplicaFailure")
end
