"""The changed fields of a manifest, named in the PR diff and in verify's report of a hand edit."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tests.builders import deployment
from tests.cli.test_reconcile import shop

if TYPE_CHECKING:
    from pathlib import Path

WEB = "clusters/member1/shop/deployment.apps/web.yaml"


def test_the_diff_names_the_fields_each_manifest_changes(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    base = repo.head()
    repo.write("apps/web.yaml", deployment("web", "shop", replicas=8, image="nginx:1.28"))
    head = repo.commit("web: 8 replicas, nginx 1.28")
    report = json.loads(repo.cli("diff", "--base", base, "--head", head, "-o", "json", check=1).stdout)
    web = next(o for o in report["manifests"] if o["path"] == WEB)
    assert web["fields"] == [
        "spec.replicas: 3 → 6",
        "spec.template.spec.containers[0].image: nginx:1.27 → nginx:1.28",
    ]
    markdown = repo.cli("diff", "--base", base, "--head", head, "-o", "markdown", check=1).stdout
    assert "- `spec.replicas: 3 → 6`" in markdown
    assert "~ spec.replicas: 3 → 6" in repo.cli("diff", "--base", base, "--head", head, check=1).stdout


def test_verify_names_the_fields_of_a_hand_edit(tmp_path: Path) -> None:
    repo = shop(tmp_path)
    repo.cli("reconcile")
    repo.write(WEB, repo.read(WEB).replace("replicas: 3", "replicas: 7"))
    repo.commit("hot fix in the cluster folder")
    verified = repo.cli("verify", check=1)
    assert f"{WEB}: tool-written file changed by hand in " in verified.stdout
    assert ": spec.replicas: 3 → 7" in verified.stdout
