-- kubeflow.org/v1 TFJob: components for the PS, Worker, Chief, Master and Evaluator replica specs.
-- Other keys are ignored; a spec without a template gives a component without requirements.

local ROLES = { { "PS", "ps" }, { "Worker", "worker" }, { "Chief", "chief" }, { "Master", "master" },
  { "Evaluator", "evaluator" } }

function GetComponents(desiredObj)
  return role_components(get(desiredObj, "spec", "tfReplicaSpecs"), ROLES)
end
