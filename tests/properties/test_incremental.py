"""Issue 12: the incremental engine gives exactly the output of a full run, commit tree for commit tree.

A hypothesis state machine edits a fleet one change at a time (templates, policies, overrides, clusters,
quotas, customizations, the configuration, ClusterTaintPolicies, member clusters' status reports with the
Failover gate on or off, PriorityClasses, workload-affinity groups and the gates that make the scheduling
order matter (SchedulingOvercommitProtection, WorkloadAffinity, PriorityBasedScheduling by karmadaVersion);
adds, deletes, renames) and after every change runs the pipeline
twice on two copies of the repository: incrementally (the state index lets unchanged templates be reused)
and in full (``full=True``: every template redone). The two committed trees must stay byte-identical, and
so must the diagnostics. Each run's time advances, so a recomputed condition would show a new timestamp.
The incremental run is made a third time as the watch daemon makes it, warm (decoded files by blob id, the
index's lines, and what earlier runs computed of the same objects, kept from step to step): it must
write and say exactly what the cold incremental run does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from gitops_karmada.adapters.warm_state import WarmState
from gitops_karmada.core.codecs.serialize import dump_yaml_documents
from gitops_karmada.core.detector import ClaimState
from gitops_karmada.core.incremental import index_sets
from gitops_karmada.core.incremental.change_scope import ChangedInputs
from gitops_karmada.core.incremental.state_index import parse_index_shards, read_index
from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.inputs.loading import load
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.core.observed.fold import ObservedStatus
from gitops_karmada.model.status import ClusterStatusSnapshot
from gitops_karmada.reconcile import (
    RenderResult,
    RunMode,
    blob_sha,
    next_request,
    reconcile,
)
from gitops_karmada.usecases.explain import explanation
from tests.budget import budget
from tests.inprocess import Tree, commit, explaining, request, run

if TYPE_CHECKING:
    from collections.abc import Iterable

    from gitops_karmada.reconcile import Identity
    from gitops_karmada.reconcile.outcome import TemplateOutcome

CLUSTERS = ("member1", "member2", "member3")
NAMESPACES = ("shop", "web")


def _cluster(name: str, labels: dict[str, str], taint: bool, cpu: str = "8") -> dict[str, Any]:
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": name, "labels": labels},
        "spec": {"taints": [{"key": "maintenance", "effect": "NoSchedule"}]} if taint else {},
        "status": {"resourceSummary": {"allocatable": {"cpu": cpu, "memory": "32Gi", "pods": "110"}}},
    }


def _deployment(
    name: str, namespace: str, replicas: int, image: str, tier: str, group: str = ""
) -> dict[str, Any]:
    """A Deployment; with image ``nginx:2`` it reads the ConfigMap ``cfg`` (a dependency under
    ``propagateDeps``), so an edit of the template can add or drop a requirement; ``group``: its ``grp``
    label (a workload-affinity group under a policy grouping by it)."""
    container: dict[str, Any] = {"name": "c", "image": image, "resources": {"requests": {"cpu": "100m"}}}
    if image == "nginx:2":
        container["envFrom"] = [{"configMapRef": {"name": "cfg"}}]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"tier": tier, **({"grp": group} if group else {})},
        },
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [container]},
            },
        },
    }


def _policy(
    namespace: str,
    tier: str,
    placement: dict[str, Any],
    preserve: bool,
    deps: bool = False,
    grouping: str = "",
    priority: str = "",
) -> dict[str, Any]:
    """``grouping``: ``affinity`` or ``antiAffinity`` by the ``grp`` label; ``priority``: a PriorityClass."""
    if grouping:
        placement = {**placement, "workloadAffinity": {grouping: {"groupByLabelKey": "grp"}}}
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": f"{tier}", "namespace": namespace},
        "spec": {
            "resourceSelectors": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "labelSelector": {"matchLabels": {"tier": tier}},
                },
                {"apiVersion": "v1", "kind": "ConfigMap"},
            ],
            "placement": placement,
            **({"preserveResourcesOnDeletion": True} if preserve else {}),
            **({"propagateDeps": True} if deps else {}),
            **({"schedulePriority": {"priorityClassName": priority}} if priority else {}),
        },
    }


PLACEMENTS = st.sampled_from(
    [
        {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}},
        {"clusterAffinity": {"clusterNames": ["member1", "member2"]}},
        {
            "replicaScheduling": {
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
                "weightPreference": {
                    "staticWeightList": [
                        {"targetCluster": {"clusterNames": ["member1"]}, "weight": 2},
                        {"targetCluster": {"clusterNames": ["member2", "member3"]}, "weight": 1},
                    ]
                },
            }
        },
        {
            "replicaScheduling": {
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
                "weightPreference": {"dynamicWeight": "AvailableReplicas"},
            }
        },
        {"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}}},
    ]
)


class IncrementalEqualsFull(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.files: Tree = {}
        self.incremental: Tree = {}
        self.full: Tree = {}
        self.step = 0
        self.status: dict[str, ClusterStatusSnapshot] = {}
        self.results: tuple[RenderResult, RenderResult] | None = None
        self.last_written: Tree = {}
        self.warm = WarmState()
        """The incremental tree as the last run committed it (what the adapter's tool commit holds)."""
        self.last_run: tuple[Tree, dict[str, ClusterStatusSnapshot], frozenset[str]] | None = None
        """The input files, status reports and unmatched templates of the last run that was not refused
        (what a run told of the changed files finds at the last reconcile commit)."""
        for i, name in enumerate(CLUSTERS):
            self.files[f"inventory/{name}.yaml"] = _doc(
                _cluster(name, {"env": "prod" if i < 2 else "dev"}, False)
            )
        for namespace in NAMESPACES:
            self.files[f"policies/{namespace}-front.yaml"] = _doc(
                _policy(
                    namespace, "front", {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}, False
                )
            )
        self.files["apps/shop/a.yaml"] = _doc(_deployment("a", "shop", 4, "nginx:1", "front"))

    # -- edits ------------------------------------------------------------------------------------------------

    @rule(
        namespace=st.sampled_from(NAMESPACES),
        name=st.sampled_from(["a", "b", "c", "d"]),
        replicas=st.integers(0, 9),
        image=st.sampled_from(["nginx:1", "nginx:2"]),
        tier=st.sampled_from(["front", "back"]),
        group=st.sampled_from(["", "x", "z"]),
    )
    def put_template(
        self, namespace: str, name: str, replicas: int, image: str, tier: str, group: str = ""
    ) -> None:
        self.files[f"apps/{namespace}/{name}.yaml"] = _doc(
            _deployment(name, namespace, replicas, image, tier, group)
        )

    @rule(data=st.data())
    def delete_template(self, data: st.DataObject) -> None:
        apps = sorted(p for p in self.files if p.startswith("apps/"))
        if apps:
            del self.files[data.draw(st.sampled_from(apps))]

    @rule(data=st.data())
    def rename_template_file(self, data: st.DataObject) -> None:
        apps = sorted(p for p in self.files if p.startswith("apps/") and not p.endswith("-moved.yaml"))
        if apps:
            path = data.draw(st.sampled_from(apps))
            self.files[path.replace(".yaml", "-moved.yaml")] = self.files.pop(path)

    @rule(namespace=st.sampled_from(NAMESPACES))
    def put_configmap(self, namespace: str) -> None:
        body = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "cfg", "namespace": namespace},
            "data": {"k": str(self.step)},
        }
        self.files[f"apps/{namespace}/cfg.yaml"] = _doc(body)

    @rule(
        namespace=st.sampled_from(NAMESPACES),
        tier=st.sampled_from(["front", "back"]),
        placement=PLACEMENTS,
        preserve=st.booleans(),
        deps=st.booleans(),
        grouping=st.sampled_from(["", "affinity", "antiAffinity"]),
        priority=st.sampled_from(["", "high", "low"]),
    )
    def put_policy(
        self,
        namespace: str,
        tier: str,
        placement: dict[str, Any],
        preserve: bool,
        deps: bool,
        grouping: str = "",
        priority: str = "",
    ) -> None:
        self.files[f"policies/{namespace}-{tier}.yaml"] = _doc(
            _policy(namespace, tier, placement, preserve, deps, grouping, priority)
        )

    @rule(name=st.sampled_from(["high", "low"]), value=st.sampled_from([None, 0, 10, 1000]))
    def put_priority_class(self, name: str, value: int | None) -> None:
        """A PriorityClass a policy may name (None: deleted; a policy naming a missing one fails)."""
        path = f"apps/priority-{name}.yaml"
        if value is None:
            self.files.pop(path, None)
            return
        body = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}}
        self.files[path] = _doc({**body, "value": value})

    @rule(data=st.data())
    def delete_policy(self, data: st.DataObject) -> None:
        policies = sorted(p for p in self.files if p.startswith("policies/"))
        if policies:
            del self.files[data.draw(st.sampled_from(policies))]

    @rule(
        name=st.sampled_from(CLUSTERS),
        env=st.sampled_from(["prod", "dev"]),
        taint=st.booleans(),
        cpu=st.sampled_from(["8", "1"]),
    )
    def put_cluster(self, name: str, env: str, taint: bool, cpu: str = "8") -> None:
        self.files[f"inventory/{name}.yaml"] = _doc(_cluster(name, {"env": env}, taint, cpu))

    @precondition(lambda self: sum(p.startswith("inventory/") for p in self.files) > 1)
    @rule(name=st.sampled_from(CLUSTERS))
    def remove_cluster(self, name: str) -> None:
        self.files.pop(f"inventory/{name}.yaml", None)

    @rule(
        namespace=st.sampled_from(NAMESPACES),
        value=st.sampled_from(["mirror-a.example", "mirror-b.example"]),
        cluster=st.sampled_from(CLUSTERS),
    )
    def put_override(self, namespace: str, value: str, cluster: str) -> None:
        self.files[f"overrides/{namespace}.yaml"] = _doc(
            {
                "apiVersion": "policy.karmada.io/v1alpha1",
                "kind": "OverridePolicy",
                "metadata": {"name": "registry", "namespace": namespace},
                "spec": {
                    "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
                    "overrideRules": [
                        {
                            "targetCluster": {"clusterNames": [cluster]},
                            "overriders": {
                                "imageOverrider": [
                                    {"component": "Registry", "operator": "replace", "value": value}
                                ]
                            },
                        }
                    ],
                },
            }
        )

    @rule(namespace=st.sampled_from(NAMESPACES))
    def delete_override(self, namespace: str) -> None:
        self.files.pop(f"overrides/{namespace}.yaml", None)

    @rule(cpu=st.sampled_from(["1", "100"]), cluster=st.sampled_from(CLUSTERS))
    def put_quota(self, cpu: str, cluster: str) -> None:
        self.files["quotas/shop.yaml"] = _doc(
            {
                "apiVersion": "policy.karmada.io/v1alpha1",
                "kind": "FederatedResourceQuota",
                "metadata": {"name": "shop", "namespace": "shop"},
                "spec": {
                    "overall": {"cpu": cpu},
                    "staticAssignments": [{"clusterName": cluster, "hard": {"cpu": "1"}}],
                },
            }
        )

    @rule()
    def delete_quota(self) -> None:
        self.files.pop("quotas/shop.yaml", None)

    @rule(replicas=st.integers(1, 5))
    def put_customization(self, replicas: int) -> None:
        script = f"function GetReplicas(obj)\n  return {replicas}, {{}}\nend\n"
        self.files["customizations/deployments.yaml"] = _doc(
            {
                "apiVersion": "config.karmada.io/v1alpha1",
                "kind": "ResourceInterpreterCustomization",
                "metadata": {"name": "fixed-replicas"},
                "spec": {
                    "target": {"apiVersion": "apps/v1", "kind": "Deployment"},
                    "customizations": {"replicaResource": {"luaScript": script}},
                },
            }
        )

    @rule()
    def delete_customization(self) -> None:
        self.files.pop("customizations/deployments.yaml", None)

    @rule(
        enforce=st.booleans(),
        failover=st.booleans(),
        overcommit=st.booleans(),
        affinity=st.booleans(),
        version=st.sampled_from(["v1.18", "v1.19"]),
        # the state index's namespace files split past half of it (the runs' index is a few kB)
        file_bytes=st.sampled_from([0, 1_500, 4_000]),
    )
    def put_config(
        self,
        enforce: bool,
        failover: bool,
        overcommit: bool = False,
        affinity: bool = False,
        version: str = "v1.19",
        file_bytes: int = 0,
    ) -> None:
        self.files["gitops-karmada.yaml"] = (
            ("" if version == "v1.19" else f"karmadaVersion: {version}\n")
            + (f"output:\n  hostLimits:\n    maxFileBytes: {file_bytes}\n" if file_bytes else "")
            + f"featureGates:\n  FederatedQuotaEnforcement: {str(enforce).lower()}\n"
            f"  Failover: {str(failover).lower()}\n"
            + ("  SchedulingOvercommitProtection: true\n" if overcommit else "")
            + ("  WorkloadAffinity: true\n" if affinity else "")
            + "failover:\n  enableNoExecuteTaintEviction: true\n  defaultNotReadyTolerationSeconds: 0\n"
        ).encode()

    @rule(present=st.booleans())
    def put_taint_policy(self, present: bool) -> None:
        if not present:
            self.files.pop("policies/taints.yaml", None)
            return
        self.files["policies/taints.yaml"] = _doc(
            {
                "apiVersion": "policy.karmada.io/v1alpha1",
                "kind": "ClusterTaintPolicy",
                "metadata": {"name": "not-ready"},
                "spec": {
                    "addOnConditions": [
                        {"conditionType": "Ready", "operator": "NotIn", "statusValues": ["True"]}
                    ],
                    "removeOnConditions": [
                        {"conditionType": "Ready", "operator": "In", "statusValues": ["True"]}
                    ],
                    "taints": [{"key": "cluster.karmada.io/not-ready", "effect": "NoExecute"}],
                },
            }
        )

    @rule(cluster=st.sampled_from(CLUSTERS), ready=st.booleans(), ready_replicas=st.integers(0, 2))
    def report_status(self, cluster: str, ready: bool, ready_replicas: int) -> None:
        """A member cluster reports (the status branch moves): Ready, and the shop/a Deployment's status."""
        self.status[cluster] = ClusterStatusSnapshot.model_validate(
            {
                "metadata": {"name": cluster},
                "collectedAt": _now(self.step),
                "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
                "objects": [
                    {
                        "apiVersion": "apps/v1",
                        "kind": "Deployment",
                        "namespace": "shop",
                        "name": "a",
                        "observed": {
                            "apiVersion": "apps/v1",
                            "kind": "Deployment",
                            "metadata": {"name": "a", "namespace": "shop", "generation": 1},
                            "spec": {"replicas": 2},
                            "status": {
                                "observedGeneration": 1,
                                "replicas": 2,
                                "readyReplicas": ready_replicas,
                                "updatedReplicas": 2,
                                "availableReplicas": ready_replicas,
                            },
                        },
                    }
                ],
            }
        )

    @precondition(lambda self: any(p.startswith("clusters/") for p in self.incremental))
    @rule(data=st.data(), delete=st.booleans())
    def hand_edit_output(self, data: st.DataObject, delete: bool) -> None:
        """A user commit edits or deletes a rendered file: the next run must put it back."""
        path = data.draw(st.sampled_from(sorted(p for p in self.incremental if p.startswith("clusters/"))))
        for tree in (self.incremental, self.full):
            if delete:
                tree.pop(path, None)
            elif path in tree:
                tree[path] = tree[path] + b"# edited by hand\n"

    @rule(data=st.data())
    def explain_one_template(self, data: st.DataObject) -> None:
        """``explain`` computes only what its target depends on (its namespace, the templates requiring it),
        and must say what a run that explains every template says of it. Run on the pending changes, before
        the next reconcile: the quota fold and the dependencies then really are computed."""
        observed = ObservedStatus(dict(self.status), "status") if self.status else None
        now = _now(self.step + 1)
        everything = run(
            self.files | self.incremental, now, observed=observed, mode=explaining(lambda _key: True)
        )
        if not everything.input_ok or not everything.outcomes:
            return
        target = data.draw(st.sampled_from(sorted(everything.outcomes, key=lambda o: o.key.identity)))
        wanted = target.key.identity
        alone = run(
            self.files | self.incremental,
            now,
            observed=observed,
            mode=explaining(lambda key: key.identity == wanted),
        )
        assert alone.input_ok
        (outcome,) = (o for o in alone.outcomes if o.key.identity == wanted)
        assert explanation(outcome) == explanation(target)
        assert len(alone.outcomes) <= len(everything.outcomes)

    @rule()
    def nothing(self) -> None:
        """A run with no change at all (everything reused)."""

    # -- the comparison -----------------------------------------------------------------------------------------

    @invariant()
    def incremental_equals_full(self) -> None:
        self.step += 1
        now = _now(self.step)
        observed = ObservedStatus(dict(self.status), "status") if self.status else None
        # even steps vouch for reused files as a Git run does (nothing changed since the last tool commit but
        # these paths), odd steps compare every reused file with the index's digest
        edited = frozenset(
            p
            for p in self.incremental.keys() | self.last_written.keys()
            if p.startswith("clusters/") and self.incremental.get(p) != self.last_written.get(p)
        )
        edits = edited if self.step % 2 == 0 else None
        # what the adapter tells a run of the input files changed since the last reconcile (none after a hand
        # edit of the outputs): the warm run is told, as the daemon's are
        changed = None if edited else self._changed_since_last_run()
        incremental = run(self.files | self.incremental, now, output_edits=edits, observed=observed)
        warm = run(
            self.files | self.incremental,
            now,
            output_edits=edits,
            observed=observed,
            warm=self.warm,
            changed=changed,
        )
        full = run(self.files | self.full, now, mode=FULL, observed=observed)
        assert list(map(str, warm.diagnostics)) == list(map(str, incremental.diagnostics))
        assert commit(self.incremental, warm) == commit(self.incremental, incremental)
        if (
            self.step > 1
            and incremental.input_ok
            and any(o.binding is not None for o in incremental.outcomes)
        ):
            assert incremental.incremental, "the state index written by the previous run was not trusted"
        assert not full.incremental
        assert sorted(map(str, incremental.diagnostics)) == sorted(map(str, full.diagnostics))
        if changed is not None and incremental.input_ok:
            self._scoped_run_agrees(incremental, now, observed, changed)
        self.incremental = commit(self.incremental, incremental)
        if incremental.input_ok:  # a run refused for its input commits nothing: the last reconcile stays
            self.last_run = (dict(self.files), dict(self.status), _unmatched(incremental))
            self.last_written = dict(self.incremental)  # and a hand edit before it stays an edit since it
        self.full = commit(self.full, full)
        assert self.incremental.keys() == self.full.keys()
        for path in self.full:
            assert self.incremental[path] == self.full[path], path

    def _changed_since_last_run(self) -> ChangedInputs | None:
        """The input files changed since the last run that was not refused, with their documents then; None
        when something else changed (the configuration, the status reports) or there was no such run."""
        if self.last_run is None:
            return None
        files, status, _ = self.last_run
        if status != self.status or files.get(CONFIG) != self.files.get(CONFIG):
            return None
        paths = frozenset(
            p for p in files.keys() | self.files.keys() if p != CONFIG and files.get(p) != self.files.get(p)
        )
        config, _ = load_config(self.files.get(CONFIG))
        before = load({p: files[p] for p in paths if p in files}, config)
        assert before.ok
        return ChangedInputs(paths, before.inputs)

    def _scoped_run_agrees(
        self,
        incremental: RenderResult,
        now: str,
        observed: ObservedStatus | None,
        changed: ChangedInputs,
    ) -> None:
        """A run told which input files changed since the last one judges only the templates they touch (and
        those that cannot stand unjudged): it commits exactly what the run judging every template commits,
        and says the same. Its partial form (as ``diff`` makes it) redoes every template the whole run redoes
        that has a binding, writes the same files for them, and its index is the whole run's."""
        assert self.last_run is not None
        unmatched = self.last_run[2]
        whole = run(self.files | self.incremental, now, observed=observed, changed=changed)
        assert commit(self.incremental, whole) == commit(self.incremental, incremental)
        assert list(map(str, whole.diagnostics)) == list(map(str, incremental.diagnostics))
        assert whole.index == incremental.index
        scoped = run(self.files | self.incremental, now, observed=observed, changed=changed, mode=PARTIAL)
        if not scoped.scoped:
            return
        SCOPED_RUNS.append(len(changed.paths))
        assert scoped.index == incremental.index
        assert _bound(scoped.redone) == _bound(incremental.redone)

        def written(result: RenderResult) -> Tree:
            return {
                p: c
                for p, c in commit(self.incremental, result).items()
                if p.startswith(("clusters/", "karmada-state/bindings/"))
            }

        assert written(scoped) == written(incremental)
        judged = _unmatched(scoped)
        assert judged == _unmatched(incremental) & {str(o.key) for o in scoped.outcomes}
        assert _unmatched(incremental) - judged <= unmatched


