"""Bad input gets a clear error naming the file, the document and the field (one row per mistake)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import pytest

from gitops_karmada.core.detector import PolicyIndex
from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.inputs.loading import load
from gitops_karmada.core.lint import cross_object_warnings
from gitops_karmada.core.run_memo import RunMemo
from gitops_karmada.core.selectors import ImplicitPriority, resource_selector_priority
from gitops_karmada.model.diagnostics import Severity, SourceRef
from gitops_karmada.model.wellknown import CONFIG_FILE
from gitops_karmada.reconcile import reconcile
from tests import inprocess
from tests.cli.test_reconcile import WEB_POLICY
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from pathlib import Path

    from gitops_karmada.model.inputs import Inputs

NOW = "2026-01-01T00:00:00Z"
PP_HEAD = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: web\n  namespace: shop\n"
SELECTORS = "spec:\n  resourceSelectors:\n  - apiVersion: apps/v1\n    kind: Deployment\n"
DEPLOY = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
CLUSTER = "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata:\n"

CASES: list[tuple[str, str, str]] = [
    ("yaml-syntax", "a: b\n c: d\n", "bad.yaml[0]: line 2 column 3: mapping values are not allowed"),
    ("yaml-syntax-second-document", "a: 1\n---\nb: [1, 2\n", "bad.yaml[1]: line 4 column 1:"),
    (
        "yaml-duplicate-key",
        DEPLOY + "  name: a\n  name: b\n",
        'bad.yaml[0]: line 5 column 3: mapping key "name" already defined at line 4',
    ),
    ("yaml-non-string-key", DEPLOY + "  name: a\n  labels:\n    on: x\n", "bad.yaml[0]: line 6 column 5:"),
    ("document-is-a-list", "- a\n- b\n", "bad.yaml[0]: a document must be a mapping, not a list"),
    (
        "unknown-field",
        PP_HEAD + SELECTORS + "  placement:\n    clusterAfinity: {}\n",
        "bad.yaml[0] spec.placement.clusterAfinity: unknown field",
    ),
    (
        "zero-weight",
        PP_HEAD + SELECTORS + "  placement:\n    replicaScheduling:\n      weightPreference:\n"
        "        staticWeightList:\n        - targetCluster: {clusterNames: [a]}\n          weight: 0\n",
        "bad.yaml[0] spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight: must be > 0",
    ),
    (
        "bad-enum",
        PP_HEAD + SELECTORS + "  placement:\n    replicaScheduling:\n      replicaSchedulingType: Divdied\n",
        "bad.yaml[0] spec.placement.replicaScheduling.replicaSchedulingType: must be one of 'Duplicated' or "
        "'Divided', got 'Divdied'",
    ),
    (
        "missing-selectors",
        PP_HEAD + "spec:\n  placement: {}\n",
        "bad.yaml[0] spec.resourceSelectors: Required value",
    ),
    (
        "empty-selectors",
        PP_HEAD + "spec:\n  resourceSelectors: []\n",
        "bad.yaml[0] spec.resourceSelectors: must have at least 1 item(s)",
    ),
    (
        "selector-without-kind",
        PP_HEAD + "spec:\n  resourceSelectors:\n  - apiVersion: v1\n",
        "bad.yaml[0] spec.resourceSelectors[0].kind: Required value",
    ),
    (
        "affinity-and-affinities",
        PP_HEAD + SELECTORS + "  placement:\n    clusterAffinity: {}\n"
        "    clusterAffinities:\n    - affinityName: a\n",
        "bad.yaml[0] spec.placement: clusterAffinities cannot co-exist with clusterAffinity",
    ),
    (
        "spread-without-cluster",
        PP_HEAD + SELECTORS + "  placement:\n    spreadConstraints:\n    - spreadByField: region\n",
        "bad.yaml[0] spec.placement: the cluster spread constraint must be enabled",
    ),
    (
        "max-below-min",
        PP_HEAD
        + SELECTORS
        + "  placement:\n    spreadConstraints:\n    - maxGroups: 1\n      minGroups: 2\n",
        "bad.yaml[0] spec.placement.spreadConstraints[0]: maxGroups lower than minGroups is not allowed",
    ),
    (
        "field-selector-key",
        PP_HEAD + SELECTORS + "  placement:\n    clusterAffinity:\n      fieldSelector:\n"
        "        matchExpressions:\n        - {key: metadata.name, operator: In, values: [a]}\n",
        "spec.placement.clusterAffinity.fieldSelector.matchExpressions[0]: unsupported key 'metadata.name'",
    ),
    (
        "toleration-exists-with-value",
        PP_HEAD + SELECTORS + "  placement:\n    clusterTolerations:\n"
        "    - {key: a, operator: Exists, value: b}\n",
        "spec.placement.clusterTolerations[0]: value must be empty when operator is Exists",
    ),
    (
        "template-name-invalid",
        DEPLOY + "  name: Web_App\n",
        "bad.yaml[0] metadata.name: 'Web_App' is not a valid Kubernetes name",
    ),
    (
        "template-name-escapes",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: ../../etc/passwd\n",
        "bad.yaml[0] metadata.name: '../../etc/passwd' is not a valid Kubernetes name: it may not be '.' or '..' "
        "nor contain '/'",
    ),
    ("template-without-name", DEPLOY + "  labels: {a: b}\n", "bad.yaml[0] metadata.name: is required"),
    (
        "template-generate-name",
        DEPLOY + "  generateName: web-\n",
        "bad.yaml[0] metadata.name: generateName is not supported: a template needs a fixed name",
    ),
    (
        "template-namespace-invalid",
        DEPLOY + "  name: web\n  namespace: Shop\n",
        "bad.yaml[0] metadata.namespace: 'Shop' is not a valid namespace",
    ),
    (
        "template-metadata-missing",
        "apiVersion: v1\nkind: ConfigMap\ndata: {}\n",
        "bad.yaml[0] metadata: is required and must be a mapping",
    ),
    (
        "template-label-not-a-string",
        DEPLOY + "  name: web\n  labels:\n    replicas: 3\n",
        "bad.yaml[0] metadata.labels['replicas']: must be a string, got a number (quote it)",
    ),
    (
        "template-label-value-invalid",
        DEPLOY + "  name: web\n  labels:\n    team: 'a b'\n",
        "bad.yaml[0] metadata.labels['team']: label value 'a b' must be 63 characters or less",
    ),
    (
        "duplicate-template",
        DEPLOY + "  name: web\n---\n" + DEPLOY + "  name: web\n",
        "bad.yaml[1]: duplicate object Deployment.apps/default/web (also defined in bad.yaml[0])",
    ),
    (
        "duplicate-policy",
        PP_HEAD + SELECTORS + "---\n" + PP_HEAD + SELECTORS,
        "bad.yaml[1]: duplicate PropagationPolicy 'shop/web' (also defined in bad.yaml[0])",
    ),
    (
        "policy-name-invalid",
        PP_HEAD.replace("name: web", "name: Web") + SELECTORS,
        "bad.yaml[0] metadata.name: 'Web' is not a valid name",
    ),
    (
        "cluster-name-invalid",
        CLUSTER + "  name: Member_1\n",
        "bad.yaml[0] metadata: cluster name 'Member_1' must be a DNS-1123 label of at most 48 characters",
    ),
    (
        "cluster-bad-quantity",
        CLUSTER + "  name: m1\nstatus:\n  resourceSummary:\n    allocatable: {cpu: lots}\n",
        "bad.yaml[0] status.resourceSummary.allocatable.cpu: quantities must match the regular expression",
    ),
    (
        "cluster-taint-effect",
        CLUSTER + "  name: m1\nspec:\n  taints:\n  - {key: a, effect: Sometimes}\n",
        "bad.yaml[0] spec.taints[0].effect: must be one of 'NoSchedule', 'PreferNoSchedule' or 'NoExecute'",
    ),
    (
        "karmada-old-version",
        "apiVersion: policy.karmada.io/v1beta1\nkind: PropagationPolicy\nmetadata: {name: a}\n",
        "bad.yaml[0] apiVersion: unsupported apiVersion 'policy.karmada.io/v1beta1' for PropagationPolicy: use "
        "policy.karmada.io/v1alpha1",
    ),
    (
        "binding-in-input",
        "apiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\nmetadata: {name: a}\n",
        "bad.yaml[0] apiVersion: binding records are not input: they live in karmada-state/",
    ),
    (
        "override-without-value",
        "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: o}\n"
        "spec:\n  overrideRules:\n  - overriders:\n      plaintext:\n      - {path: /spec/replicas, operator: add}\n",
        "bad.yaml[0] spec.overrideRules[0].overriders.plaintext[0]: value is required for operator add",
    ),
    (
        "overriders-null",
        "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: o}\n"
        "spec:\n  overrideRules:\n  - overriders:\n",
        "bad.yaml[0] spec.overrideRules[0].overriders: Required value",
    ),
    (
        "quota-without-overall",
        "apiVersion: policy.karmada.io/v1alpha1\nkind: FederatedResourceQuota\n"
        "metadata: {name: q}\nspec: {}\n",
        "bad.yaml[0] spec.overall: Required value",
    ),
    (
        "config-in-the-wrong-place",
        "apiVersion: gitops-karmada.io/v1alpha1\nkind: Config\n",
        "bad.yaml[0]: the tool configuration belongs in gitops-karmada.yaml, the fleet's own (one per fleet)",
    ),
    (
        "list-item-not-a-mapping",
        "apiVersion: v1\nkind: List\nitems:\n- 3\n",
        "bad.yaml[0] items[0]: must be a mapping, not a number",
    ),
    (
        "document-without-apiversion",
        "title: not a Kubernetes object\n",
        "bad.yaml[0] apiVersion: is required: every document under the input folders must be a Kubernetes "
        "object (give it apiVersion and kind, or list the file under exclude: in gitops-karmada.yaml)",
    ),
    (
        "template-lost-its-apiversion",
        "kind: Deployment\nmetadata:\n  name: web\n",
        "bad.yaml[0] apiVersion: is required",
    ),
    ("template-without-kind", "apiVersion: v1\nmetadata: {name: a}\n", "bad.yaml[0] kind: is required"),
    (
        "kind-in-the-wrong-case",
        "apiVersion: v1\nkind: configmap\nmetadata: {name: a}\n",
        "bad.yaml[0] kind: the core group (apiVersion: v1) has no kind 'configmap'; kinds are case-sensitive: "
        "did you mean 'ConfigMap'?",
    ),
    (
        "kind-with-a-group-suffix",
        "apiVersion: v1\nkind: Deployment.apps\nmetadata: {name: a}\n",
        "bad.yaml[0] kind: 'Deployment.apps' is not a valid kind",
    ),
    (
        "kind-with-a-slash",
        "apiVersion: example.com/v1\nkind: x/y\nmetadata: {name: a}\n",
        "bad.yaml[0] kind: 'x/y' is not a valid kind",
    ),
    ("kind-dot-dot", "apiVersion: example.com/v1\nkind: '..'\nmetadata: {name: a}\n", "kind: '..' is not"),
    (
        "apiversion-escapes",
        "apiVersion: ../../../etc/v1\nkind: Widget\nmetadata: {name: a}\n",
        "bad.yaml[0] apiVersion: '../../../etc/v1' is not a valid apiVersion: the group '../../../etc' must be",
    ),
    (
        "two-kinds-one-file",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\n---\n"
        "apiVersion: example.com/v1\nkind: WIDGET\nmetadata: {name: a}\n",
        "bad.yaml[1]: WIDGET.example.com/default/a and Widget.example.com/default/a would be written to the "
        "same files (also defined in bad.yaml[0])",
    ),
    (
        "python-tag",
        DEPLOY + "  name: web\nspec:\n  replicas: !!python/int '5'\n",
        "bad.yaml[0]: line 6 column 13: unsupported YAML tag !!python/int",
    ),
    (
        "nested-too-deep",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  x: " + "[" * 200 + "]" * 200 + "\n",
        "bad.yaml[0]: line 5 column 132: nested more than 128 levels deep",
    ),
    (
        "list-item-invalid",
        "apiVersion: v1\nkind: List\nitems:\n- " + DEPLOY.replace("\n", "\n  ") + "  name: Bad\n",
        "bad.yaml[0] items[0].metadata.name: 'Bad' is not a valid Kubernetes name",
    ),
]


def test_karmada_kinds_that_are_not_supported_or_in_a_wrong_group_are_warned_about_and_skipped() -> None:
    config, _ = load_config(None)
    text = (
        "apiVersion: karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: o, namespace: shop}\n---\n"
        "apiVersion: networking.karmada.io/v1alpha1\nkind: MultiClusterIngress\nmetadata: {name: i}\n---\n"
        "apiVersion: example.karmada.io/v1\nkind: Gadget\nmetadata: {name: g}\n"
    )
    result = load({"k.yaml": text.encode()}, config)
    assert {d.severity for d in result.diagnostics} == {Severity.WARNING}
    assert [str(d) for d in result.diagnostics] == [
        "k.yaml[0] apiVersion: karmada.io/v1alpha1 OverridePolicy is not a Karmada API that "
        "gitops-karmada knows; ignored (did you mean apiVersion policy.karmada.io/v1alpha1?)",
        "k.yaml[1]: networking.karmada.io/v1alpha1 MultiClusterIngress is not supported by "
        "gitops-karmada; ignored",
        "k.yaml[2] apiVersion: example.karmada.io/v1 Gadget is not a Karmada API that gitops-karmada "
        "knows; ignored",
    ]
    assert result.inputs.templates == ()


def test_an_invalid_label_selector_is_admitted_selects_nothing_and_is_warned_about() -> None:
    """Karmada's admission accepts it; ``LabelSelectorAsSelector`` fails in the matcher, so no match."""
    config, _ = load_config(None)
    text = (
        PP_HEAD + "spec:\n  resourceSelectors:\n  - apiVersion: apps/v1\n    kind: Deployment\n"
        "    labelSelector:\n      matchExpressions:\n      - {key: app, operator: In}\n"
        "  placement:\n    clusterAffinity:\n      labelSelector:\n        matchLabels: {'': x}\n"
        "---\n" + DEPLOY + "  name: web\n  namespace: shop\n  labels: {app: web}\n"
    )
    result = load({"bad.yaml": text.encode()}, config)
    assert result.ok
    policy = result.inputs.propagation_policies[0]
    template = result.inputs.templates[0]
    priority = resource_selector_priority(template.body, policy.spec.resource_selectors[0])
    assert priority is ImplicitPriority.MISMATCH
    index = PolicyIndex.build(result.inputs.propagation_policies, result.inputs.cluster_propagation_policies)
    warnings = [str(d) for d in cross_object_warnings(result.inputs, index)]
    assert warnings[:2] == [
        "bad.yaml[0] spec.resourceSelectors[0].labelSelector: invalid label selector (matchExpressions[0]: "
        "values must be non-empty for operator In): it selects nothing, as in Karmada",
        "bad.yaml[0] spec.placement.clusterAffinity.labelSelector: invalid label selector (matchLabels: "
        "key '' must be 63 characters or less, begin and end with an alphanumeric character and contain "
        "only alphanumerics, '-', '_' or '.'): it selects nothing, as in Karmada",
    ]


