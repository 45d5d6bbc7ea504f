"""``core.change_scope``: from the input files a change touched to the templates whose outcome it can change.

Each case loads a small fleet, runs it once for its state index, changes some files and asks which templates
the change touches; the cases that a scope cannot follow must answer None (every template is judged)."""

from __future__ import annotations

from typing import Any

import pytest

from gitops_karmada.core.codecs.serialize import dump_yaml_documents
from gitops_karmada.core.incremental.change_scope import ChangedInputs, touched_templates
from gitops_karmada.core.incremental.state_index import StateIndex
from gitops_karmada.core.inputs.config_file import load_config
from gitops_karmada.core.inputs.external_sources import GeneratedSource, source_plan
from gitops_karmada.core.inputs.loading import load
from gitops_karmada.reconcile import RunMode, blob_sha
from tests.builders import cluster_doc, configmap, cpp_doc, deployment, pp_doc, service
from tests.inprocess import commit, run

Files = dict[str, bytes]


def _yaml(*bodies: dict[str, Any]) -> bytes:
    return dump_yaml_documents(list(bodies)).encode()


FIRST, LATER = "2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z"
DEPLOYMENTS = [{"apiVersion": "apps/v1", "kind": "Deployment"}]
FLEET: Files = {
    "inventory/member1.yaml": _yaml(cluster_doc("member1")),
    "apps/shop/a.yaml": _yaml(deployment("a", "shop")),
    "apps/shop/b.yaml": _yaml(deployment("b", "shop"), service("b", "shop")),
    "apps/web/w.yaml": _yaml(deployment("w", "web")),
    "apps/web/settings.yaml": _yaml(configmap("settings", "web")),
    "policies/shop.yaml": _yaml(pp_doc("front", "shop", DEPLOYMENTS)),
    "policies/web.yaml": _yaml(pp_doc("front", "web", DEPLOYMENTS)),
}


def _index(files: Files) -> StateIndex:
    result = run(files, FIRST)
    assert result.index is not None
    return result.index


def _touched(
    changes: Files,
    removed: tuple[str, ...] = (),
    asked: frozenset[str] = frozenset(),
    fleet: Files = FLEET,
) -> set[str] | None:
    """The templates (``Kind/namespace/name``) that ``changes`` (and removing ``removed``) touch in
    ``fleet``."""
    config, _ = load_config(None)
    after_files = {p: c for p, c in {**fleet, **changes}.items() if p not in removed}
    paths = frozenset(changes) | frozenset(removed)
    before = load({p: fleet[p] for p in paths if p in fleet}, config)
    after = load(after_files, config)
    assert before.ok and after.ok
    found = touched_templates(ChangedInputs(paths, before.inputs, asked), after.inputs, _index(fleet))
    if found is None:
        return None
    return {f"{kind}/{namespace}/{name}" for _, kind, namespace, name in found}


def test_a_changed_policy_touches_what_it_is_indexed_under_before_and_after() -> None:
    """The shop policy moves from Deployments to the Service named b: the shop Deployments it claimed and
    indexed before and the Service it selects now are touched; nothing of the web namespace is."""
    moved = pp_doc("front", "shop", [{"apiVersion": "v1", "kind": "Service", "name": "b"}])
    assert _touched({"policies/shop.yaml": _yaml(moved)}) == {
        "Deployment/shop/a",
        "Deployment/shop/b",
        "Service/shop/b",
    }


def test_a_cluster_policy_touches_its_kinds_in_every_namespace() -> None:
    config_maps = cpp_doc("config", [{"apiVersion": "v1", "kind": "ConfigMap"}])
    assert _touched({"policies/config.yaml": _yaml(config_maps)}) == {"ConfigMap/web/settings"}


def test_a_named_selector_touches_that_template_only() -> None:
    named = pp_doc("one", "shop", [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "a"}])
    assert _touched({"policies/one.yaml": _yaml(named)}) == {"Deployment/shop/a"}


def test_a_changed_template_file_touches_every_template_it_holds() -> None:
    """Every document of the file: one document's change moves the others' place in it."""
    changed = _yaml(deployment("b", "shop", replicas=3), service("b", "shop"))
    assert _touched({"apps/shop/b.yaml": changed}) == {"Deployment/shop/b", "Service/shop/b"}


def test_an_added_template_is_touched_and_so_is_what_the_caller_asks_about() -> None:
    added = {"apps/web/new.yaml": _yaml(service("new", "web"))}
    assert _touched(added) == {"Service/web/new"}
    assert _touched(added, asked=frozenset({"Deployment.apps/shop/a"})) == {
        "Service/web/new",
        "Deployment/shop/a",
    }


