-- kubeflow.org/v1 TFJob: components for the PS, Worker, Chief, Master and Evaluator replica specs.
-- Other keys are ignored; a spec without a template gives a component without requirements.
local kube = require("kube")

local ROLES = { { "PS", "ps" }, { "Worker", "worker" }, { "Chief", "chief" }, { "Master", "master" },
  { "Evaluator", "evaluator" } }

function GetComponents(desiredObj)
  local components = {}
  local specs = get(desiredObj, "spec", "tfReplicaSpecs")
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
