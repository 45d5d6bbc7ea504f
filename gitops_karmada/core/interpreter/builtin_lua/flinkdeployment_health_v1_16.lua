-- FlinkDeployment health as Karmada v1.16 and v1.17 judged it (appended after flinkdeployment.lua when the
-- repository follows one of them; v1.18 replaced it with the allow-list of transient errors).
local LEGACY_STARTING = { CREATED = true, INITIALIZING = true, RECONCILING = true }

function InterpretHealth(observedObj)
  local status = observedObj.status
  if type(status) ~= "table" then
    return false
  end
  local state = get(status, "jobStatus", "state")
  if state == nil then
    return status.error ~= nil
  end
  if LEGACY_STARTING[state] then
    return status.error ~= nil or status.jobManagerDeploymentStatus == "ERROR"
  end
  return true
end