CONFIG = "gitops-karmada.yaml"
FULL = RunMode(full=True)
PARTIAL = RunMode(partial=True)
SCOPED_RUNS: list[int] = []
"""How many changed files each scoped run was told of (the examples must exercise the scope)."""


def _bound(outcomes: Iterable[TemplateOutcome]) -> frozenset[Identity]:
    """The templates of ``outcomes`` that have a binding (those without, as an unmatched one, write nothing
    and are redone by every run that judges them)."""
    return frozenset(o.key.identity for o in outcomes if o.binding is not None)


def _unmatched(result: RenderResult) -> frozenset[str]:
    return frozenset(str(o.key) for o in result.outcomes if o.match.state is ClaimState.UNMATCHED)


def _doc(body: dict[str, Any]) -> bytes:
    return dump_yaml_documents([body]).encode()


def _now(step: int) -> str:
    """Each run a minute later: heartbeats age, tolerations and grace periods run out."""
    return f"2026-01-01T{step // 60:02d}:{step % 60:02d}:00Z"


def machine_settings(examples: int, *, steps: int) -> settings:
    """A state machine's settings: ``examples`` runs of ``steps`` edits each, no deadline (a run's time
    varies with the fleet the edits make)."""
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


TestIncrementalEqualsFull = pytest.mark.long(IncrementalEqualsFull.TestCase)
TestIncrementalEqualsFull.settings = machine_settings(budget(60, 150), steps=25)


