"""``validate -o json|github``: the findings as data, and as GitHub annotations on the file and line."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tests.builders import deployment
from tests.cli.test_reconcile import shop

if TYPE_CHECKING:
    from pathlib import Path

    from tests.fleet import FleetRepo


SHOP_NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}


def _broken(tmp_path: Path) -> FleetRepo:
    repo = shop(tmp_path)
    # a document starting at its `---` on line 2, without apiVersion
    repo.write(
        "apps/two.yaml", "# two documents\n---\nkind: Deployment\nmetadata: {name: a, namespace: shop}\n"
    )
    repo.write(
        "apps/typo.yaml", deployment("api", "shop", labels={"tier": "backend"})
    )  # selected by no policy
    repo.write("apps/bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n")
    repo.commit("two broken files")
    return repo


def test_github_annotations_name_file_and_line(tmp_path: Path) -> None:
    repo = _broken(tmp_path)
    lines = repo.cli("validate", "-o", "github", check=1).stdout.splitlines()
    assert (
        "::error file=apps/two.yaml,line=2,title=gitops-karmada validate%3A apiVersion::is required: every "
        "document under the input folders must be a Kubernetes object (give it apiVersion and kind, or list the "
        "file under exclude: in gitops-karmada.yaml)"
    ) in lines
    bad = next(line for line in lines if "file=apps/bad.yaml" in line)
    assert bad.startswith("::error file=apps/bad.yaml,line=5,")  # the line the YAML parser reports
    assert len(lines) == 2


def test_warnings_are_warning_annotations_and_errors_under_strict(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.write(
        "apps/typo.yaml", deployment("api", "shop", labels={"tier": "backend"})
    )  # selected by no policy
    repo.write("namespaces/shop.yaml", SHOP_NAMESPACE)  # its namespace is created: that is not the warning
    repo.commit("a Deployment nobody selects")
    (warning,) = repo.cli("validate", "-o", "github").stdout.splitlines()
    assert warning.startswith("::warning file=apps/typo.yaml,line=1,title=gitops-karmada validate::")
    (strict,) = repo.cli("validate", "-o", "github", "--strict", check=1).stdout.splitlines()
    assert strict.startswith("::error file=apps/typo.yaml,line=1,")


def test_json_output_lists_every_finding_and_keeps_the_exit_code(tmp_path: Path) -> None:
    repo = _broken(tmp_path)
    report = json.loads(repo.cli("validate", "-o", "json", check=1).stdout)
    assert (report["valid"], report["errors"], report["warnings"]) == (False, 2, 0)
    two = next(d for d in report["diagnostics"] if d["file"] == "apps/two.yaml")
    assert (two["severity"], two["document"], two["line"], two["field"]) == ("error", 0, 2, "apiVersion")
    clean = shop(tmp_path / "clean")
    clean.write("namespaces/shop.yaml", SHOP_NAMESPACE)
    clean.commit("the namespace its templates use")
    assert json.loads(clean.cli("validate", "-o", "json").stdout) == {
        "valid": True,
        "errors": 0,
        "warnings": 0,
        "diagnostics": [],
    }


POLICY = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
  namespace: shop
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: web
  placement:
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
          - targetCluster: {clusterNames: [member1]}
            weight: 0
"""


def test_an_annotation_points_at_the_line_of_the_field(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.write("policies/web.yaml", POLICY)
    repo.commit("a zero weight")
    for where in ((), ("--worktree",)):
        (line,) = repo.cli("validate", *where, "-o", "github", check=1).stdout.splitlines()
        assert line.startswith("::error file=policies/web.yaml,line=18,title=gitops-karmada validate%3A "
                               "spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight::")  # fmt: skip
