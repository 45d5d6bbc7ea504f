"""The consumers repo-layout/sync/ ships for each ``output.mode`` (docs/output-modes.md): Flux with a sparse
checkout of one cluster's folder (``tree``), Flux and Argo CD on a branch per cluster, Flux and Argo CD on a
repository per group. Each manifest is checked against its engine's fields, and its repository, branch and
path against what the reconciler writes and pushes for the example fleet: the folder a consumer applies must
be the very tree of that cluster's files that the single-tree mode writes (every cluster's differs, so a
consumer pointed at another cluster's folder, a wrong branch or a wrong folder fails)."""

from __future__ import annotations

import fnmatch
import posixpath
import re
import shutil
from typing import TYPE_CHECKING, Any

import pytest
from ruamel.yaml import YAML

from gitops_karmada.model.config import OutputMode
from tests.action.scenarios import REPO_LAYOUT
from tests.cli.test_shipped_loop import (
    CLUSTERS,
    FLUX_GITREPOSITORY_FIELDS,
    FLUX_KUSTOMIZATION_FIELDS,
    GO_DURATION,
    SYNC,
    _yaml,
)
from tests.fleet import FleetRepo
from tests.gitrepos import git

if TYPE_CHECKING:
    from pathlib import Path

SOURCE_URL = "https://github.com/example/fleet"
"""The fleet repository's URL in the shipped wiring (the tests' bare ``origin`` stands for it)."""
MODE_OF_FOLDER = {
    "flux": OutputMode.TREE,
    "argocd": OutputMode.TREE,
    "flux-sparse": OutputMode.TREE,
    "branch-per-cluster": OutputMode.BRANCH_PER_CLUSTER,
    "repo-per-group": OutputMode.REPO_PER_GROUP,
}

# Argo CD v1alpha1 fields (argoproj.io: ApplicationSetSpec, its Git and List generators, ApplicationSpec and
# ApplicationSource)
ARGO_APPLICATIONSET_FIELDS = {
    "goTemplate", "goTemplateOptions", "generators", "template", "syncPolicy", "strategy", "preservedFields",
    "ignoreApplicationDifferences", "templatePatch", "applyNestedSelectors",
}  # fmt: skip
ARGO_GIT_GENERATOR_FIELDS = {
    "repoURL", "revision", "directories", "files", "pathParamPrefix", "requeueAfterSeconds", "template",
    "values",
}  # fmt: skip
ARGO_LIST_GENERATOR_FIELDS = {"elements", "elementsYaml", "template"}
ARGO_APPLICATION_FIELDS = {
    "source", "sources", "destination", "project", "syncPolicy", "ignoreDifferences", "info",
    "revisionHistoryLimit", "sourceHydrator",
}  # fmt: skip
ARGO_SOURCE_FIELDS = {
    "repoURL", "path", "targetRevision", "helm", "kustomize", "directory", "plugin", "chart", "ref", "name",
}  # fmt: skip
GO_PLACEHOLDER = re.compile(r"\{\{\s*\.([A-Za-z_][\w.]*)\s*\}\}")