def test_one_template_changed_redoes_that_template_only() -> None:
    machine = IncrementalEqualsFull()
    for name in ("b", "c", "d"):
        machine.put_template("shop", name, 2, "nginx:1", "front")
    machine.put_template("web", "e", 2, "nginx:1", "front")
    machine.incremental_equals_full()
    assert {p for p in machine.incremental if p.startswith("karmada-state/index")} == {
        "karmada-state/index/shop.json",
        "karmada-state/index/web.json",
    }
    machine.put_template("shop", "c", 3, "nginx:2", "front")
    now = "2026-02-01T00:00:00Z"
    result = run(machine.files | machine.incremental, now)
    assert result.incremental
    assert [str(o.key) for o in result.redone] == ["Deployment.apps/shop/c"]
    assert sum(o.reused for o in result.outcomes) == 4
    # one namespace's shard of the index is rewritten, not the fleet's index
    changed = result.changes({p: blob_sha(c) for p, c in machine.incremental.items()})
    assert sorted(changed) == [
        "clusters/member1/shop/deployment.apps/c.yaml",
        "clusters/member2/shop/deployment.apps/c.yaml",
        "clusters/member3/shop/deployment.apps/c.yaml",
        "karmada-state/bindings/shop/deployment.apps/c.yaml",
        "karmada-state/index/shop.json",
    ]


