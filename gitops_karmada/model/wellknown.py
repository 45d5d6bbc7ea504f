"""Karmada's well-known names (labels, annotations, API versions) and the tool's own constants."""

from __future__ import annotations

# -- API groups and versions we read -------------------------------------------------------------
POLICY_API_VERSION = "policy.karmada.io/v1alpha1"
CLUSTER_API_VERSION = "cluster.karmada.io/v1alpha1"
WORK_API_VERSION = "work.karmada.io/v1alpha2"
CONFIG_API_VERSION = "config.karmada.io/v1alpha1"
APPS_KARMADA_API_VERSION = "apps.karmada.io/v1alpha1"
KARMADA_GROUPS = frozenset(
    {"policy.karmada.io", "cluster.karmada.io", "work.karmada.io", "config.karmada.io", "apps.karmada.io",
     "networking.karmada.io", "autoscaling.karmada.io", "search.karmada.io", "remedy.karmada.io"}
)  # fmt: skip
TOOL_CONFIG_API_VERSION = "gitops-karmada.io/v1alpha1"
TOOL_CONFIG_KIND = "Config"

# -- claim metadata (pkg/apis/policy/v1alpha1/well_known_constants.go) ---------------------------
PP_PERMANENT_ID_LABEL = "propagationpolicy.karmada.io/permanent-id"
PP_NAMESPACE_ANNOTATION = "propagationpolicy.karmada.io/namespace"
PP_NAME_ANNOTATION = "propagationpolicy.karmada.io/name"
CPP_PERMANENT_ID_LABEL = "clusterpropagationpolicy.karmada.io/permanent-id"
CPP_NAME_ANNOTATION = "clusterpropagationpolicy.karmada.io/name"
CLAIMED_BY_LABEL = "resourcetemplate.karmada.io/claimed-by"

# -- Work / member-object metadata ------------------------------------------------------------------
RESOURCE_BINDING_PERMANENT_ID_LABEL = "resourcebinding.karmada.io/permanent-id"
CLUSTER_RESOURCE_BINDING_PERMANENT_ID_LABEL = "clusterresourcebinding.karmada.io/permanent-id"
MANAGED_BY_LABEL = "karmada.io/managed"
CONFLICT_RESOLUTION_ANNOTATION = "work.karmada.io/conflict-resolution"
APPLIED_OVERRIDES_ANNOTATION = "policy.karmada.io/applied-overrides"
APPLIED_CLUSTER_OVERRIDES_ANNOTATION = "policy.karmada.io/applied-cluster-overrides"
RETAIN_REPLICAS_LABEL = "resourcetemplate.karmada.io/retain-replicas"
NAMESPACE_SKIP_AUTO_PROPAGATION_LABEL = "namespace.karmada.io/skip-auto-propagation"

# -- namespaces Karmada never propagates from (pkg/util/names, detector skippedPropagatingNamespaces) --
RESERVED_NAMESPACES = frozenset({"karmada-system", "karmada-cluster"})
RESERVED_NAMESPACE_PREFIXES = ("karmada-es-",)
DEFAULT_SKIPPED_NAMESPACE_PATTERN = r"kube-.*"

# -- server-set fields pruned from rendered manifests (Karmada's prune.RemoveIrrelevantFields) --------
PRUNED_METADATA_FIELDS = (
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation", "managedFields",
    "resourceVersion", "selfLink", "uid", "ownerReferences", "finalizers",
)  # fmt: skip
KUBECTL_LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
DEPLOYMENT_REVISION_ANNOTATION = "deployment.kubernetes.io/revision"

# -- the tool's own provenance -----------------------------------------------------------------------
SOURCE_COMMIT_TRAILER = "Source-Commit"
RENDERED_BY_TRAILER = "Rendered-By"
ROLLBACK_TO_TRAILER = "Rollback-To"
"""Trailer of a rollback commit: the revision whose inputs and output it restores."""
FAILED_TEMPLATES_TRAILER = "Failed-Templates"
"""On a reconcile commit whose run had templates that failed: how many (a rerun must report them again)."""
STATUS_COMMIT_TRAILER = "Status-Commit"
"""The status-branch commit whose snapshots a reconcile used (``docs/status.md``)."""
RUN_TIME_TRAILER = "Run-Time"
"""The clock a reconcile ran at, when later than its commits' (a run made because failover work fell due)."""
FAILOVER_DUE_TRAILER = "Failover-Due"
"""When the failover controllers decide more (a toleration runs out, the eviction queue's next turn)."""
ROLLOUT_DUE_TRAILER = "Rollout-Due"
"""When time alone moves a rollout on (a bake time, ``healthyFor``, the next look at a commit status)."""
ROLLOUT_WAITING_TRAILER = "Rollout-Waiting"
"""What the rollouts in flight wait for from outside the repository's files (``approval``,
``commit-status:<context>``): any later commit may bring it, so the run is never skipped as up to date."""
ROLLOUT_APPROVED_TRAILER = "Rollout-Approved"
"""Trailer of an approval commit (``gitops-karmada rollout approve``): ``<namespace>/<policy> <wave>``."""
ROLLOUT_STATUSES_TRAILER = "Rollout-Statuses"
"""The commit statuses a reconcile's rollouts were judged on: ``<commit> <context>=<state> ...``."""
DUE_TRAILERS = (FAILOVER_DUE_TRAILER, ROLLOUT_DUE_TRAILER)
"""The trailers that name a time a later run is due at."""
TOOL_NAME = "gitops-karmada"

# -- the fleet's files: the only place their default names are written (``core/layout.py`` asks these) ------
CONFIG_FILE = "gitops-karmada.yaml"
"""The fleet's configuration, at the root of its folder."""
DEFAULT_CLUSTERS_DIR = "clusters"
DEFAULT_SHARD_BRANCH = "clusters/{cluster}"
"""``branch-per-cluster``: each cluster's branch (``output.branch``)."""
DEFAULT_STATE_DIR = "karmada-state"
DEFAULT_SNAPSHOTS_DIR = "cluster-snapshots"

# the NoSchedule taints Karmada's cluster controller sets from a cluster's Ready condition
NOT_READY_TAINT_KEY = "cluster.karmada.io/not-ready"
UNREACHABLE_TAINT_KEY = "cluster.karmada.io/unreachable"
CONDITION_TAINT_KEYS = frozenset({NOT_READY_TAINT_KEY, UNREACHABLE_TAINT_KEY})
