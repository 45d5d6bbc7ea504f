"""The (apiVersion, kind) pairs the native interpreters are registered for."""

from __future__ import annotations

Gvk = tuple[str, str]

DEPLOYMENT: Gvk = ("apps/v1", "Deployment")
REPLICA_SET: Gvk = ("apps/v1", "ReplicaSet")
STATEFUL_SET: Gvk = ("apps/v1", "StatefulSet")
DAEMON_SET: Gvk = ("apps/v1", "DaemonSet")
JOB: Gvk = ("batch/v1", "Job")
CRON_JOB: Gvk = ("batch/v1", "CronJob")
POD: Gvk = ("v1", "Pod")
SERVICE: Gvk = ("v1", "Service")
SERVICE_ACCOUNT: Gvk = ("v1", "ServiceAccount")
SECRET: Gvk = ("v1", "Secret")
PERSISTENT_VOLUME: Gvk = ("v1", "PersistentVolume")
PERSISTENT_VOLUME_CLAIM: Gvk = ("v1", "PersistentVolumeClaim")
INGRESS: Gvk = ("networking.k8s.io/v1", "Ingress")
POD_DISRUPTION_BUDGET: Gvk = ("policy/v1", "PodDisruptionBudget")
HORIZONTAL_POD_AUTOSCALER: Gvk = ("autoscaling/v2", "HorizontalPodAutoscaler")
SERVICE_IMPORT: Gvk = ("multicluster.x-k8s.io/v1alpha1", "ServiceImport")
