"""Schema checks of rendered manifests, end to end: reconcile refuses to write what the cluster's API server
would refuse, naming the cluster, the file, the template and the override; diff guards it; validate
reports it; CRDs in the repository are schemas; the version follows the Cluster object."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tests.builders import cluster_doc, deployment, pp_doc
from tests.fleet import FleetRepo

if TYPE_CHECKING:
    from pathlib import Path

WEB = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}


def _op(name: str, cluster: str, plaintext: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "resourceSelectors": [WEB],
            "overrideRules": [
                {"targetCluster": {"clusterNames": [cluster]}, "overriders": {"plaintext": plaintext}}
            ],
        },
    }


def _fleet(tmp_path: Path, extra: dict[str, Any] | None = None) -> FleetRepo:
    files: dict[str, Any] = {
        "apps/web.yaml": deployment("web", replicas=2),
        "policies/web.yaml": pp_doc("web", "default", [WEB]),
        **(extra or {}),
    }
    return FleetRepo.create(tmp_path / "fleet", files, clusters=2)


def test_an_override_that_breaks_the_schema_is_not_written_and_is_named(tmp_path: Path) -> None:
    repo = _fleet(tmp_path)
    repo.cli("reconcile")
    before = repo.read("clusters/member2/default/deployment.apps/web.yaml")
    repo.write(
        "overrides/bad.yaml",
        _op("bad", "member2", [{"path": "/spec/replica", "operator": "add", "value": 3}]),
    )
    repo.commit("a typo in an override")

    validated = repo.cli("validate", check=1)
    assert "spec.replica: unknown field" in validated.stderr

    diff = repo.cli("diff", "--base", "HEAD~1", "--head", "HEAD", "--fail-on", "schema", check=3)
    assert "SCHEMA PROBLEMS" in diff.stdout and "is schema-invalid" in diff.stdout
    markdown = repo.cli("diff", "--base", "HEAD~1", "--head", "HEAD", "-o", "markdown").stdout
    assert "### Schema problems" in markdown
    report = json.loads(repo.cli("diff", "--base", "HEAD~1", "--head", "HEAD", "-o", "json").stdout)
    assert [p["kind"] for p in report["problems"]] == ["schema-invalid"]

    done = repo.cli("reconcile", "-o", "json", check=1)
    errors = [d for d in json.loads(done.stdout)["diagnostics"] if d["severity"] == "error"]
    assert len(errors) == 1
    found = errors[0]
    assert found["code"] == "schema"
    assert found["file"] == "overrides/bad.yaml"  # the document to fix: the override
    assert found["field"] == "spec.overrideRules[0].overriders.plaintext[0]"
    for part in (
        "Deployment.apps/default/web",
        "apps/web.yaml[0]",
        "cluster 'member2'",
        "clusters/member2/default/deployment.apps/web.yaml",
        "Kubernetes 1.",
        "spec.replica: unknown field",
        "set by OverridePolicy/default/bad rule 0 plaintext[0] at /spec/replica",
    ):
        assert part in found["message"], part
    # member2 keeps its previous, valid manifest; member1 is unaffected
    assert repo.read("clusters/member2/default/deployment.apps/web.yaml") == before
    assert "replica:" not in repo.read("clusters/member2/default/deployment.apps/web.yaml").replace(
        "replicas:", ""
    )
    assert repo.exists("clusters/member1/default/deployment.apps/web.yaml")
    repo.cli("verify", check=None)


def test_a_template_error_is_blamed_on_the_template(tmp_path: Path) -> None:
    broken = deployment("web", replicas=2)
    broken["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": "http"}]
    repo = _fleet(tmp_path, {"apps/web.yaml": broken})
    done = repo.cli("reconcile", check=1)
    assert "apps/web.yaml[0] spec.template.spec.containers[0].ports[0].containerPort: schema:" in done.stderr
    assert "must be of type integer, not string (from the template)" in done.stderr
    assert not repo.exists("clusters/member1/default/deployment.apps/web.yaml")


def test_the_schema_version_follows_the_cluster(tmp_path: Path) -> None:
    """resizePolicy exists from Kubernetes 1.27: a 1.26 cluster refuses it, a 1.31 one takes it."""
    resizing = deployment("web", replicas=2)
    resizing["spec"]["template"]["spec"]["containers"][0]["resizePolicy"] = [
        {"resourceName": "cpu", "restartPolicy": "NotRequired"}
    ]
    old = cluster_doc("member1", labels={"env": "prod"})
    old["status"] = {"kubernetesVersion": "v1.26.3"}
    new = cluster_doc("member2", labels={"env": "prod"})
    new["status"] = {"kubernetesVersion": "v1.31.0"}
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "inventory/member1.yaml": old,
            "inventory/member2.yaml": new,
            "apps/web.yaml": resizing,
            "policies/web.yaml": pp_doc("web", "default", [WEB]),
        },
    )
    done = repo.cli("reconcile", check=1)
    assert "cluster 'member1'" in done.stderr and "Kubernetes 1.26 schema" in done.stderr
    assert "resizePolicy: unknown field" in done.stderr
    assert repo.exists("clusters/member2/default/deployment.apps/web.yaml")
    assert not repo.exists("clusters/member1/default/deployment.apps/web.yaml")


def _crd(upgrade_modes: list[str]) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "flinkdeployments.flink.apache.org"},
        "spec": {
            "group": "flink.apache.org",
            "scope": "Namespaced",
            "names": {"kind": "FlinkDeployment", "plural": "flinkdeployments"},
            "versions": [
                {
                    "name": "v1beta1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "properties": {
                                        "image": {"type": "string", "nullable": True},
                                        "parallelism": {"x-kubernetes-int-or-string": True},
                                        "upgradeMode": {"type": "string", "enum": upgrade_modes},
                                        "podTemplate": {
                                            "type": "object",
                                            "x-kubernetes-preserve-unknown-fields": True,
                                        },
                                    },
                                }
                            },
                        }
                    },
                }
            ],
        },
    }


FLINK = {
    "apiVersion": "flink.apache.org/v1beta1",
    "kind": "FlinkDeployment",
    "metadata": {"name": "job", "namespace": "default"},
    "spec": {
        "image": None,
        "parallelism": "2",
        "upgradeMode": "savepoint",
        "podTemplate": {"anything": {"goes": True}},
    },
}
FLINK_SELECTOR = {"apiVersion": "flink.apache.org/v1beta1", "kind": "FlinkDeployment", "name": "job"}


def test_crds_in_the_repository_are_the_schemas_of_their_kinds(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "apps/job.yaml": FLINK,
            "policies/job.yaml": pp_doc("job", "default", [FLINK_SELECTOR]),
        },
        clusters=1,
    )
    # no CRD: rendered, with one warning that says it was not checked and how to fix that
    unchecked = repo.cli("reconcile")
    assert "no schema: flink.apache.org/v1beta1 FlinkDeployment" in unchecked.stderr
    # the CRD arrives and allows the value: checked, no warning (nullable, int-or-string, preserved fields)
    repo.write("crds/flink.yaml", _crd(["savepoint", "stateless"]))
    repo.commit("the CRD")
    checked = repo.cli("reconcile")
    assert "no schema" not in checked.stderr
    # the CRD narrows the enum: the incremental run re-checks the custom resource (its fingerprint holds
    # the CRD's schema) and refuses it
    repo.write("crds/flink.yaml", _crd(["stateless"]))
    repo.commit("narrow the CRD")
    refused = repo.cli("reconcile", check=1)
    assert "CustomResourceDefinition flinkdeployments.flink.apache.org schema" in refused.stderr
    assert "spec.upgradeMode: 'savepoint' is not one of stateless" in refused.stderr
    # an unknown field is refused too (strict field validation)
    job = json.loads(json.dumps(FLINK))
    job["spec"]["upgradeMode"] = "stateless"
    job["spec"]["jarUri"] = "local:///x.jar"
    repo.write("apps/job.yaml", job)
    repo.commit("typo")
    assert "spec.jarUri: unknown field" in repo.cli("reconcile", check=1).stderr


def test_the_check_is_configurable(tmp_path: Path) -> None:
    config = {
        "apiVersion": "gitops-karmada.io/v1alpha1",
        "kind": "Config",
        "schemaCheck": {"unknownKinds": "Error"},
    }
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "gitops-karmada.yaml": config,
            "apps/job.yaml": FLINK,
            "policies/job.yaml": pp_doc("job", "default", [FLINK_SELECTOR]),
        },
        clusters=1,
    )
    assert "no schema (schemaCheck.unknownKinds: Error)" in repo.cli("reconcile", check=1).stderr
    repo.write("gitops-karmada.yaml", {**config, "schemaCheck": {"unknownKinds": "Ignore"}})
    repo.commit("ignore unknown kinds")
    assert "no schema" not in repo.cli("reconcile").stderr
    # strict: false lets unknown fields through, as kubectl's --validate=true (warn) would
    bad = deployment("web")
    bad["spec"]["replica"] = 3
    repo.write("apps/web.yaml", bad)
    repo.write("policies/web.yaml", pp_doc("web", "default", [WEB]))
    repo.write("gitops-karmada.yaml", {**config, "schemaCheck": {"strict": False, "unknownKinds": "Ignore"}})
    repo.commit("lenient")
    repo.cli("reconcile")
    assert repo.exists("clusters/member1/default/deployment.apps/web.yaml")
    repo.write("gitops-karmada.yaml", {**config, "schemaCheck": {"unknownKinds": "Ignore"}})
    repo.commit("strict again")
    assert "spec.replica: unknown field" in repo.cli("reconcile", check=1).stderr
    repo.write("gitops-karmada.yaml", {**config, "schemaCheck": {"enabled": False}})
    repo.commit("off")
    repo.cli("reconcile")
    wrong = {**config, "schemaCheck": {"kubernetesVersion": "latest"}}
    repo.write("gitops-karmada.yaml", wrong)
    repo.commit("bad version")
    assert "schemaCheck.kubernetesVersion" in repo.cli("validate", check=1).stderr


def test_validate_rendered_checks_the_committed_folders(tmp_path: Path) -> None:
    repo = _fleet(tmp_path)
    repo.cli("reconcile")
    clean = repo.cli("validate", "--rendered")
    assert "--rendered: 2 manifest(s) in the cluster folders checked" in clean.stderr
    repo.write(
        "clusters/member1/default/configmap/hand.yaml",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "hand"}, "data": {"n": 1}},
    )
    repo.commit("a hand-written file")
    found = repo.cli("validate", "--rendered", "-o", "json", check=1)
    errors = json.loads(found.stdout)["diagnostics"]
    assert [(e["file"], e["field"]) for e in errors] == [
        ("clusters/member1/default/configmap/hand.yaml", "data.n")
    ]
    assert "must be of type string, not integer" in errors[0]["message"]
    repo.cli("validate")  # without --rendered the folders are not read
