"""The REST client against a loopback server that behaves like GitHub's comments API."""

from __future__ import annotations

import socket

import pytest

from gitops_karmada.adapters.github import GitHubClient, is_permission_denied
from gitops_karmada.model.errors import GitHubError
from tests.action.github_server import FakeGitHub

TOKEN = "ghs_loopbackTOKEN1234567890"
REPO = "acme/fleet"


def _client(github: FakeGitHub, token: str = TOKEN) -> GitHubClient:
    return GitHubClient(api_url=github.url, repository=REPO, token=token)


def test_lists_every_page_in_order() -> None:
    with FakeGitHub(TOKEN, REPO) as github:
        for i in range(250):
            github.state.add_comment(7, f"comment {i}")
        comments = _client(github).list_issue_comments(7)
    assert [c.body for c in comments] == [f"comment {i}" for i in range(250)]
    pages = [r.query["page"] for r in github.state.requests]
    assert pages == [["1"], ["2"], ["3"]]
    assert all(r.query["per_page"] == ["100"] for r in github.state.requests)


def test_follows_the_server_page_size() -> None:
    with FakeGitHub(TOKEN, REPO, max_per_page=7) as github:
        for i in range(20):
            github.state.add_comment(7, f"c{i}")
        assert len(_client(github).list_issue_comments(7)) == 20
    assert len(github.state.requests) == 3


def test_an_issue_without_comments() -> None:
    with FakeGitHub(TOKEN, REPO) as github:
        assert _client(github).list_issue_comments(3) == []


def test_create_then_update() -> None:
    with FakeGitHub(TOKEN, REPO) as github:
        client = _client(github)
        created = client.create_issue_comment(7, "first")
        updated = client.update_issue_comment(created.id, "second")
        listed = client.list_issue_comments(7)
    assert created.author == "github-actions[bot]"
    assert (updated.id, updated.body) == (created.id, "second")
    assert [(c.id, c.body) for c in listed] == [(created.id, "second")]
    assert [(r.method, r.body) for r in github.state.writes()] == [
        ("POST", {"body": "first"}),
        ("PATCH", {"body": "second"}),
    ]


def test_a_read_only_token_is_permission_denied() -> None:
    with FakeGitHub(TOKEN, REPO, read_only=True) as github:
        client = _client(github)
        assert client.list_issue_comments(7) == []  # reading works
        with pytest.raises(GitHubError) as raised:
            client.create_issue_comment(7, "hello")
    assert raised.value.status == 403
    assert is_permission_denied(raised.value)
    assert "Resource not accessible by integration" in str(raised.value)


def test_bad_credentials() -> None:
    with FakeGitHub(TOKEN, REPO) as github, pytest.raises(GitHubError) as raised:
        _client(github, token="wrong").list_issue_comments(7)
    assert raised.value.status == 401
    assert not is_permission_denied(raised.value)


def test_validation_errors_carry_github_details() -> None:
    with FakeGitHub(TOKEN, REPO) as github, pytest.raises(GitHubError) as raised:
        _client(github).create_issue_comment(7, "x" * 65_537)
    assert raised.value.status == 422
    assert "body is too long (maximum is 65536 characters)" in str(raised.value)


def test_never_follows_a_link_to_another_origin() -> None:
    with FakeGitHub(TOKEN, REPO, max_per_page=1, next_link_origin="http://198.51.100.7:9") as github:
        github.state.add_comment(7, "a")
        github.state.add_comment(7, "b")
        with pytest.raises(GitHubError, match="another origin"):
            _client(github).list_issue_comments(7)
    assert len(github.state.requests) == 1


def test_the_token_stays_out_of_repr_and_errors() -> None:
    with FakeGitHub(TOKEN, REPO) as github:
        client = _client(github)
        with pytest.raises(GitHubError) as raised:
            client.update_issue_comment(999_999, "nothing there")
    assert TOKEN not in repr(client)
    assert TOKEN not in str(raised.value)
    assert raised.value.status == 404
    assert all(TOKEN not in line for line in github.state.log_lines)


def test_a_redirect_within_the_origin_is_followed_with_the_token() -> None:
    with FakeGitHub(TOKEN, REPO) as github:
        github.state.redirects["/repos/acme/old-name/"] = f"{github.url}/repos/{REPO}/"
        github.state.add_comment(7, "a")
        client = GitHubClient(api_url=github.url, repository="acme/old-name", token=TOKEN)
        assert [c.body for c in client.list_issue_comments(7)] == ["a"]
    assert [r.path for r in github.state.requests] == [
        "/repos/acme/old-name/issues/7/comments",
        f"/repos/{REPO}/issues/7/comments",
    ]


def test_a_redirect_to_another_origin_is_refused_and_the_token_stays_home() -> None:
    with FakeGitHub(TOKEN, REPO) as elsewhere, FakeGitHub(TOKEN, REPO) as github:
        github.state.redirects["/repos/"] = f"{elsewhere.url}/repos/"
        with pytest.raises(GitHubError, match="redirect to another origin") as raised:
            _client(github).list_issue_comments(7)
    assert raised.value.status == 307
    assert elsewhere.state.requests == []
    assert len(github.state.requests) == 1


def test_a_token_echoed_by_the_server_is_scrubbed_from_the_error() -> None:
    with FakeGitHub(TOKEN, REPO, echo_authorization=True) as github, pytest.raises(GitHubError) as raised:
        _client(github).create_issue_comment(7, "hello")
    assert github.state.requests[0].authorization == f"Bearer {TOKEN}"  # the echo really carried it
    assert TOKEN not in str(raised.value)
    assert "Bearer ***" in str(raised.value)


def test_a_closed_port_is_a_network_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = GitHubClient(api_url=f"http://127.0.0.1:{port}", repository=REPO, token=TOKEN, timeout=5)
    with pytest.raises(GitHubError) as raised:
        client.list_issue_comments(7)
    assert raised.value.status == 0


@pytest.mark.parametrize(
    "repository", ["acme", "acme/", "/fleet", "a/b/c"], ids=["no-slash", "no-name", "no-owner", "too-deep"]
)
def test_repository_must_be_owner_slash_name(repository: str) -> None:
    with pytest.raises(GitHubError, match="owner/name"):
        GitHubClient(api_url="http://127.0.0.1:1", repository=repository, token=TOKEN)
