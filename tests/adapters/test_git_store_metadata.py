"""GitStore commit metadata (message, trailers, time), maintenance, and the fast-import/stderr helpers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitops_karmada.adapters.git_fast_import import check_paths, invalid_path_reason, quote_path
from gitops_karmada.adapters.git_process import STDERR_TAIL_CHARS, STDERR_TAIL_LINES, git_error, stderr_tail
from gitops_karmada.adapters.git_store import GitStore
from gitops_karmada.model.errors import GitError
from tests.gitrepos import git, make_repo, pin_dates, refs_under, status

if TYPE_CHECKING:
    from pathlib import Path

RECONCILE_MESSAGE = (
    "gitops-karmada: reconcile 0123456789ab\n\n"
    "3 binding(s); 2 file(s) written, 1 deleted.\n\n"
    "Source-Commit: 0123456789abcdef0123456789abcdef01234567\n"
    "Rendered-By: gitops-karmada 0.1.0\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"a.yaml": "a: 1\n"})


def commit_with(repo: Path, message: str) -> str:
    new = GitStore.open(repo).commit(
        parent="HEAD", ref="refs/heads/main", changes={"out.yaml": message.encode()}, message=message
    )
    assert new is not None
    return new


def test_trailers_round_trip(repo: Path) -> None:
    new = commit_with(repo, RECONCILE_MESSAGE)
    store = GitStore.open(repo)
    assert store.commit_message(new) == RECONCILE_MESSAGE
    assert store.trailers(new) == {
        "Source-Commit": "0123456789abcdef0123456789abcdef01234567",
        "Rendered-By": "gitops-karmada 0.1.0",
    }


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("just a title", {}),
        ("title\n\nbody mentions Key: value in prose\nand more prose", {}),
        (
            "title\n\nSigned-off-by: A <a@example.test>\nSource-Commit: abc",
            {"Signed-off-by": "A <a@example.test>", "Source-Commit": "abc"},
        ),
        ("title\n\nSource-Commit: first\nSource-Commit: second", {"Source-Commit": "second"}),
        (
            "title\n\nRendered-By: gitops-karmada\n  0.1.0 folded",
            {"Rendered-By": "gitops-karmada 0.1.0 folded"},
        ),
    ],
    ids=["no-body", "prose-is-not-a-trailer", "several", "repeated-key-keeps-last", "folded-value"],
)
def test_trailers_as_git_parses_them(repo: Path, message: str, expected: dict[str, str]) -> None:
    assert GitStore.open(repo).trailers(commit_with(repo, message)) == expected


def test_trailers_of_commits_made_by_git(repo: Path) -> None:
    git(repo, "commit", "-q", "--allow-empty", "-m", "manual", "-m", "Source-Commit: deadbeef")
    assert GitStore.open(repo).trailers("HEAD") == {"Source-Commit": "deadbeef"}


def test_commit_time_is_the_committer_date_in_utc(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pin_dates(monkeypatch)
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2001-01-01T00:00:00Z")  # the author date must not be used
    moment = GitStore.open(repo).commit_time(commit_with(repo, "timed"))
    assert moment == datetime(2024, 5, 6, 5, 8, 9, tzinfo=UTC)
    assert moment.utcoffset() == timedelta(0)


def test_commit_time_without_pinned_dates_is_now(repo: Path) -> None:
    before = datetime.now(tz=UTC).replace(microsecond=0)
    moment = GitStore.open(repo).commit_time(commit_with(repo, "now"))
    after = datetime.now(tz=UTC)
    assert before <= moment <= after


def test_maintenance_packs_loose_objects_and_small_packs(repo: Path) -> None:
    store = GitStore.open(repo)
    for round_number in range(3):
        big = {
            f"clusters/m/f{index}-{round_number}.yaml": f"{index} {round_number}\n".encode()
            for index in range(150)
        }
        assert store.commit(parent="HEAD", ref="refs/heads/main", changes=big, message=f"big {round_number}")
    git(repo, "update-ref", "refs/gitops-karmada/tmp/commit-1-leftover", "HEAD")
    packs_before = len(list((repo / ".git/objects/pack").glob("*.pack")))
    assert packs_before >= 3  # fast-import leaves one pack per large commit
    store.maintenance()
    counts = dict(line.split(": ") for line in git(repo, "count-objects", "-v").splitlines())
    assert counts["count"] == "0"
    assert int(counts["packs"]) < packs_before
    assert refs_under(repo, "refs/gitops-karmada/") == []
    git(repo, "fsck", "--no-progress")
    assert status(repo) == []


@pytest.mark.parametrize(
    ("path", "quoted"),
    [
        ("clusters/m1/web.yaml", b"clusters/m1/web.yaml"),
        ("with space/my file.yaml", b"with space/my file.yaml"),
        ("ünï/名前.yaml", "ünï/名前.yaml".encode()),
        ('"leading-quote', b'"\\"leading-quote"'),
        ('inner"quote', b'"inner\\"quote"'),
        ("back\\slash", b'"back\\\\slash"'),
        ("new\nline", b'"new\\nline"'),
        ("tab\there", b'"tab\\there"'),
        ("bell\x07", b'"bell\\007"'),
        ("del\x7f", b'"del\\177"'),
    ],
    ids=[
        "plain",
        "spaces",
        "unicode",
        "leading-quote",
        "inner-quote",
        "backslash",
        "newline",
        "tab",
        "bell",
        "delete",
    ],
)
def test_quote_path_for_fast_import(path: str, quoted: bytes) -> None:
    assert quote_path(path) == quoted


@pytest.mark.parametrize(
    ("path", "valid"),
    [
        ("clusters/m1/web.yaml", True),
        ("a", True),
        (".gitignore", True),
        ("x/.github/workflows/ci.yaml", True),
        ("x/.git", False),
        ("x/.Git./y", False),
        ("", False),
        ("/abs", False),
        ("a/./b", False),
        ("a/", False),
    ],
    ids=[
        "nested",
        "single",
        "gitignore",
        "github-folder",
        "git-folder",
        "git-lookalike",
        "empty",
        "absolute",
        "dot",
        "slash",
    ],
)
def test_invalid_path_reason(path: str, valid: bool) -> None:
    assert (invalid_path_reason(path) is None) is valid


def c_unquote(quoted: bytes) -> bytes:
    """The reading side of fast-import's C-style quoting (what git's unquote_c_style accepts)."""
    if not quoted.startswith(b'"'):
        return quoted
    assert quoted.endswith(b'"')
    body, out, index = quoted[1:-1], bytearray(), 0
    simple = {ord("n"): b"\n", ord("t"): b"\t", ord('"'): b'"', ord("\\"): b"\\"}
    while index < len(body):
        if body[index] != ord("\\"):
            out.append(body[index])
            index += 1
        elif body[index + 1] in simple:
            out += simple[body[index + 1]]
            index += 2
        else:
            out.append(int(body[index + 1 : index + 4], 8))
            index += 4
    return bytes(out)


@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), min_size=1))
def test_quote_path_round_trips_and_never_breaks_the_line(path: str) -> None:
    quoted = quote_path(path)
    assert b"\n" not in quoted
    assert c_unquote(quoted) == path.encode()


COMPONENT = st.sampled_from(
    ["a", "web.yaml", ".", "..", "", ".git", ".GIT", ".git.", ".git ", ".gitx", "x\0y", "名"]
)


@given(st.lists(COMPONENT, min_size=1, max_size=5), st.booleans())
def test_invalid_path_reason_accepts_exactly_the_storable_paths(
    components: list[str], absolute: bool
) -> None:
    path = ("/" if absolute else "") + "/".join(components)
    storable = not absolute and all(
        part not in ("", ".", "..") and "\0" not in part and part.rstrip(". ").lower() != ".git"
        for part in components
    )
    assert (invalid_path_reason(path) is None) is storable


def test_stderr_tail_keeps_the_last_lines_and_caps_length() -> None:
    lines = [f"line {index}" for index in range(50)]
    tail = stderr_tail("\n".join(lines).encode())
    assert tail.splitlines() == lines[-STDERR_TAIL_LINES:]
    huge = stderr_tail(("x" * 10_000).encode())
    assert len(huge) == STDERR_TAIL_CHARS + 1
    assert huge.startswith("…")


def test_git_error_names_operation_revision_and_stderr() -> None:
    error = git_error("rev-parse", "resolving 'main~3'", b"fatal: ambiguous argument\n", temporary=True)
    assert str(error) == "git rev-parse: resolving 'main~3': fatal: ambiguous argument"
    assert error.temporary
    assert git_error("push", "pushing main").detail == "pushing main"


_PATH = st.lists(COMPONENT | st.sampled_from(["b", "c.d", "a\nb", "x/"]), min_size=1, max_size=4).map(
    "/".join
)


@given(st.lists(_PATH | st.sampled_from(["", "/a", "a/", "\n", "a\n"]), min_size=1, max_size=6))
def test_checking_many_paths_at_once_refuses_exactly_what_one_by_one_refuses(paths: list[str]) -> None:
    """``check_paths`` clears a whole list with a few substring scans and explains a hit path by path."""
    refused = any(invalid_path_reason(path) is not None for path in paths)
    try:
        assert check_paths(paths) == tuple(sorted(paths))
    except GitError:
        assert refused
    else:
        assert not refused
