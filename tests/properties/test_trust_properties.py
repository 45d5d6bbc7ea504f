"""Issue 10's general rules, as properties of the pipeline on generated fleets and random edits.

1. The tool's own output reads back: a fleet reconciled once loads without new errors and reconciles to
   exactly the same tree (what ``validate`` and ``verify`` check), for generated fleets that combine the
   features the tests exercise (weights, affinities, taints, overrides, quotas, preserve-on-deletion).
2. Nothing changes silently: for random single edits of the example fleet (a line deleted, a key renamed, a
   value changed), the edit either gets an error or warning naming the edited file, or its effect shows in
   the placement diff (the workloads, inputs or manifests it touches); never a change in ``clusters/`` that
   no report accounts for.

Both run the real pipeline in process (the same ``reconcile()`` the CLI runs), so hundreds of examples stay
fast; tests/cli/test_trust.py pins each rule once through the CLI on real repositories.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitops_karmada.adapters.directory import read_directory
from gitops_karmada.core.codecs.serialize import dump_yaml_documents
from gitops_karmada.core.detector import ClaimState
from gitops_karmada.core.diff import DiffSide, compare
from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.inputs.loading import input_path_filter
from gitops_karmada.model.wellknown import CONFIG_FILE
from gitops_karmada.reconcile import RenderResult, blob_sha
from tests.fleet import plain_inputs
from tests.inprocess import Tree, commit, run

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = ROOT / "repo-layout"
NOW = "2026-01-02T03:04:05Z"
LATER = "2026-01-03T03:04:05Z"
EXAMPLE_CONFIG_RAW = (LAYOUT / CONFIG_FILE).read_bytes()
EXAMPLE_CONFIG, _ = load_config(EXAMPLE_CONFIG_RAW)
EXAMPLE_FILES = plain_inputs(
    LAYOUT, read_directory(LAYOUT, input_path_filter(EXAMPLE_CONFIG)), EXAMPLE_CONFIG
)


def reconciled(inputs: Tree, tree: Tree, config_raw: bytes | None, now: str = NOW) -> RenderResult:
    """One reconcile of ``inputs`` (and ``config_raw`` as gitops-karmada.yaml) on top of the managed ``tree``
    a previous run left."""
    config = {CONFIG_FILE: config_raw} if config_raw is not None else {}
    return run(inputs | config | tree, now)


def side(label: str, tree: Tree, result: RenderResult) -> DiffSide:
    return DiffSide(
        revision=label,
        tree=tree,
        bindings=result.bindings,
        inputs=result.inputs if result.input_ok else None,
        diagnostics=result.diagnostics,
        unmatched=tuple(
            str(o.key) for o in result.outcomes if o.match.state is ClaimState.UNMATCHED and not o.removed
        ),
    )


# -- 1. the output reads back ------------------------------------------------------------------------------------

CLUSTER_NAMES = ("member1", "member2", "member3", "member4")


@st.composite
def fleets(draw: st.DrawFn) -> tuple[Tree, bytes | None]:
    """A small fleet mixing the features the pipeline has: returns (input files, gitops-karmada.yaml)."""
    clusters = draw(st.lists(st.sampled_from(CLUSTER_NAMES), min_size=1, max_size=4, unique=True))
    documents: list[dict[str, Any]] = []
    for name in clusters:
        taints = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}] if draw(st.booleans()) else []
        documents.append(
            {
                "apiVersion": "cluster.karmada.io/v1alpha1",
                "kind": "Cluster",
                "metadata": {"name": name, "labels": {"env": draw(st.sampled_from(["prod", "dev"]))}},
                "spec": {
                    "region": draw(st.sampled_from(["eu", "us"])),
                    **({"taints": taints} if taints else {}),
                },
                "status": {
                    "resourceSummary": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}
                },
            }
        )
    apps = draw(st.integers(1, 4))
    for i in range(apps):
        documents.append(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {
                    "name": f"app{i}",
                    "namespace": "shop",
                    "labels": {"tier": draw(st.sampled_from(["web", "db"]))},
                },
                "spec": {
                    "replicas": draw(st.integers(0, 9)),
                    "selector": {"matchLabels": {"app": f"app{i}"}},
                    "template": {
                        "metadata": {"labels": {"app": f"app{i}"}},
                        "spec": {
                            "containers": [
                                {"name": "c", "image": "nginx:1", "resources": {"requests": {"cpu": "100m"}}}
                            ]
                        },
                    },
                },
            }
        )
        if draw(st.booleans()):
            documents.append(
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": f"cfg{i}", "namespace": "shop"},
                    "data": {"k": "v"},
                }
            )
    placement: dict[str, Any] = {}
    if draw(st.booleans()):
        placement["clusterAffinity"] = {
            "clusterNames": draw(st.lists(st.sampled_from(clusters), min_size=1, unique=True))
        }
    elif draw(st.booleans()):
        placement["clusterAffinity"] = {"labelSelector": {"matchLabels": {"env": "prod"}}}
    if draw(st.booleans()):
        placement["clusterTolerations"] = [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]
    division = draw(st.sampled_from(["duplicated", "static", "dynamic", "aggregated"]))
    if division == "duplicated":
        placement["replicaScheduling"] = {"replicaSchedulingType": "Duplicated"}
    elif division == "static":
        placement["replicaScheduling"] = {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {
                "staticWeightList": [
                    {"targetCluster": {"clusterNames": [c]}, "weight": draw(st.integers(1, 4))}
                    for c in clusters
                ]
            },
        }
    elif division == "dynamic":
        placement["replicaScheduling"] = {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        }
    else:
        placement["replicaScheduling"] = {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Aggregated",
        }
    spec: dict[str, Any] = {
        "resourceSelectors": [
            {"apiVersion": "apps/v1", "kind": "Deployment"},
            {"apiVersion": "v1", "kind": "ConfigMap"},
        ],
        "placement": placement,
    }
    if draw(st.booleans()):
        spec["preserveResourcesOnDeletion"] = True
    documents.append(
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "PropagationPolicy",
            "metadata": {"name": "shop", "namespace": "shop"},
            "spec": spec,
        }
    )
    if draw(st.booleans()):
        documents.append(
            {
                "apiVersion": "policy.karmada.io/v1alpha1",
                "kind": "OverridePolicy",
                "metadata": {"name": "images", "namespace": "shop"},
                "spec": {
                    "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
                    "overrideRules": [
                        {
                            "targetCluster": {"clusterNames": [clusters[0]]},
                            "overriders": {
                                "imageOverrider": [
                                    {
                                        "component": "Registry",
                                        "operator": "replace",
                                        "value": "mirror.example",
                                    }
                                ]
                            },
                        }
                    ],
                },
            }
        )
    if draw(st.booleans()):
        documents.append(
            {
                "apiVersion": "policy.karmada.io/v1alpha1",
                "kind": "FederatedResourceQuota",
                "metadata": {"name": "shop", "namespace": "shop"},
                "spec": {
                    "overall": {"cpu": "100"},
                    "staticAssignments": [{"clusterName": clusters[0], "hard": {"cpu": "10"}}],
                },
            }
        )
    config = b"featureGates:\n  FederatedQuotaEnforcement: true\n" if draw(st.booleans()) else None
    return {"fleet.yaml": dump_yaml_documents(documents).encode()}, config


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fleet=fleets(), delete_first=st.booleans())
def test_what_the_tool_writes_reads_back_and_reconciles_to_itself(
    fleet: tuple[Tree, bytes | None], delete_first: bool
) -> None:
    inputs, config = fleet
    first = reconciled(inputs, {}, config)
    assert first.input_ok, [str(d) for d in first.diagnostics]
    tree = commit({}, first)
    if delete_first:
        # a second state with a template gone (released or removed) must read back too
        documents = inputs["fleet.yaml"].split(b"\n---\n")
        kept = [d for d in documents if b"name: app0\n" not in d]
        inputs = {"fleet.yaml": b"\n---\n".join(kept)}
        tree = commit(tree, reconciled(inputs, tree, config, LATER))
    again = reconciled(inputs, tree, config, LATER)
    # validate: nothing the tool wrote is an error when read back
    assert again.input_ok, [str(d) for d in again.diagnostics]
    new_errors = {str(d) for d in again.diagnostics if d.is_error} - {
        str(d) for d in first.diagnostics if d.is_error
    }
    assert not new_errors
    # verify: the committed tree is exactly what its inputs render
    assert again.changes({p: blob_sha(c) for p, c in tree.items()}) == {}


# -- 2. no silent change ------------------------------------------------------------------------------------------

BASE_RESULT = reconciled(EXAMPLE_FILES, {}, EXAMPLE_CONFIG_RAW)
BASE_TREE = commit({}, BASE_RESULT)
EDITABLE = sorted(EXAMPLE_FILES)


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, bytes, str]:
    """(file, its edited content, what was done) for one random single edit of an input file."""
    path = draw(st.sampled_from(EDITABLE))
    lines = EXAMPLE_FILES[path].decode().split("\n")
    index = draw(st.integers(0, len(lines) - 1))
    line = lines[index]
    operation = draw(st.sampled_from(["delete-line", "rename-key", "change-value"]))
    key, colon, value = line.partition(":")
    if operation == "rename-key" and colon and key.strip(" -"):
        lines[index] = f"{key}x{colon}{value}"
    elif operation == "change-value" and colon and value.strip():
        lines[index] = f"{key}{colon}{value.rstrip()}x"
    else:
        operation = "delete-line"
        del lines[index]
    return path, "\n".join(lines).encode(), f"{operation} at line {index + 1}: {line!r}"


def _names_file(result: RenderResult, path: str) -> bool:
    return any(d.source is not None and d.source.path == path for d in result.diagnostics)


def _defined_in(result: RenderResult, path: str) -> tuple[set[str], set[tuple[str, str, str]]]:
    """Templates (as shown in reports) and Karmada objects (kind, namespace, name) the file defines."""
    if result.inputs is None:
        return set(), set()
    templates = {str(t.key) for t in result.inputs.templates if t.source.path == path}
    objects = {ident for ident, source in result.inputs.sources.items() if source.path == path}
    return templates, objects


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit=edits())
def test_a_single_edit_is_named_or_shows_in_the_placement_diff(edit: tuple[str, bytes, str]) -> None:
    path, content, what = edit
    edited = reconciled({**EXAMPLE_FILES, path: content}, BASE_TREE, EXAMPLE_CONFIG_RAW, LATER)
    if not edited.input_ok:
        assert _names_file(edited, path), (what, [str(d) for d in edited.diagnostics])
        return  # nothing is written while the input has errors
    after = commit(BASE_TREE, edited)
    changed = {
        p
        for p in set(BASE_TREE) | set(after)
        if p.startswith("clusters/") and BASE_TREE.get(p) != after.get(p)
    }
    if not changed:
        return
    plan = compare(side("base", BASE_TREE, BASE_RESULT), side("head", after, edited))
    shown = {o.path for o in plan.objects}
    assert changed <= shown, (what, sorted(changed - shown))
    if _names_file(edited, path):
        return
    templates = set()
    objects = set()
    for result in (BASE_RESULT, edited):
        more_templates, more_objects = _defined_in(result, path)
        templates |= more_templates
        objects |= more_objects
    touched_templates = {w.template for w in plan.workloads} | {
        o.template for o in plan.objects if o.template
    }
    touched_inputs = {(i.kind, i.namespace, i.name) for i in plan.inputs}
    assert templates & touched_templates or objects & touched_inputs, (what, sorted(changed))