def test_a_run_without_the_lint_has_everything_but_its_warnings() -> None:
    """``ReconcileRequest.lint=False`` (diff, which reports errors only) skips the cross-object warnings and
    nothing else."""
    text = (
        PP_HEAD + "spec:\n  resourceSelectors:\n  - apiVersion: apps/v1\n    kind: Deployment\n"
        "    labelSelector:\n      matchExpressions:\n      - {key: app, operator: In}\n"
        "---\n" + DEPLOY + "  name: web\n  namespace: shop\n  labels: {app: web}\n"
    )
    request = inprocess.request({"bad.yaml": text.encode()}, NOW)
    linted, unlinted = reconcile(request), reconcile(request.with_mode(lint=False))
    assert linted.inputs is not None
    index = PolicyIndex.build(linted.inputs.propagation_policies, linted.inputs.cluster_propagation_policies)
    lint = [str(d) for d in cross_object_warnings(linted.inputs, index)]
    assert lint and [str(d) for d in unlinted.diagnostics] == [
        str(d) for d in linted.diagnostics if str(d) not in lint
    ]
    assert unlinted.files == linted.files and unlinted.outcomes == linted.outcomes


def test_an_optional_field_given_null_is_dropped_as_the_api_server_does() -> None:
    config, _ = load_config(None)
    text = (
        "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: o, namespace: shop}\n"
        "spec:\n  resourceSelectors:\n  - {apiVersion: apps/v1, kind: Deployment, name: null}\n"
        "  overrideRules:\n---\n" + PP_HEAD + SELECTORS + "  placement:\n    clusterAffinity:\n"
    )
    result = load({"ok.yaml": text.encode()}, config)
    assert [str(d) for d in result.diagnostics] == []
    (override,) = result.inputs.override_policies
    assert override.spec.override_rules == ()
    assert override.spec.resource_selectors[0].name == ""
    (policy,) = result.inputs.propagation_policies
    assert policy.spec.placement.cluster_affinity is None


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_reported_with_its_location(text: str, expected: str) -> None:
    config, _ = load_config(None)
    result = load({"bad.yaml": text.encode()}, config)
    errors = [str(d) for d in result.diagnostics if d.severity is Severity.ERROR]
    assert not result.ok
    assert any(expected in line for line in errors), "\n".join(errors)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "featureGates:\n  PolicyPreemtion: true\n",
            "gitops-karmada.yaml[0] featureGates.PolicyPreemtion: must be one of 'PropagateDeps'",
        ),
        (
            "output:\n  clustersDir: ../elsewhere\n",
            "gitops-karmada.yaml[0] output.clustersDir: '../elsewhere'",
        ),
        ("- 1\n", "gitops-karmada.yaml[0]: must hold exactly one mapping document"),
    ],
    ids=["unknown-feature-gate", "output-escapes-the-repository", "not-a-mapping"],
)
def test_bad_configuration_is_reported(text: str, expected: str) -> None:
    _, diagnostics = load_config(text.encode())
    assert any(expected in str(d) for d in diagnostics), [str(d) for d in diagnostics]


