-- kubeflow.org/v1 PyTorchJob: components for the Master and Worker replica specs (others ignored).

local ROLES = { { "Master", "master" }, { "Worker", "worker" } }

function GetComponents(desiredObj)
  return role_components(get(desiredObj, "spec", "pytorchReplicaSpecs"), ROLES)
end
