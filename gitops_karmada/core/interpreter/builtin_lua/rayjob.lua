-- ray.io/v1 RayJob: the components of spec.rayClusterSpec (none without one), health.
-- The submitter pod template is not counted.

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