def test_a_file_name_that_is_not_utf8_is_an_error_not_a_crash() -> None:
    config, _ = load_config(None)
    name = b"apps/caf\xe9.yaml".decode("utf-8", "surrogateescape")  # as git hands such a name over
    result = load({name: (DEPLOY + "  name: web\n").encode()}, config)
    assert [str(d) for d in result.diagnostics] == [
        "apps/caf\\xe9.yaml[0]: the file name is not valid UTF-8; rename it (or exclude it in "
        "gitops-karmada.yaml)"
    ]


def test_excluded_files_are_not_read(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            CONFIG_FILE: "exclude: ['docs/*']\n",
            "docs/notes.yaml": "title: not a Kubernetes object\n",
            "policies/web.yaml": WEB_POLICY,
        },
    )
    repo.cli("validate")


def test_validate_reports_every_error_of_every_file_and_exits_1(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "a.yaml": CASES[6][1],
            "b.yaml": CASES[17][1],
            "c.yaml": "x: [\n",
            "policies/web.yaml": WEB_POLICY,
        },
    )
    done = repo.cli("validate", check=1)
    assert "3 error(s) found" in done.stderr
    for name in ("a.yaml[0] spec.placement", "b.yaml[0] metadata.name", "c.yaml[0]: line 2"):
        assert name in done.stderr
    assert CONFIG_FILE not in done.stderr