def test_explain_admits_its_namespace_in_order_before_its_target() -> None:
    """``explain b`` computes only b's namespace, but all of it: a's pending scale-up is admitted first
    (``a`` sorts before ``b``) and leaves b over the quota, as a reconcile would."""
    machine = IncrementalEqualsFull()
    machine.put_config(enforce=True, failover=False)
    machine.put_quota(cpu="1", cluster="member1")
    machine.put_template("shop", "a", 1, "nginx:1", "front")
    machine.put_template("shop", "b", 1, "nginx:1", "front")
    machine.put_template("web", "c", 1, "nginx:1", "front")
    machine.incremental_equals_full()
    machine.put_template("shop", "a", 2, "nginx:2", "front")
    machine.put_template("shop", "b", 2, "nginx:2", "front")
    now = _now(machine.step + 1)
    alone = run(machine.files | machine.incremental, now, mode=explaining(lambda key: key.name == "b"))
    assert sorted(o.key.name for o in alone.outcomes) == ["a", "b"]  # not web's c
    (outcome,) = (o for o in alone.outcomes if o.key.name == "b")
    assert explanation(outcome)["scheduling"]["condition"]["reason"] == "QuotaExceeded"
    full = run(machine.files | machine.incremental, now, mode=FULL)
    (reconciled,) = (o for o in full.outcomes if o.key.name == "b")
    assert reconciled.binding is not None and outcome.binding is not None
    assert reconciled.binding.condition("Scheduled") == outcome.binding.condition("Scheduled")


