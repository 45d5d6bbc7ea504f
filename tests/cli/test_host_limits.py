"""``output.hostLimits`` end to end: ``reconcile`` warns of each folder the commit leaves past the entry
limit (files kept from before counted) and each file past the size limit, in the log and in ``-o json``."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from tests.builders import configmap, cpp_doc
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

FOLDER = "clusters/member1/shop/configmap"
RECORDS = "karmada-state/bindings/shop/configmap"


def config(buckets: int = 0, **limits: int) -> dict[str, Any]:
    output = {"hostLimits": limits, "buckets": buckets}
    return {"apiVersion": "gitops-karmada.io/v1alpha1", "kind": "Config", "output": output}


def warned(done_stderr: str) -> list[str]:
    return [line for line in done_stderr.splitlines() if "a Git host" in line]


def host_limit_items(stdout: str) -> dict[str, str]:
    report = json.loads(stdout)
    return {d["subject"]: d["message"] for d in report["diagnostics"] if d.get("code") == "host-limit"}


def test_a_folder_past_the_limit_is_warned_of_counting_what_it_keeps(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "gitops-karmada.yaml": config(maxFolderEntries=5),
            "policies/configs.yaml": cpp_doc("configs", [{"apiVersion": "v1", "kind": "ConfigMap"}]),
            **{f"apps/c{i}.yaml": configmap(f"c{i}", "shop") for i in range(4)},
        },
        clusters=1,
    )
    quiet = repo.cli("reconcile")
    assert warned(quiet.stderr) == []

    # two more: this run writes two files, the folder holds six
    for i in (4, 5):
        repo.write(f"apps/c{i}.yaml", configmap(f"c{i}", "shop"))
    repo.commit("two more")
    done = repo.cli("reconcile", "-o", "json")
    assert json.loads(done.stdout)["outcome"] == "committed"
    items = host_limit_items(done.stdout)
    assert sorted(items) == [FOLDER, RECORDS]
    assert items[FOLDER].startswith(f"{FOLDER}/ would hold 6 entries, more than the 5")
    assert "output.buckets: 16" in items[FOLDER]
    lines = warned(done.stderr)
    assert len(lines) == 2 and all(line.startswith("warning") for line in lines)
    assert any(FOLDER + "/ would hold 6 entries" in line for line in lines)

    # one deleted: back at the limit, nothing to say
    repo.delete("apps/c5.yaml")
    repo.commit("one fewer")
    assert warned(repo.cli("reconcile").stderr) == []

    # in bucket folders, no folder is past the limit
    repo.write("apps/c5.yaml", configmap("c5", "shop"))
    repo.write("gitops-karmada.yaml", config(buckets=16, maxFolderEntries=5))
    repo.commit("bucketed")
    done = repo.cli("reconcile", "-o", "json")
    assert host_limit_items(done.stdout) == {}
    repo.cli("verify")


def test_a_rendered_file_past_the_size_limit_is_warned_of(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "gitops-karmada.yaml": config(maxFileBytes=2000),
            "policies/configs.yaml": cpp_doc("configs", [{"apiVersion": "v1", "kind": "ConfigMap"}]),
            "apps/small.yaml": configmap("small", "shop"),
            "apps/big.yaml": configmap("big", "shop", data={"blob": "x" * 3000}),
        },
        clusters=2,
    )
    done = repo.cli("reconcile", "-o", "json")
    items = host_limit_items(done.stdout)
    assert sorted(items) == [f"clusters/member{i}/shop/configmap/big.yaml" for i in (1, 2)]
    assert all("bytes, more than the 2,000" in message for message in items.values())
    assert len(warned(done.stderr)) == 2


def test_validate_rendered_judges_every_committed_cluster_folder(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "policies/configs.yaml": cpp_doc("configs", [{"apiVersion": "v1", "kind": "ConfigMap"}]),
            **{f"apps/c{i}.yaml": configmap(f"c{i}", "shop") for i in range(6)},
        },
        clusters=1,
    )
    repo.cli("reconcile")
    assert validate_items(repo) == {}
    repo.write("gitops-karmada.yaml", config(maxFolderEntries=5))
    repo.commit("a lower limit")
    items = validate_items(repo)
    assert list(items) == [FOLDER]
    assert items[FOLDER].startswith(f"{FOLDER}/ would hold 6 entries")


def validate_items(repo: FleetRepo) -> dict[str, str]:
    report = json.loads(repo.cli("validate", "--rendered", "-o", "json").stdout)
    return {d["subject"]: d["message"] for d in report["diagnostics"] if "a Git host" in d["message"]}


def test_the_state_index_keeps_each_file_within_the_size_limit(tmp_path: Path) -> None:
    repo = FleetRepo.create(
        tmp_path / "fleet",
        {
            "gitops-karmada.yaml": config(maxFileBytes=4000),
            "policies/configs.yaml": cpp_doc("configs", [{"apiVersion": "v1", "kind": "ConfigMap"}]),
            **{f"apps/c{i}.yaml": configmap(f"c{i:02d}", "shop") for i in range(40)},
        },
        clusters=2,
    )
    done = repo.cli("reconcile", "-o", "json")
    assert host_limit_items(done.stdout) == {}
    index = repo.tree("karmada-state/index")
    assert len(index) > 1 and all(
        re.fullmatch(r"karmada-state/index/shop\.\d+-of-\d+\.json", p) for p in index
    )
    assert all(len(repo.read(p)) <= 2000 for p in index), "half the limit: room for a fuller bucket"

    repo.write("apps/c7.yaml", configmap("c07", "shop", data={"key": "changed"}))
    repo.commit("one changed")
    repo.cli("reconcile")
    changed = git(repo.path, "diff", "--name-only", "HEAD~1", "HEAD", "--", "karmada-state/index").split()
    assert len(changed) == 1, "one template: one bucket of its namespace rewritten"
    repo.cli("verify")

    for i in range(3, 40):
        repo.delete(f"apps/c{i}.yaml")
    repo.commit("most deleted")
    repo.cli("reconcile")
    assert repo.tree("karmada-state/index") == ["karmada-state/index/shop.json"]
    repo.cli("verify")