def test_validate_worktree_checks_files_before_they_are_committed(tmp_path: Path) -> None:
    repo = FleetRepo.create(tmp_path / "fleet", {"policies/web.yaml": WEB_POLICY})
    repo.cli("validate")
    repo.write("b.yaml", CASES[17][1])
    repo.cli("validate")
    done = repo.cli("validate", "--worktree", check=1)
    assert "b.yaml[0] metadata.name" in done.stderr


def test_invalid_label_selectors_are_found_wherever_a_policy_can_hold_one() -> None:
    """The lint walks only the fields whose type can hold a selector; none of those is skipped."""
    config, _ = load_config(None)
    bad = "{matchLabels: {'': x}}"
    text = (
        PP_HEAD + "spec:\n  resourceSelectors:\n  - {apiVersion: apps/v1, kind: Deployment}\n"
        "  placement:\n"
        f"    clusterAffinities:\n    - affinityName: first\n      labelSelector: {bad}\n"
        "    replicaScheduling:\n      replicaSchedulingType: Divided\n"
        "      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList:\n"
        f"        - targetCluster: {{labelSelector: {bad}}}\n          weight: 1\n"
        "---\napiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\n"
        "metadata: {name: op, namespace: shop}\n"
        f"spec:\n  resourceSelectors:\n  - {{apiVersion: apps/v1, kind: Deployment, labelSelector: {bad}}}\n"
        f"  overrideRules:\n  - targetCluster: {{labelSelector: {bad}}}\n"
        "    overriders:\n      plaintext:\n      - {path: /spec/replicas, operator: replace, value: 2}\n"
    )
    result = load({"bad.yaml": text.encode()}, config)
    assert result.ok, result.diagnostics
    index = PolicyIndex.build(result.inputs.propagation_policies, result.inputs.cluster_propagation_policies)
    fields = {
        str(d).split(": invalid label selector")[0]
        for d in cross_object_warnings(result.inputs, index)
        if "invalid label selector" in str(d)
    }
    assert fields == {
        "bad.yaml[0] spec.placement.clusterAffinities[0].labelSelector",
        "bad.yaml[0] spec.placement.replicaScheduling.weightPreference.staticWeightList[0].targetCluster"
        ".labelSelector",
        "bad.yaml[1] spec.resourceSelectors[0].labelSelector",
        "bad.yaml[1] spec.overrideRules[0].targetCluster.labelSelector",
    }