def test_an_index_in_one_file_is_trusted_and_replaced_by_its_shards() -> None:
    """Versions before shards kept the index in ``karmada-state/index.json``: the first run after an upgrade
    reuses what it vouches for, writes the shards and removes the file."""
    machine = IncrementalEqualsFull()
    machine.put_template("web", "e", 2, "nginx:1", "front")
    machine.incremental_equals_full()
    sharded = dict(machine.incremental)
    index = read_index(sharded, RepoLayout.default())
    assert index is not None
    legacy = {p: c for p, c in sharded.items() if not p.startswith("karmada-state/index/")}
    legacy["karmada-state/index.json"] = index.dump()
    result = run(machine.files | legacy, "2026-02-01T00:00:00Z")
    assert result.incremental and not result.redone
    assert commit(legacy, result) == sharded


def test_a_fleet_emptied_and_filled_again_stays_incremental() -> None:
    """An index with no entry has no shard to keep: with no binding record either, there is nothing it
    could vouch for, and the next run is incremental (found by the state machine)."""
    machine = IncrementalEqualsFull()
    machine.incremental_equals_full()
    del machine.files["apps/shop/a.yaml"]
    machine.incremental_equals_full()
    assert not any(p.startswith("karmada-state/") for p in machine.incremental)
    machine.put_configmap(namespace="shop")
    machine.incremental_equals_full()  # asserts the run was incremental