def test_a_changed_override_policy_touches_its_namespace() -> None:
    def override(selectors: list[dict[str, str]]) -> bytes:
        return _yaml(
            {
                "apiVersion": "policy.karmada.io/v1alpha1",
                "kind": "OverridePolicy",
                "metadata": {"name": "images", "namespace": "web"},
                "spec": {"resourceSelectors": selectors, "overrideRules": []},
            }
        )

    fleet = {**FLEET, "policies/override.yaml": override(DEPLOYMENTS)}
    assert _touched({"policies/override.yaml": override([])}, fleet=fleet) == {
        "Deployment/web/w",
        "ConfigMap/web/settings",
    }


@pytest.mark.parametrize(
    ("changes", "removed"),
    [
        pytest.param({}, ("apps/shop/a.yaml",), id="template-deleted"),
        pytest.param(
            {
                "policies/o.yaml": _yaml(
                    {
                        "apiVersion": "policy.karmada.io/v1alpha1",
                        "kind": "OverridePolicy",
                        "metadata": {"name": "o", "namespace": "shop"},
                        "spec": {"overrideRules": []},
                    }
                )
            },
            (),
            id="override-policy-added",
        ),
        pytest.param(
            {"apps/ns.yaml": _yaml({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})},
            (),
            id="namespace",
        ),
        pytest.param(
            {
                "policies/quota.yaml": _yaml(
                    {
                        "apiVersion": "policy.karmada.io/v1alpha1",
                        "kind": "FederatedResourceQuota",
                        "metadata": {"name": "q", "namespace": "shop"},
                        "spec": {"overall": {"cpu": "1"}},
                    }
                )
            },
            (),
            id="quota",
        ),
    ],
)
def test_a_change_a_scope_cannot_follow_judges_every_template(
    changes: Files, removed: tuple[str, ...]
) -> None:
    assert _touched(changes, removed) is None


def test_a_changed_customization_touches_the_templates_of_its_kind() -> None:
    customization = {
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": "services"},
        "spec": {
            "target": {"apiVersion": "v1", "kind": "Service"},
            "customizations": {
                "replicaResource": {"luaScript": "function GetReplicas(obj) return 1, nil end"}
            },
        },
    }
    assert _touched({"interpreters/services.yaml": _yaml(customization)}) == {"Service/shop/b"}


