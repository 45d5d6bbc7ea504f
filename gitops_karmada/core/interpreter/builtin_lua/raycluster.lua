-- ray.io/v1 RayCluster: the head (always 1 replica) and one component per worker group, health.
-- Unnamed worker groups are worker-1, worker-2, ... (1-based); min/maxReplicas and suspend are not read.

function GetComponents(desiredObj)
  return ray_components(desiredObj.spec)
end

function InterpretHealth(observedObj)
  local conditions = get(observedObj, "status", "conditions")
  return has_true_condition(conditions, "HeadPodReady")
    and has_true_condition(conditions, "RayClusterProvisioned")
    and not has_true_condition(conditions, "RayClusterReplicaFailure")
end
