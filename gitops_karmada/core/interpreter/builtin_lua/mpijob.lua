-- kubeflow.org/v2beta1 MPIJob: one component per mpiReplicaSpecs key, health.
-- Karmada walks the keys with pairs() (random order); we sort them. Specs without a template are skipped.
local kube = require("kube")

function GetComponents(desiredObj)
  local components = {}
  local specs = get(desiredObj, "spec", "mpiReplicaSpecs")
  if type(specs) ~= "table" then
    return components
  end
  for _, key in ipairs(sorted_keys(specs)) do
    local replica_spec = specs[key]
    if type(replica_spec) == "table" and replica_spec.template ~= nil then
      local default_replicas = 1
      if string.lower(key) == "worker" then
        default_replicas = 0
      end
      components[#components + 1] = {
        name = key,
        replicas = to_num(replica_spec.replicas, default_replicas),
        replicaRequirements = kube.accuratePodRequirements(replica_spec.template),
      }
    end
  end
  return components
end

function InterpretHealth(observedObj)
  local conditions = get(observedObj, "status", "conditions")
  if type(conditions) ~= "table" or next(conditions) == nil then
    return false
  end
  return not has_true_condition(conditions, "Failed")
end
