"""GitStore.commit and move_ref: one atomic commit, compare-and-swap, work trees kept in step."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from gitops_karmada.adapters.git_store import CommitStage, GitStore
from gitops_karmada.adapters.git_work_tree import JOURNAL_NAME
from gitops_karmada.model.errors import GitError
from tests.gitrepos import (
    commit_all,
    git,
    make_repo,
    pin_dates,
    refs_under,
    show,
    status,
    tree_files,
    write_files,
)

if TYPE_CHECKING:
    from pathlib import Path

BASE: dict[str, bytes | str] = {
    "clusters/member1/web.yaml": "replicas: 1\n",
    "clusters/member1/old.yaml": "stale\n",
    "clusters/member2/web.yaml": "replicas: 2\n",
    "templates/web.yaml": "kind: Deployment\n",
    "README.md": "readme\n",
}
CHANGES: dict[str, bytes | None] = {
    "clusters/member1/web.yaml": b"replicas: 3\n",
    "clusters/member1/old.yaml": None,
    "clusters/member3/web.yaml": b"replicas: 4",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", BASE)


def head(repo: Path, ref: str = "HEAD") -> str:
    return git(repo, "rev-parse", ref)


# --- the commit itself -----------------------------------------------------------------------------------


def test_commit_writes_modifies_and_deletes_in_one_commit(repo: Path) -> None:
    parent = head(repo)
    store = GitStore.open(repo)
    new = store.commit(parent=parent, ref="refs/heads/main", changes=CHANGES, message="render\n")
    assert new is not None
    assert head(repo, "refs/heads/main") == new
    assert git(repo, "rev-list", "--parents", "-n", "1", new).split() == [new, parent]
    files = tree_files(repo, new)
    assert "clusters/member1/old.yaml" not in files
    assert show(repo, new, "clusters/member1/web.yaml") == b"replicas: 3\n"
    assert show(repo, new, "clusters/member3/web.yaml") == b"replicas: 4"
    assert show(repo, new, "templates/web.yaml") == b"kind: Deployment\n"
    assert git(repo, "ls-tree", new, "clusters/member3/web.yaml").split()[0] == "100644"
    assert git(repo, "diff-tree", "-r", "--no-renames", "--name-status", parent, new).splitlines() == [
        "D\tclusters/member1/old.yaml",
        "M\tclusters/member1/web.yaml",
        "A\tclusters/member3/web.yaml",
    ]


def test_commit_uses_the_configured_identity(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pin_dates(monkeypatch)
    new = GitStore.open(repo).commit(parent="HEAD", ref="refs/heads/main", changes=CHANGES, message="m")
    assert new is not None
    assert git(repo, "show", "-s", "--format=%an <%ae>|%cn <%ce>|%cI", new) == (
        "Test Author <author@example.test>|Test Committer <committer@example.test>|2024-05-06T07:08:09+02:00"
    )


def test_commit_uses_repository_config_when_no_identity_variables(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(variable)
    git(repo, "config", "user.name", "Repo User")
    git(repo, "config", "user.email", "repo@example.test")
    new = GitStore.open(repo).commit(parent="HEAD", ref="refs/heads/main", changes=CHANGES, message="m")
    assert new is not None
    assert git(repo, "show", "-s", "--format=%an <%ae>|%cn <%ce>", new) == (
        "Repo User <repo@example.test>|Repo User <repo@example.test>"
    )


def test_commit_falls_back_to_the_tool_identity(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in (
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "EMAIL",
    ):
        monkeypatch.delenv(variable, raising=False)
    new = GitStore.open(repo).commit(parent="HEAD", ref="refs/heads/main", changes=CHANGES, message="m")
    assert new is not None
    assert git(repo, "show", "-s", "--format=%an <%ae>|%cn <%ce>", new) == (
        "gitops-karmada <gitops-karmada@localhost>|gitops-karmada <gitops-karmada@localhost>"
    )


def test_commit_ids_are_reproducible_with_pinned_dates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pin_dates(monkeypatch)
    ids = []
    for name in ("one", "two"):
        repo = make_repo(tmp_path / name, BASE)
        ids.append(
            GitStore.open(repo).commit(parent="HEAD", ref="refs/heads/main", changes=CHANGES, message="m")
        )
    assert ids[0] is not None
    assert ids[0] == ids[1]


def test_commit_message_gets_a_final_newline(repo: Path) -> None:
    store = GitStore.open(repo)
    new = store.commit(parent="HEAD", ref="refs/heads/main", changes=CHANGES, message="title\n\nbody ünïcödé")
    assert new is not None
    assert store.commit_message(new) == "title\n\nbody ünïcödé\n"
    assert git(repo, "log", "-1", "--format=%s", new) == "title"


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"clusters/member1/web.yaml": b"replicas: 1\n"},
        {"clusters/never-existed.yaml": None},
        {"clusters/member1/web.yaml": b"replicas: 1\n", "clusters/gone/x.yaml": None},
    ],
    ids=["no-changes", "same-content", "delete-missing-path", "same-content-and-missing-delete"],
)
def test_commit_that_changes_nothing_returns_none_and_makes_no_commit(
    repo: Path, changes: dict[str, bytes | None]
) -> None:
    parent = head(repo)
    store = GitStore.open(repo)
    assert store.commit(parent=parent, ref="refs/heads/main", changes=changes, message="noop") is None
    assert head(repo) == parent
    assert git(repo, "rev-list", "--count", "--all") == "1"
    assert refs_under(repo, "refs/gitops-karmada/") == []
    assert status(repo) == []


def test_commit_of_two_thousand_files(repo: Path) -> None:
    changes: dict[str, bytes | None] = {
        f"clusters/member{index % 5}/ns-{index % 11}/deployment.apps/app-{index:04}.yaml": b"n: %d\n" % index
        for index in range(2000)
    }
    store = GitStore.open(repo)
    new = store.commit(parent="HEAD", ref="refs/heads/main", changes=changes, message="bulk")
    assert new is not None
    written = store.read_files(new, lambda path: "/deployment.apps/" in path)
    assert written == changes
    assert status(repo) == []
    assert (repo / "clusters/member4/ns-8/deployment.apps/app-1999.yaml").read_bytes() == b"n: 1999\n"


def test_deleting_a_folder_path_removes_everything_under_it(repo: Path) -> None:
    new = GitStore.open(repo).commit(
        parent="HEAD", ref="refs/heads/main", changes={"clusters/member1": None}, message="drop member1"
    )
    assert new is not None
    assert sorted(path for path in tree_files(repo, new) if path.startswith("clusters/")) == [
        "clusters/member2/web.yaml"
    ]
    assert not (repo / "clusters/member1").exists()


TRICKY_NAMES = {
    "space": "clusters/with space/my file.yaml",
    "leading-space": "clusters/ leading.yaml",
    "trailing-space": "clusters/trailing.yaml ",
    "double-quote": 'clusters/"quoted".yaml',
    "leading-double-quote": '"starts-with-quote.yaml',
    "backslash": "clusters/back\\slash.yaml",
    "tab": "clusters/tab\there.yaml",
    "newline": "clusters/new\nline.yaml",
    "unicode": "clusters/ünïcödé/名前.yaml",
    "control-char": "clusters/bell\x07.yaml",
}


@pytest.mark.parametrize("path", list(TRICKY_NAMES.values()), ids=list(TRICKY_NAMES))
def test_paths_that_need_quoting_round_trip(repo: Path, path: str) -> None:
    store = GitStore.open(repo)
    new = store.commit(parent="HEAD", ref="refs/heads/main", changes={path: b"x: 1"}, message="tricky")
    assert new is not None
    assert store.read_files(new, lambda candidate: candidate == path) == {path: b"x: 1"}
    assert store.list_blobs(new, [path]) == {path: store.blob_id(b"x: 1")}
    deleted = store.commit(parent=new, ref="refs/heads/main", changes={path: None}, message="untricky")
    assert deleted is not None
    assert path not in store.list_blobs(deleted, [""])


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("", "empty"),
        ("/etc/passwd", "absolute"),
        ("clusters//x.yaml", "empty, '.' or '..'"),
        ("clusters/../x.yaml", "empty, '.' or '..'"),
        ("./x.yaml", "empty, '.' or '..'"),
        ("clusters/", "empty, '.' or '..'"),
        (".git/config", ".git component"),
        ("clusters/.GIT/x", ".git component"),
        ("nul\0byte", "NUL"),
    ],
    ids=[
        "empty",
        "absolute",
        "double-slash",
        "dot-dot",
        "dot",
        "trailing-slash",
        "git-dir",
        "git-dir-case",
        "nul",
    ],
)
def test_unusable_paths_are_refused_before_anything_changes(repo: Path, path: str, reason: str) -> None:
    parent = head(repo)
    objects = git(repo, "count-objects")
    with pytest.raises(GitError, match=reason):
        GitStore.open(repo).commit(parent=parent, ref="refs/heads/main", changes={path: b"x"}, message="bad")
    assert head(repo) == parent
    assert git(repo, "count-objects") == objects


def test_a_file_and_a_file_inside_it_are_refused(repo: Path) -> None:
    parent = head(repo)
    with pytest.raises(
        GitError, match=re.escape("cannot write both the file 'clusters/x' and the file 'clusters/x/y.yaml'")
    ):
        GitStore.open(repo).commit(
            parent=parent,
            ref="refs/heads/main",
            changes={"clusters/x": b"a", "clusters/x/y.yaml": b"b"},
            message="m",
        )
    assert head(repo) == parent
    assert refs_under(repo, "refs/gitops-karmada/") == []


@pytest.mark.parametrize(
    ("ref", "message"),
    [("main", "not a full ref name"), ("refs/heads/bad..name", "not a full ref name")],
    ids=["short-name", "invalid-name"],
)
def test_the_target_must_be_a_full_ref_name(repo: Path, ref: str, message: str) -> None:
    with pytest.raises(GitError, match=message):
        GitStore.open(repo).commit(parent="HEAD", ref=ref, changes=CHANGES, message="m")


def test_unknown_parent_is_a_git_error(repo: Path) -> None:
    with pytest.raises(GitError, match="unknown revision 'nope'"):
        GitStore.open(repo).commit(parent="nope", ref="refs/heads/main", changes=CHANGES, message="m")


# --- compare-and-swap ------------------------------------------------------------------------------------


def test_ref_moved_before_the_commit_is_a_temporary_error(repo: Path) -> None:
    parent = head(repo)
    moved = commit_all(repo, {"templates/other.yaml": "x\n"})
    with pytest.raises(
        GitError, match=r"moved to [0-9a-f]+ \(expected [0-9a-f]+\) since it was read"
    ) as caught:
        GitStore.open(repo).commit(parent=parent, ref="refs/heads/main", changes=CHANGES, message="m")
    assert caught.value.temporary
    assert head(repo) == moved
    assert status(repo) == []


def test_ref_moved_during_the_commit_loses_the_compare_and_swap(repo: Path) -> None:
    parent = head(repo)
    moved: list[str] = []

    def someone_else_commits(stage: CommitStage) -> None:
        if stage is CommitStage.OBJECTS_WRITTEN:
            moved.append(commit_all(repo, {"templates/other.yaml": "x\n"}, message="concurrent"))

    store = GitStore.open(repo, observer=someone_else_commits)
    with pytest.raises(GitError) as caught:
        store.commit(parent=parent, ref="refs/heads/main", changes=CHANGES, message="m")
    assert caught.value.temporary
    assert head(repo) == moved[0]
    assert status(repo) == []
    assert (repo / "clusters/member1/old.yaml").read_text() == "stale\n"
    assert refs_under(repo, "refs/gitops-karmada/") == []
    assert not (repo / ".git" / JOURNAL_NAME).exists()


def test_observer_sees_every_stage_in_order(repo: Path) -> None:
    stages: list[CommitStage] = []
    GitStore.open(repo, observer=stages.append).commit(
        parent="HEAD", ref="refs/heads/main", changes=CHANGES, message="m"
    )
    assert stages == [
        CommitStage.OBJECTS_WRITTEN,
        CommitStage.WORK_TREE_CHECKED,
        CommitStage.REF_UPDATED,
        CommitStage.WORK_TREE_SYNCED,
    ]


# --- work trees ------------------------------------------------------------------------------------------


def test_work_tree_and_index_follow_and_unrelated_edits_survive(repo: Path) -> None:
    write_files(
        repo, {"README.md": "user edit\n", "notes.txt": "untracked\n", "templates/web.yaml": "staged\n"}
    )
    git(repo, "add", "templates/web.yaml")
    before = status(repo)
    new = GitStore.open(repo).commit(parent="HEAD", ref="refs/heads/main", changes=CHANGES, message="m")
    assert new is not None
    assert status(repo) == before == [" M README.md", "M  templates/web.yaml", "?? notes.txt"]
    assert (repo / "README.md").read_text() == "user edit\n"
    assert (repo / "clusters/member1/web.yaml").read_bytes() == b"replicas: 3\n"
    assert (repo / "clusters/member3/web.yaml").read_bytes() == b"replicas: 4"
    assert not (repo / "clusters/member1/old.yaml").exists()
    assert git(repo, "diff", "--cached", "--name-only", "HEAD") == "templates/web.yaml"


def test_work_tree_is_clean_after_the_commit(repo: Path) -> None:
    GitStore.open(repo).commit(parent="HEAD", ref="refs/heads/main", changes=CHANGES, message="m")
    assert status(repo) == []
    assert not (repo / ".git" / JOURNAL_NAME).exists()


@pytest.mark.parametrize(
    ("edit", "staged"),
    [
        ({"clusters/member1/web.yaml": "user edit\n"}, False),
        ({"clusters/member1/old.yaml": "user edit\n"}, False),
        ({"clusters/member1/web.yaml": "staged edit\n"}, True),
        ({"clusters/member3/web.yaml": "untracked in the way\n"}, False),
    ],
    ids=["edited-modified-path", "edited-deleted-path", "staged-modified-path", "untracked-at-added-path"],
)
def test_uncommitted_edit_to_a_changed_path_is_refused_before_anything_changes(
    repo: Path, edit: dict[str, str], staged: bool
) -> None:
    write_files(repo, edit)
    if staged:
        git(repo, "add", *edit)
    parent = head(repo)
    before = status(repo)
    with pytest.raises(GitError, match="uncommitted changes") as caught:
        GitStore.open(repo).commit(parent=parent, ref="refs/heads/main", changes=CHANGES, message="m")
    assert not caught.value.temporary
    assert head(repo) == parent
    assert status(repo) == before
    for name, content in edit.items():
        assert (repo / name).read_text() == content
    assert refs_under(repo, "refs/gitops-karmada/") == []
    assert not (repo / ".git" / JOURNAL_NAME).exists()


def test_stat_only_changes_are_not_edits(repo: Path) -> None:
    target = repo / "clusters/member1/web.yaml"
    target.write_text(target.read_text())  # same bytes, new mtime
    new = GitStore.open(repo).commit(parent="HEAD", ref="refs/heads/main", changes=CHANGES, message="m")
    assert new is not None
    assert status(repo) == []


def test_detached_head_moves_head_and_leaves_the_branch(repo: Path) -> None:
    parent = head(repo)
    git(repo, "checkout", "-q", "--detach")
    store = GitStore.open(repo)
    new = store.commit(parent=parent, ref="HEAD", changes=CHANGES, message="m")
    assert new is not None
    assert head(repo) == new
    assert head(repo, "refs/heads/main") == parent
    assert store.head_ref() is None
    assert status(repo) == []
    assert (repo / "clusters/member3/web.yaml").exists()


def test_head_on_a_branch_means_that_branch(repo: Path) -> None:
    new = GitStore.open(repo).commit(parent="HEAD", ref="HEAD", changes=CHANGES, message="m")
    assert new is not None
    assert head(repo, "refs/heads/main") == new
    assert git(repo, "symbolic-ref", "HEAD") == "refs/heads/main"
    assert status(repo) == []


def test_a_branch_that_is_not_checked_out_leaves_the_work_tree_alone(repo: Path) -> None:
    parent = head(repo)
    git(repo, "branch", "rendered")
    new = GitStore.open(repo).commit(parent=parent, ref="refs/heads/rendered", changes=CHANGES, message="m")
    assert new is not None
    assert head(repo, "refs/heads/rendered") == new
    assert head(repo) == parent
    assert (repo / "clusters/member1/old.yaml").exists()
    assert status(repo) == []


def test_bare_repository(repo: Path, tmp_path: Path) -> None:
    git(tmp_path, "clone", "-q", "--bare", str(repo), "bare.git")
    bare = tmp_path / "bare.git"
    store = GitStore.open(bare)
    new = store.commit(parent="main", ref="refs/heads/main", changes=CHANGES, message="m")
    assert new is not None
    assert head(bare, "refs/heads/main") == new
    assert store.read_files(new, lambda path: path == "clusters/member3/web.yaml") == {
        "clusters/member3/web.yaml": b"replicas: 4"
    }


def test_branch_checked_out_in_a_linked_work_tree_follows(repo: Path, tmp_path: Path) -> None:
    git(repo, "worktree", "add", "-q", "-b", "rendered", str(tmp_path / "linked"))
    linked = tmp_path / "linked"
    write_files(linked, {"README.md": "edit in the linked tree\n"})
    new = GitStore.open(repo).commit(
        parent="rendered", ref="refs/heads/rendered", changes=CHANGES, message="m"
    )
    assert new is not None
    assert head(linked) == new
    assert status(linked) == [" M README.md"]
    assert (linked / "clusters/member3/web.yaml").read_bytes() == b"replicas: 4"
    assert status(repo) == []
    assert (repo / "clusters/member1/old.yaml").exists()


def test_leftover_temporary_refs_are_cleaned_by_the_next_commit(repo: Path) -> None:
    parent = head(repo)
    git(repo, "update-ref", "refs/gitops-karmada/tmp/commit-1-dead", parent)
    GitStore.open(repo).commit(parent=parent, ref="refs/heads/main", changes=CHANGES, message="m")
    assert refs_under(repo, "refs/gitops-karmada/") == []


def test_sha256_repository_commits(tmp_path: Path) -> None:
    repo = tmp_path / "sha256"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main", "--object-format=sha256")
    write_files(repo, {"a.yaml": "a: 1\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "init")
    new = GitStore.open(repo).commit(
        parent="HEAD", ref="refs/heads/main", changes={"b.yaml": b"b"}, message="m"
    )
    assert new is not None
    assert len(new) == 64
    assert head(repo) == new
    assert status(repo) == []


# --- move_ref --------------------------------------------------------------------------------------------


def test_move_ref_replaces_an_unpushed_commit_and_syncs_the_work_tree(repo: Path) -> None:
    parent = head(repo)
    store = GitStore.open(repo)
    ours = store.commit(parent=parent, ref="refs/heads/main", changes=CHANGES, message="ours")
    assert ours is not None
    git(repo, "branch", "upstream", parent)
    theirs = store.commit(
        parent=parent, ref="refs/heads/upstream", changes={"templates/new.yaml": b"new\n"}, message="theirs"
    )
    assert theirs is not None
    write_files(repo, {"README.md": "keep me\n"})
    store.move_ref(ref="refs/heads/main", old=ours, new=theirs)
    assert head(repo) == theirs
    assert status(repo) == [" M README.md"]
    assert (repo / "templates/new.yaml").read_text() == "new\n"
    assert (repo / "clusters/member1/old.yaml").exists()
    assert not (repo / "clusters/member3").exists()


def test_move_ref_from_the_wrong_commit_is_a_temporary_error(repo: Path) -> None:
    parent = head(repo)
    other = commit_all(repo, {"x.yaml": "x\n"})
    with pytest.raises(
        GitError, match=r"moved to [0-9a-f]+ \(expected [0-9a-f]+\) since it was read"
    ) as caught:
        GitStore.open(repo).move_ref(ref="refs/heads/main", old=parent, new=parent)
    assert caught.value.temporary
    assert head(repo) == other