@pytest.fixture(scope="module")
def tree_output(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """repo-layout/ reconciled in ``tree`` mode: the repository, and the tree id of each cluster's folder."""
    repo = FleetRepo(tmp_path_factory.mktemp("tree") / "fleet")
    shutil.copytree(REPO_LAYOUT, repo.path)
    git(repo.path, "init", "-q", "-b", "main")
    repo.commit("example fleet")
    repo.cli("reconcile")
    trees = {c: git(repo.path, "rev-parse", f"main:clusters/{c}") for c in CLUSTERS}
    assert len(set(trees.values())) == len(CLUSTERS), "every cluster's folder differs, so a wrong one shows"
    return repo.path, trees


def _switched(tree_repo: Path, work: Path, output: dict[str, Any]) -> Path:
    """A clone of the tree-mode fleet pushed to a bare ``origin``, its ``output`` switched to ``output``
    (over the example's), reconciled with ``--push``: ``origin`` as the consumers read it."""
    origin = work / "fleet.git"
    git(work, "clone", "-q", "--bare", str(tree_repo), str(origin))
    git(work, "clone", "-q", str(origin), str(work / "fleet"))
    repo = FleetRepo(work / "fleet")
    git(repo.path, "config", "user.name", "t")
    git(repo.path, "config", "user.email", "t@t")
    (config,) = _yaml(repo.path / "gitops-karmada.yaml")
    config["output"] = {**config["output"], **output}
    repo.write("gitops-karmada.yaml", config)
    repo.commit(f"output.mode {output['mode']}")
    moved = repo.cli("reconcile", "--push")
    assert "moved the cluster folders out of clusters/" in moved.stderr
    assert git(origin, "rev-parse", "main") == repo.head()
    assert "clusters" not in git(origin, "ls-tree", "--name-only", "main").splitlines(), (
        "the source branch keeps the inputs, records and state only"
    )
    return origin


@pytest.fixture(scope="module")
def branch_per_cluster(
    tmp_path_factory: pytest.TempPathFactory, tree_output: tuple[Path, dict[str, str]]
) -> Path:
    """The example in ``branch-per-cluster`` mode with the default branch and folder: its remote."""
    return _switched(tree_output[0], tmp_path_factory.mktemp("branches"), {"mode": "branch-per-cluster"})


def _documented_groups() -> dict[str, Any]:
    """The ``output:`` block sync/repo-per-group/README.md says the wiring goes with."""
    (block,) = re.findall(
        r"```yaml\n(.*?)```", (SYNC / "repo-per-group" / "README.md").read_text(), re.DOTALL
    )
    output: dict[str, Any] = YAML(typ="safe").load(block)["output"]
    return output


@pytest.fixture(scope="module")
def repo_per_group(
    tmp_path_factory: pytest.TempPathFactory, tree_output: tuple[Path, dict[str, str]]
) -> dict[str, Path]:
    """The example in ``repo-per-group`` mode as the README configures it, each group's URL a local bare
    repository: URL → that repository (the source repository's URL too)."""
    work = tmp_path_factory.mktemp("groups")
    output = _documented_groups()
    assert output["mode"] == OutputMode.REPO_PER_GROUP
    remotes = {}
    for group in output["groups"]:
        bare = work / f"{group['name']}.git"
        git(work, "init", "-q", "--bare", str(bare))
        remotes[group["remote"]] = bare
        group["remote"] = str(bare)
    remotes[SOURCE_URL] = _switched(tree_output[0], work, output)
    return remotes


def _tree_at(repo: Path, branch: str, folder: str) -> str:
    """The id of the tree at ``folder`` (``""``: the root) on ``branch`` of ``repo``; fails the test when the
    branch or the folder is not there."""
    assert branch and not branch.startswith("refs/"), branch
    git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}")
    oid = git(repo, "rev-parse", f"refs/heads/{branch}:{folder}")
    assert git(repo, "cat-file", "-t", oid) == "tree", f"{branch}:{folder} is not a folder"
    return oid


def _folder(path: str) -> str:
    """A consumer's path (``./clusters/member1``, ``./``, ``.``) as a folder of the branch (``""``: its root)."""
    assert not path.startswith("/") and ".." not in path.split("/"), path
    folder = posixpath.normpath(path)
    return "" if folder == "." else folder


def _flux(path: Path) -> tuple[dict[str, Any], str]:
    """A per-cluster Flux file (a GitRepository and the Kustomization applying from it), checked against
    Flux's fields: the GitRepository's spec, and the folder the Kustomization applies."""
    source, kustomization = _yaml(path)
    assert (source["apiVersion"], source["kind"]) == ("source.toolkit.fluxcd.io/v1", "GitRepository")
    assert set(source["spec"]) <= FLUX_GITREPOSITORY_FIELDS, path
    assert GO_DURATION.match(source["spec"]["interval"]) and set(source["spec"]["ref"]) == {"branch"}
    assert (kustomization["apiVersion"], kustomization["kind"]) == (
        "kustomize.toolkit.fluxcd.io/v1",
        "Kustomization",
    )
    spec = kustomization["spec"]
    assert set(spec) <= FLUX_KUSTOMIZATION_FIELDS, path
    assert spec["sourceRef"] == {"kind": "GitRepository", "name": source["metadata"]["name"]}
    assert kustomization["metadata"]["namespace"] == source["metadata"]["namespace"]
    assert spec["prune"] is True and GO_DURATION.match(spec["interval"])
    assert spec["path"].startswith("./"), "Flux's paths are relative to the artifact's root"
    return source["spec"], _folder(spec["path"])