def test_a_shard_that_cannot_be_trusted_makes_a_full_run() -> None:
    machine = IncrementalEqualsFull()
    machine.put_template("web", "e", 2, "nginx:1", "front")
    machine.incremental_equals_full()
    shards = {
        RepoLayout.default().index_shard(p) or "": c for p, c in machine.incremental.items() if "/index/" in p
    }
    assert set(shards) == {"shop", "web"} and parse_index_shards(shards) is not None
    # an entry kept in another namespace's shard, and shards of two engines
    assert parse_index_shards({"web": shards["shop"], "shop": shards["web"]}) is None
    assert parse_index_shards({**shards, "web": shards["web"].replace(b'"engine":"', b'"engine":"0')}) is None
    tree = {**machine.incremental, "karmada-state/index/web.json": shards["shop"]}
    result = run(machine.files | tree, "2026-02-01T00:00:00Z")
    assert not result.incremental
    assert commit(tree, result) == machine.incremental


class FailoverIncrementalEqualsFull(IncrementalEqualsFull):
    """The same edits on a fleet that starts with the Failover gate on and a ClusterTaintPolicy, so the
    random status reports drive evictions, the eviction queue, graceful tasks and their purges."""

    def __init__(self) -> None:
        super().__init__()
        self.put_config(enforce=False, failover=True)
        self.put_taint_policy(present=True)
        self.files["apps/web/b.yaml"] = _doc(_deployment("b", "web", 3, "nginx:1", "front"))