def test_the_lint_recalled_by_a_long_lived_process_follows_the_inventory_and_the_sources() -> None:
    """A warm run recalls each policy's own warnings while the policy, its source and the inventory's names
    are the same: the very same policy object loses its warning when the cluster it names joins, and its
    warnings follow it to another file."""
    config, _ = load_config(None)
    policy = (
        PP_HEAD
        + SELECTORS
        + "    labelSelector:\n      matchExpressions:\n      - {key: app, operator: In}\n"
        "  placement:\n    clusterAffinity:\n      clusterNames: [member1, member3]\n"
    )
    member = CLUSTER + "  name: {}\nspec: {{}}\n"
    loaded = load(
        {
            "policy.yaml": policy.encode(),
            "member1.yaml": member.format("member1").encode(),
            "member3.yaml": member.format("member3").encode(),
        },
        config,
    )
    assert loaded.ok
    full = loaded.inputs
    index = PolicyIndex.build(full.propagation_policies, full.cluster_propagation_policies)
    memo = RunMemo()

    def lint(inputs: Inputs) -> list[str]:
        memo.begin_run()
        warm = [str(d) for d in cross_object_warnings(inputs, index, memo)]
        assert warm == [str(d) for d in cross_object_warnings(inputs, index)]  # what a cold run says
        return warm

    without = replace(full, clusters=tuple(c for c in full.clusters if c.name != "member3"))
    first = lint(without)
    assert any("cluster 'member3' is not in the inventory" in w for w in first)
    assert any(w.startswith("policy.yaml[0] spec.resourceSelectors[0].labelSelector") for w in first)
    assert lint(without) == first
    assert not any("member3" in w for w in lint(full))
    ident = ("PropagationPolicy", "shop", "web")
    moved = replace(without, sources={**without.sources, ident: SourceRef("moved.yaml", 0)})
    assert [w.replace("moved.yaml", "policy.yaml") for w in lint(moved)] == first
    assert all("policy.yaml" not in w for w in lint(moved))
