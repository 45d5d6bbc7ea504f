"""Whole-pipeline properties on the bundled fleet: order-independence, determinism, contained paths."""

from __future__ import annotations

import posixpath
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitops_karmada.adapters.directory import read_directory
from gitops_karmada.core.binding import FINGERPRINT_ANNOTATION, SOURCE_ANNOTATION
from gitops_karmada.core.codecs.serialize import dump_yaml_documents
from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.inputs.loading import input_path_filter
from gitops_karmada.core.layout import RepoLayout
from gitops_karmada.model.wellknown import CONFIG_FILE
from gitops_karmada.reconcile import RenderResult
from tests.fleet import plain_inputs
from tests.inprocess import run

if TYPE_CHECKING:
    from gitops_karmada.reconcile import RenderResult

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = ROOT / "repo-layout"
CONFIG, _ = load_config((LAYOUT / CONFIG_FILE).read_bytes())
FILES = plain_inputs(LAYOUT, read_directory(LAYOUT, input_path_filter(CONFIG)), CONFIG)
DOCUMENTS: list[Any] = [doc for content in FILES.values() for doc in yaml.safe_load_all(content) if doc]
NOW = "2026-01-02T03:04:05Z"


def render(files: dict[str, bytes]) -> RenderResult:
    return run(files, NOW, config=CONFIG)


def without_source(files: dict[str, bytes]) -> dict[str, bytes]:
    """The output without provenance: the records' source annotation, the files' header naming file[doc], and
    the inputs' fingerprints (which include where each template is, so a move re-renders it)."""
    return {
        path: b"\n".join(
            line
            for line in content.split(b"\n")
            if SOURCE_ANNOTATION.encode() not in line
            and FINGERPRINT_ANNOTATION.encode() not in line
            and not line.startswith(b"# Rendered by gitops-karmada from")
        )
        for path, content in files.items()
        if not RepoLayout.default().is_index_file(path)
    }


BASELINE = render(FILES)


def test_rendering_twice_is_byte_identical() -> None:
    assert BASELINE.input_ok
    again = render(dict(FILES))
    assert dict(again.files) == dict(BASELINE.files)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), buckets=st.integers(1, 6))
def test_document_order_and_file_layout_do_not_change_the_output(seed: int, buckets: int) -> None:
    documents = list(DOCUMENTS)
    random.Random(seed).shuffle(documents)
    files = {
        f"shuffled/part-{b}.yaml": dump_yaml_documents(documents[b::buckets]).encode() for b in range(buckets)
    }
    result = render(files)
    assert result.input_ok
    assert without_source(dict(result.files)) == without_source(dict(BASELINE.files))


@settings(max_examples=200, deadline=None)
@given(name=st.text(min_size=1, max_size=40))
def test_no_name_puts_a_file_outside_its_cluster_folder(name: str) -> None:
    widget = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": name, "namespace": "shop"},
    }
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "widgets", "namespace": "shop"},
        "spec": {"resourceSelectors": [{"apiVersion": "example.com/v1", "kind": "Widget"}]},
    }
    files = {**FILES, "widget.yaml": dump_yaml_documents([widget, policy]).encode()}
    result = render(files)
    if not result.input_ok:
        assert any("widget.yaml[0] metadata.name" in str(d) for d in result.diagnostics)
        return
    for path in result.files:
        assert posixpath.normpath(path) == path, path
        parts = path.split("/")
        assert parts[0] in ("clusters", "karmada-state") and ".." not in parts
        if parts[0] == "clusters" and "widget.example.com" in parts:
            assert parts[2:4] == ["shop", "widget.example.com"] and len(parts) == 5