def _flux_files(folder: Path) -> list[Path]:
    files = sorted(folder.glob("*.yaml"))
    assert [p.stem for p in files] == CLUSTERS, "one file per cluster of clusters-inventory/"
    return files


def _go_template(value: Any, params: dict[str, Any]) -> Any:
    """``value`` with its Go-template placeholders (``{{.cluster}}``, ``{{.path.basename}}``) filled from
    ``params`` as ApplicationSet's goTemplate with missingkey=error does (a missing key fails)."""
    if isinstance(value, dict):
        return {k: _go_template(v, params) for k, v in value.items()}
    if isinstance(value, list):
        return [_go_template(v, params) for v in value]
    if not isinstance(value, str):
        return value

    def lookup(match: re.Match[str]) -> str:
        found: Any = params
        for key in match.group(1).split("."):
            found = found[key]
        return str(found)

    filled = GO_PLACEHOLDER.sub(lookup, value)
    assert "{{" not in filled, value
    return filled


def _applicationset(appset: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """An ApplicationSet checked against Argo CD's fields: its generator's kind and fields, and its spec."""
    assert (appset["apiVersion"], appset["kind"]) == ("argoproj.io/v1alpha1", "ApplicationSet")
    spec = appset["spec"]
    assert set(spec) <= ARGO_APPLICATIONSET_FIELDS
    assert spec["goTemplate"] is True and "missingkey=error" in spec["goTemplateOptions"]
    template = spec["template"]["spec"]
    assert set(template) <= ARGO_APPLICATION_FIELDS and set(template["source"]) <= ARGO_SOURCE_FIELDS
    assert template["source"]["directory"] == {"recurse": True}, (
        "the files are in <namespace>/<kind>/ folders"
    )
    assert template["syncPolicy"]["automated"] == {"prune": True, "selfHeal": True}
    ((kind, generator),) = spec["generators"][0].items()
    assert len(spec["generators"]) == 1
    fields = {"git": ARGO_GIT_GENERATOR_FIELDS, "list": ARGO_LIST_GENERATOR_FIELDS}[kind]
    assert set(generator) <= fields
    return kind, generator, spec


def _application_target(application: dict[str, Any]) -> tuple[str, str, str, str]:
    """(cluster, repository URL, branch, folder) of a generated Application."""
    source = application["spec"]["source"]
    destination = application["spec"]["destination"]
    assert set(destination) == {"name"}, "the Argo CD cluster named as the member cluster"
    return destination["name"], source["repoURL"], source["targetRevision"], _folder(source["path"])


def test_every_sync_file_says_which_output_mode_it_goes_with() -> None:
    files = sorted(SYNC.rglob("*.yaml"))
    assert {p.relative_to(SYNC).parts[0] for p in files} == set(MODE_OF_FOLDER)
    for path in files:
        mode = MODE_OF_FOLDER[path.relative_to(SYNC).parts[0]]
        assert path.read_text().startswith(f"# output.mode: {mode.value}"), path


def test_flux_sparse_checkout_fetches_each_clusters_folder_alone(
    tree_output: tuple[Path, dict[str, str]],
) -> None:
    repo, trees = tree_output
    for path in _flux_files(SYNC / "flux-sparse"):
        source, folder = _flux(path)
        assert source["url"] == SOURCE_URL and source["ref"] == {"branch": "main"}
        (sparse,) = source["sparseCheckout"]
        assert not sparse.startswith(("./", "/")) and not sparse.endswith("/"), "a folder of the repository"
        assert _tree_at(repo, "main", sparse) == trees[path.stem], f"{path.name}: not its cluster's folder"
        assert folder == sparse, f"{path.name}: the Kustomization must apply the folder the artifact holds"


def test_flux_on_a_branch_per_cluster_applies_its_clusters_branch(
    branch_per_cluster: Path, tree_output: tuple[Path, dict[str, str]]
) -> None:
    trees = tree_output[1]
    for path in _flux_files(SYNC / "branch-per-cluster" / "flux"):
        source, folder = _flux(path)
        assert source["url"] == SOURCE_URL
        branch = source["ref"]["branch"]
        assert _tree_at(branch_per_cluster, branch, folder) == trees[path.stem], f"{path.name}: {branch}"


def test_argo_cd_on_a_branch_per_cluster_makes_one_application_per_clusters_branch(
    branch_per_cluster: Path, tree_output: tuple[Path, dict[str, str]]
) -> None:
    trees = tree_output[1]
    (appset,) = _yaml(SYNC / "branch-per-cluster" / "argocd" / "applicationset.yaml")
    kind, generator, spec = _applicationset(appset)
    assert kind == "list"
    assert sorted(e["cluster"] for e in generator["elements"]) == CLUSTERS, "one element per cluster"
    names = set()
    for element in generator["elements"]:
        application = _go_template(spec["template"], element)
        cluster, url, branch, folder = _application_target(application)
        assert cluster == element["cluster"] and url == SOURCE_URL
        assert _tree_at(branch_per_cluster, branch, folder) == trees[cluster], f"{cluster}: {branch}"
        names.add(application["metadata"]["name"])
    assert len(names) == len(CLUSTERS), "each Application needs a name of its own"


def test_flux_on_a_repository_per_group_applies_its_clusters_folder_of_its_groups_repository(
    repo_per_group: dict[str, Path], tree_output: tuple[Path, dict[str, str]]
) -> None:
    trees = tree_output[1]
    for path in _flux_files(SYNC / "repo-per-group" / "flux"):
        source, folder = _flux(path)
        assert source["url"] in repo_per_group, f"{path.name}: {source['url']} is no group's remote"
        assert source["url"] != SOURCE_URL, "the source repository holds no cluster folder in this mode"
        group = repo_per_group[source["url"]]
        branch = source["ref"]["branch"]
        assert _tree_at(group, branch, folder) == trees[path.stem], f"{path.name}: {branch}:{folder}"


def test_argo_cd_on_a_repository_per_group_makes_one_application_per_cluster_folder_of_each_group(
    repo_per_group: dict[str, Path], tree_output: tuple[Path, dict[str, str]]
) -> None:
    trees = tree_output[1]
    appsets = _yaml(SYNC / "repo-per-group" / "argocd" / "applicationset.yaml")
    assert len({a["metadata"]["name"] for a in appsets}) == len(appsets)
    applied = []
    for appset in appsets:
        kind, generator, spec = _applicationset(appset)
        assert kind == "git" and generator["repoURL"] in repo_per_group and generator["repoURL"] != SOURCE_URL
        group = repo_per_group[generator["repoURL"]]
        _tree_at(group, generator["revision"], "")
        listing = git(group, "ls-tree", "-r", "-d", "--name-only", f"refs/heads/{generator['revision']}")
        (directories,) = generator["directories"]
        pattern = directories["path"]
        # Argo CD's * does not cross a /
        matched = [
            f
            for f in listing.splitlines()
            if f.count("/") == pattern.count("/") and fnmatch.fnmatchcase(f, pattern)
        ]
        assert matched, f"{appset['metadata']['name']}: the generator sees no folder"
        for found in matched:
            params = {"path": {"path": found, "basename": posixpath.basename(found)}}
            cluster, url, branch, folder = _application_target(_go_template(spec["template"], params))
            assert (url, branch) == (generator["repoURL"], generator["revision"])
            assert cluster in trees, f"{found}: {cluster} is no cluster of the example"
            assert _tree_at(group, branch, folder) == trees[cluster], f"{cluster}: {branch}:{folder}"
            applied.append(cluster)
    assert sorted(applied) == CLUSTERS, "each cluster exactly once"