def test_kustomize_sources_give_no_scope_and_what_they_render_is_always_judged() -> None:
    """Kustomize reads its folder: the templates it renders are not known by the paths that changed, and
    a remote base can change what it gives with no file changing, so its templates are always judged."""
    config, _ = load_config(None)
    kustomization = "apps/pay/kustomization.yaml"
    files = {
        **FLEET,
        kustomization: _yaml({"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}),
    }
    sources = source_plan(files)
    rendered = {kustomization: GeneratedSource(kustomization, _yaml(deployment("pay", "web")))}
    after = load(files, config, generated=rendered).inputs
    nothing = load({}, config).inputs
    index = _index(FLEET)
    for path in ("apps/pay/deployment.yaml", kustomization):
        assert touched_templates(ChangedInputs(frozenset({path}), nothing), after, index, sources) is None
    settings = "apps/web/settings.yaml"
    unrelated = ChangedInputs(frozenset({settings}), load({settings: FLEET[settings]}, config).inputs)
    assert touched_templates(unrelated, after, index, sources) == frozenset(
        {("", "ConfigMap", "web", "settings"), ("apps", "Deployment", "web", "pay")}
    )


def test_a_run_told_of_an_inventory_change_judges_every_template(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scope holds only while the part of the fingerprints every template shares (here the inventory)
    is the one the index was written under; a cluster's new label changes it, so every template is judged.
    A run told of a template's change judges that template (and those the index knows nothing of) only:
    the others' fingerprints are not computed, in both forms: partial (``diff``) and whole (committed)."""
    from gitops_karmada.core.incremental.fingerprint import FingerprintContext

    judged: list[str] = []
    original = FingerprintContext.template

    def counted(self: FingerprintContext, template: Any, *args: Any, **kwargs: Any) -> str:
        judged.append(str(template.key))
        return original(self, template, *args, **kwargs)

    monkeypatch.setattr(FingerprintContext, "template", counted)
    config, _ = load_config(None)
    tree = commit(FLEET, run(FLEET, FIRST))

    def judged_by(changes: Files, *, partial: bool) -> set[str]:
        judged.clear()
        paths = frozenset(changes)
        before = load({p: FLEET[p] for p in paths}, config).inputs
        result = run(
            tree | changes, LATER, changed=ChangedInputs(paths, before), mode=RunMode(partial=partial)
        )
        assert result.scoped == partial
        assert len(result.outcomes) == (3 if partial else 5)
        return set(judged)

    # the changed Deployment, and the ConfigMap and Service no policy selects (the index knows nothing of them)
    replicas = {"apps/shop/a.yaml": _yaml(deployment("a", "shop", replicas=2))}
    judged_once = {"Deployment.apps/shop/a", "ConfigMap/web/settings", "Service/shop/b"}
    assert judged_by(replicas, partial=True) == judged_once
    assert judged_by(replicas, partial=False) == judged_once
    labelled = {"inventory/member1.yaml": _yaml(cluster_doc("member1", labels={"env": "prod"}))}
    assert len(judged_by(labelled, partial=False)) == 5


def test_unsettled_and_unclaimed_entries_are_always_touched() -> None:
    """An entry whose result was held back is redone by any run; a binding without a claim of its own (a
    dependency that followed a workload) is too, since which workloads required it is not in the index."""
    config, _ = load_config(None)
    index = _index(FLEET)
    shop_a = ("apps", "Deployment", "shop", "a")
    web_w = ("apps", "Deployment", "web", "w")
    entries = dict(index.entries)
    entries[shop_a] = type(entries[shop_a])(**{**_fields(entries[shop_a]), "settled": False})
    entries[web_w] = type(entries[web_w])(**{**_fields(entries[web_w]), "claim": None})
    inputs = load(FLEET, config).inputs
    nothing = load({}, config).inputs
    found = touched_templates(ChangedInputs(frozenset(), nothing), inputs, StateIndex(index.engine, entries))
    assert found == frozenset({shop_a, web_w})


def _fields(entry: Any) -> dict[str, Any]:
    return {name: getattr(entry, name) for name in entry.__dataclass_fields__}


@pytest.mark.parametrize("change", ["policy-moved", "requirement-dropped"])
def test_a_dependency_claimed_by_its_own_policy_follows_the_workload_that_requires_it(change: str) -> None:
    """The ConfigMap has a policy of its own (member2) and is required by a Deployment whose policy
    propagates its dependencies (member1): it goes to both. The Deployment's policy moves it to member3,
    or the Deployment stops reading the ConfigMap: the ConfigMap's own inputs did not change, yet its
    output does. A run told of the change judges it too and commits what a run judging every template
    commits."""
    config, _ = load_config(None)
    workload = deployment("w", "web")
    workload["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [
        {"configMapRef": {"name": "settings"}}
    ]

    def policy(name: str, kind: dict[str, str], cluster: str, **spec: Any) -> bytes:
        return _yaml(
            pp_doc(name, "web", [kind], placement={"clusterAffinity": {"clusterNames": [cluster]}}, **spec)
        )

    config_maps = {"apiVersion": "v1", "kind": "ConfigMap"}
    files: Files = {
        **{f"inventory/{c}.yaml": _yaml(cluster_doc(c)) for c in ("member1", "member2", "member3")},
        "apps/web/w.yaml": _yaml(workload),
        "apps/web/settings.yaml": _yaml(configmap("settings", "web")),
        "policies/w.yaml": policy("w", DEPLOYMENTS[0], "member1", propagateDeps=True),
        "policies/settings.yaml": policy("settings", config_maps, "member2"),
    }
    first = run(files, FIRST)
    assert first.index is not None
    assert first.index.entries[("", "ConfigMap", "web", "settings")].required
    tree = commit({}, first)
    moved = (
        {"policies/w.yaml": policy("w", DEPLOYMENTS[0], "member3", propagateDeps=True)}
        if change == "policy-moved"
        else {"apps/web/w.yaml": _yaml(deployment("w", "web"))}
    )

    def changes(changed: ChangedInputs | None) -> dict[str, bytes | None]:
        result = run(files | moved | tree, LATER, changed=changed)
        return result.changes({p: blob_sha(c) for p, c in tree.items()})

    before = load({p: files[p] for p in moved}, config).inputs
    told = changes(ChangedInputs(frozenset(moved), before))
    assert told == changes(None)
    if change == "policy-moved":
        assert "clusters/member3/web/configmap/settings.yaml" in told
    else:
        assert told["clusters/member1/web/configmap/settings.yaml"] is None
