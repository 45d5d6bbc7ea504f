"""The namespace of a namespaced Karmada object as loading gives it: its own, or ``default`` when it names none
(what the API server stores), for every namespaced kind; a cluster-scoped kind keeps none."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.inputs.loading import load

if TYPE_CHECKING:
    from gitops_karmada.model.inputs import Inputs

POLICY = (
    "apiVersion: policy.karmada.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: one\n{namespace}spec:\n{spec}"
)
SELECTOR = "  resourceSelectors:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: web\n"
QUOTA = "  overall:\n    cpu: '1'\n"


def _loaded(kind: str, namespace_line: str, spec: str) -> Inputs:
    config, _ = load_config(None)
    text = POLICY.format(kind=kind, namespace=namespace_line, spec=spec)
    result = load({"p.yaml": text.encode()}, config)
    assert result.ok, result.diagnostics
    return result.inputs


@pytest.mark.parametrize(
    ("namespace_line", "expected"),
    [("  namespace: shop\n", "shop"), ("", "default"), ("  namespace: ''\n", "default")],
    ids=["named", "absent", "empty"],
)
def test_a_propagation_policy_lives_in_its_namespace_or_default(namespace_line: str, expected: str) -> None:
    (policy,) = _loaded("PropagationPolicy", namespace_line, SELECTOR).propagation_policies
    assert policy.namespace == expected
    # the webhook's defaults follow the namespace: a selector naming none selects in the policy's own
    assert [s.namespace for s in policy.spec.resource_selectors] == [expected]


@pytest.mark.parametrize(
    ("namespace_line", "expected"),
    [("  namespace: shop\n", "shop"), ("", "default")],
    ids=["named", "absent"],
)
def test_override_policies_and_quotas_live_in_their_namespace_or_default(
    namespace_line: str, expected: str
) -> None:
    (override,) = _loaded("OverridePolicy", namespace_line, SELECTOR).override_policies
    (quota,) = _loaded("FederatedResourceQuota", namespace_line, QUOTA).quotas
    assert (override.namespace, quota.namespace) == (expected, expected)


def test_a_cluster_scoped_policy_has_no_namespace() -> None:
    (policy,) = _loaded("ClusterPropagationPolicy", "", SELECTOR).cluster_propagation_policies
    assert policy.namespace == ""