TestFailoverIncrementalEqualsFull = pytest.mark.long(FailoverIncrementalEqualsFull.TestCase)
TestFailoverIncrementalEqualsFull.settings = machine_settings(budget(40, 100), steps=20)


def test_next_request_runs_as_if_the_result_had_been_committed() -> None:
    """``simulate`` moves time forward with ``next_request``: the run after it must be the run a commit of
    the first result would have made."""
    machine = IncrementalEqualsFull()
    machine.put_template("shop", "b", 3, "nginx:2", "front")
    files = machine.files
    first = request(dict(files), "2026-01-01T00:00:00Z")
    result = reconcile(first)
    committed = commit({}, result)
    machine.put_template("shop", "a", 7, "nginx:3", "front")  # an input change between the two runs
    second = next_request(first, result, now="2026-01-01T00:01:00Z", observed=None).with_snapshot(
        input_files=dict(files)
    )
    via_next = reconcile(second)
    expected = run(files | committed, "2026-01-01T00:01:00Z")
    assert via_next.incremental and expected.incremental
    assert commit(committed, via_next) == commit(committed, expected)
    assert sum(1 for o in via_next.outcomes if not o.reused) == 1  # only the changed template was redone


class SharedSetsIncrementalEqualsFull(IncrementalEqualsFull):
    """The same edits with every cluster list or map of more than one cluster written in its file's shared
    sets (``core.incremental.index_sets``; eight at a fleet's scale): entries that name sets and entries that
    do not, in buckets the size limit draws, kept or rewritten, must read back as a full run writes them."""

    def __init__(self) -> None:
        super().__init__()
        self._shared_min = index_sets.SHARED_MIN
        index_sets.SHARED_MIN = 1

    def teardown(self) -> None:
        index_sets.SHARED_MIN = self._shared_min
        super().teardown()


TestSharedSetsIncrementalEqualsFull = pytest.mark.long(SharedSetsIncrementalEqualsFull.TestCase)
TestSharedSetsIncrementalEqualsFull.settings = machine_settings(budget(30, 100), steps=25)


def test_the_shared_sets_machine_writes_sets() -> None:
    machine = SharedSetsIncrementalEqualsFull()
    try:
        machine.put_template("web", "e", 2, "nginx:1", "front")
        machine.incremental_equals_full()
        index = [c for p, c in machine.incremental.items() if p.startswith("karmada-state/index/")]
        assert index and any(b'"sets":{' in c for c in index)
    finally:
        machine.teardown()
    assert index_sets.SHARED_MIN == 8, "restored"
