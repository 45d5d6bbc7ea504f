-- flink.apache.org/v1beta1 FlinkDeployment: components (v1.17+ rules), legacy replicas, health.
-- Memory goes through kube.getResourceQuantity, i.e. Kubernetes quantity rules: "1024m" is 1.024 bytes,
-- not Flink's 1024 MiB (Karmada issue #7643), which this reproduces.
local kube = require("kube")

local function taskmanager_replicas(spec)
  local replicas = to_num(get(spec, "taskManager", "replicas"), nil)
  if replicas ~= nil then
    return replicas
  end
  local parallelism = to_num(get(spec, "job", "parallelism"), nil)
  local slots = to_num(get(spec, "flinkConfiguration", "taskmanager.numberOfTaskSlots"), nil)
  if parallelism == nil or slots == nil or slots == 0 then
    return 1
  end
  return math.ceil(parallelism / slots)
end

-- nodeSelector/tolerations of spec.podTemplate.spec as a node claim (nil when neither is set) and the
-- priority class (nil when blank). Affinity and the per-component pod templates are not read.
local function pod_template_claim(spec)
  local pod_spec = get(spec, "podTemplate", "spec")
  if type(pod_spec) ~= "table" then
    return nil, nil
  end
  local claim = nil
  if pod_spec.nodeSelector ~= nil or pod_spec.tolerations ~= nil then
    claim = { nodeSelector = deep_copy(pod_spec.nodeSelector), tolerations = deep_copy(pod_spec.tolerations) }
  end
  local priority = nil
  if not is_blank(pod_spec.priorityClassName) then
    priority = pod_spec.priorityClassName
  end
  return claim, priority
end

local function component(name, replicas, resource, spec)
  local request = {}
  if type(resource) == "table" then
    if resource.cpu ~= nil then
      request.cpu = resource.cpu
    end
    if resource.memory ~= nil then
      request.memory = kube.getResourceQuantity(resource.memory)
    end
  end
  local claim, priority = pod_template_claim(spec)
  return {
    name = name,
    replicas = replicas,
    replicaRequirements = { resourceRequest = request, nodeClaim = claim, priorityClassName = priority },
  }
end

function GetComponents(desiredObj)
  local spec = desiredObj.spec or {}
  return {
    component("jobmanager", to_num(get(spec, "jobManager", "replicas"), 1), get(spec, "jobManager", "resource"), spec),
    component("taskmanager", taskmanager_replicas(spec), get(spec, "taskManager", "resource"), spec),
  }
end

-- Legacy single-template view: jm + tm replicas, the larger cpu, and the memory string (as written) of
-- the component with the numerically larger memory (a tie goes to the taskmanager).
function GetReplicas(desiredObj)
  local spec = desiredObj.spec or {}
  local replicas = to_num(get(spec, "jobManager", "replicas"), 1) + taskmanager_replicas(spec)
  local jm_cpu, tm_cpu = get(spec, "jobManager", "resource", "cpu"), get(spec, "taskManager", "resource", "cpu")
  local jm_memory = get(spec, "jobManager", "resource", "memory")
  local tm_memory = get(spec, "taskManager", "resource", "memory")
  local request = {}
  if jm_cpu ~= nil and tm_cpu ~= nil then
    request.cpu = math.max(jm_cpu, tm_cpu)
  else
    request.cpu = jm_cpu or tm_cpu
  end
  if jm_memory ~= nil and tm_memory ~= nil then
    if kube.getResourceQuantity(jm_memory) > kube.getResourceQuantity(tm_memory) then
      request.memory = jm_memory
    else
      request.memory = tm_memory
    end
  else
    request.memory = jm_memory or tm_memory
  end
  local claim, priority = pod_template_claim(spec)
  return replicas, {
    resourceRequest = request,
    nodeClaim = claim,
    priorityClassName = priority,
    namespace = get(desiredObj, "metadata", "namespace"),
  }
end

local RUNNING_OR_SETTLED = {
  RUNNING = true, FINISHED = true, FAILED = true, CANCELED = true, SUSPENDED = true,
  CANCELLING = true, FAILING = true, RESTARTING = true,
}
local STARTING = { CREATED = true, INITIALIZING = true, RECONCILING = true }
local IMAGE_OR_CRASH_ERRORS = { "ErrImagePull", "ImagePullBackOff", "CrashLoopBackOff" }

function InterpretHealth(observedObj)
  local status = observedObj.status
  if type(status) ~= "table" then
    return false
  end
  local state = get(status, "jobStatus", "state")
  if state == nil then
    -- a session cluster has no job: healthy once the JobManager is ready and the spec is stable
    return status.jobManagerDeploymentStatus == "READY" and status.lifecycleState == "STABLE"
  end
  if RUNNING_OR_SETTLED[state] then
    return true
  end
  if STARTING[state] and type(status.error) == "string" then
    for _, needle in ipairs(IMAGE_OR_CRASH_ERRORS) do
      if string.find(status.error, needle, 1, true) then
        return true
      end
    end
  end
  return false
end
