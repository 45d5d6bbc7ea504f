-- batch.volcano.sh/v1alpha1 Job: one component per task, health.
-- Replicas are the task's minAvailable (what gang scheduling needs at once), not task.replicas.
local kube = require("kube")

function GetComponents(desiredObj)
  local components = {}
  for i, task in ipairs(get(desiredObj, "spec", "tasks") or {}) do
    local name = task.name
    if is_blank(name) then
      name = "task-" .. (i - 1)
    end
    components[#components + 1] = {
      name = name,
      replicas = to_num(task.minAvailable, 1),
      replicaRequirements = kube.accuratePodRequirements(task.template),
    }
  end
  return components
end

local HEALTHY_PHASES = {
  Running = true, Completed = true, Pending = true, Aborting = true, Aborted = true, Restarting = true,
  Completing = true, Terminating = true, Terminated = true,
}

function InterpretHealth(observedObj)
  return HEALTHY_PHASES[get(observedObj, "status", "state", "phase")] == true
end
