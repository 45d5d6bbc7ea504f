-- kubeflow.org/v1 PyTorchJob: components for the Master and Worker replica specs (others ignored).
local kube = require("kube")

local ROLES = { { "Master", "master" }, { "Worker", "worker" } }

function GetComponents(desiredObj)
  local components = {}
  local specs = get(desiredObj, "spec", "pytorchReplicaSpecs")
  if type(specs) ~= "table" then
    return components
  end
  for _, role in ipairs(ROLES) do
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
