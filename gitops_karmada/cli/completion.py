"""``gitops-karmada completion bash|zsh|fish``, and shell completion that answers without loading the verbs.

A TAB runs the program with ``_GITOPS_KARMADA_COMPLETE`` set. Importing a verb's module to learn its
options cost 0.7 s (the pipeline, the models, the adapters), so a TAB never does: ``main`` hands it to
``complete``, which rebuilds the command line from ``completion_shapes.SHAPES`` (every verb's options and
arguments, as plain data, checked against the real commands by a test) and answers with click's own
completion. Values complete from the records the last reconcile committed, read with plain git plumbing
(no rendering, no parsing of the inputs): template references, namespaces, bindings and policies from the
state index (``<state>/index/*.json``), clusters from the cluster folders and the placements. This module
imports nothing of the tool but the shapes and the well-known names: keep it so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.shell_completion import CompletionItem, get_completion_class

from gitops_karmada.model.wellknown import (  # constants only: no model, no pydantic
    CONFIG_FILE,
    DEFAULT_CLUSTERS_DIR,
    DEFAULT_STATE_DIR,
    RENDERED_BY_TRAILER,
    TOOL_NAME,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

PROGRAM = "gitops-karmada"
COMPLETE_VAR = "_GITOPS_KARMADA_COMPLETE"

KIND_WORDS = (
    "binding", "bindings", "clusterresourcebindings", "cluster", "clusters", "cop", "cpp", "crb",
    "clusteroverridepolicies", "clusterpropagationpolicies", "frq", "federatedresourcequotas", "op",
    "override", "overridepolicies", "overrides", "policies", "policy", "pp", "propagationpolicies", "quota",
    "quotas", "rb", "resourcebindings", "ro", "rollout", "rolloutpolicies", "rollouts",
)  # fmt: skip
"""What ``get`` takes as KIND (``core.views.listing.KIND_ALIASES``, which a test compares this with)."""

Identity = tuple[str, str, str, str]


# -- the records of the last reconcile -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Records:
    """What completion offers, as the last reconcile commit recorded it."""

    templates: tuple[Identity, ...] = ()
    """(group, kind, namespace, name) of every template the state index holds."""
    policies: frozenset[tuple[str, str, str]] = frozenset()
    """(kind, namespace, name) of every policy that claims a template."""
    clusters: tuple[str, ...] = ()
    """Every cluster with a folder or a placement."""
    namespaces: tuple[str, ...] = field(default=())


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes | None:
    """git's stdout, or None when it fails (no repository, no such object): completion then offers less."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args], input=stdin, capture_output=True, check=False, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _batch(repo: Path, names: Sequence[str]) -> dict[str, bytes]:
    """The content of each ``commit:path`` blob in ``names``, through one ``cat-file --batch``."""
    out = _git(repo, "cat-file", "--batch", stdin="".join(f"{n}\n" for n in names).encode())
    found: dict[str, bytes] = {}
    position = 0
    for name in names:
        if out is None:
            break
        end = out.index(b"\n", position)
        header = out[position:end].split()
        position = end + 1
        if len(header) != 3 or header[1] != b"blob":
            continue  # "<name> missing", or a tree
        size = int(header[2])
        found[name] = out[position : position + size]
        position += size + 1
    return found


def _output_dirs(config: bytes | None) -> tuple[str, str]:
    """``output.clustersDir`` and ``output.stateDir`` of the configuration (its defaults when unreadable)."""
    if not config:
        return DEFAULT_CLUSTERS_DIR, DEFAULT_STATE_DIR
    import yaml  # only a completion that reads records pays for it

    try:
        data = yaml.safe_load(config)
    except yaml.YAMLError:
        return DEFAULT_CLUSTERS_DIR, DEFAULT_STATE_DIR
    output = data.get("output") if isinstance(data, dict) else None
    output = output if isinstance(output, dict) else {}
    clusters, state = output.get("clustersDir"), output.get("stateDir")
    return (
        clusters if isinstance(clusters, str) and clusters else DEFAULT_CLUSTERS_DIR,
        state if isinstance(state, str) and state else DEFAULT_STATE_DIR,
    )


def _listing(repo: Path, commit: str, folder: str) -> list[tuple[str, str]]:
    """(type, name) of each entry of ``folder`` at ``commit``."""
    out = _git(repo, "ls-tree", "-z", commit, "--", folder.rstrip("/") + "/")
    entries = []
    for record in (out or b"").split(b"\0"):
        if record:
            meta, _, path = record.decode("utf-8", "surrogateescape").partition("\t")
            entries.append((meta.split(" ")[1], path.rpartition("/")[2]))
    return entries


def read_records(repo: Path) -> Records:
    """The records of the newest commit of HEAD's history that the tool made (nothing before a reconcile)."""
    found = _git(
        repo,
        "log",
        "-1",
        "--first-parent",
        "--format=%H",
        f"--grep=^{RENDERED_BY_TRAILER}: {TOOL_NAME}",
        "HEAD",
    )
    commit = (found or b"").decode().strip()
    if not commit:
        return Records()
    clusters_dir, state_dir = _output_dirs(
        _batch(repo, [f"{commit}:{CONFIG_FILE}"]).get(f"{commit}:{CONFIG_FILE}")
    )
    shards = [name for kind, name in _listing(repo, commit, f"{state_dir}/index") if kind == "blob"]
    paths = [f"{state_dir}/index/{name}" for name in shards if name.endswith(".json")] or [
        f"{state_dir}/index.json"
    ]
    contents = _batch(repo, [f"{commit}:{path}" for path in paths])
    templates: list[Identity] = []
    policies: set[tuple[str, str, str]] = set()
    clusters = {name for kind, name in _listing(repo, commit, clusters_dir) if kind == "tree"}
    import orjson  # only a completion that reads records pays for it

    for raw in contents.values():
        try:
            entries = orjson.loads(raw).get("templates") or {}
        except (orjson.JSONDecodeError, AttributeError):
            continue
        for text, entry in entries.items():
            parts = tuple(text.split("/"))
            if len(parts) != 4 or not isinstance(entry, dict):
                continue
            templates.append((parts[0], parts[1], parts[2], parts[3]))
            claim = entry.get("claim")
            if isinstance(claim, list) and len(claim) >= 3:
                policies.add((str(claim[0]), str(claim[1]), str(claim[2])))
            clusters.update(str(c) for c in entry.get("placement") or {})
    namespaces = sorted({identity[2] for identity in templates if identity[2]})
    return Records(tuple(sorted(templates)), frozenset(policies), tuple(sorted(clusters)), tuple(namespaces))


def _records(ctx: click.Context) -> Records:
    """The records of the repository the command line names (``--repo``), read once per TAB."""
    root = ctx.find_root()
    cached = root.meta.get("gitops_karmada.records")
    if cached is None:
        repo = ctx.params.get("repo") or os.environ.get("GITOPS_KARMADA_REPO") or "."
        cached = root.meta["gitops_karmada.records"] = read_records(Path(repo))
    assert isinstance(cached, Records)
    return cached


# -- what each kind of value completes to --------------------------------------------------------------------


def template_texts(identity: Identity) -> tuple[str, str]:
    """``Kind.group/namespace/name`` and ``Kind/namespace/name`` (cluster-scoped: without the namespace)."""
    group, kind, namespace, name = identity
    rest = f"{namespace}/{name}" if namespace else name
    return (f"{kind}.{group}/{rest}" if group else f"{kind}/{rest}"), f"{kind}/{rest}"


def _starting(candidates: Iterable[str], incomplete: str) -> list[CompletionItem]:
    wanted = incomplete.lower()
    return [CompletionItem(c) for c in dict.fromkeys(candidates) if c.lower().startswith(wanted)]


def _templates(records: Records, incomplete: str, *, namespaced: bool = False) -> list[str]:
    """The references that continue ``incomplete``, in the form it started (with or without the group)."""
    wanted = incomplete.lower()
    found = []
    for identity in records.templates:
        if namespaced and not identity[2]:
            continue
        full, short = template_texts(identity)
        if full.lower().startswith(wanted):
            found.append(full)
        elif short.lower().startswith(wanted):
            found.append(short)
    return found


def complete_reference(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """A template reference, ``KIND[.GROUP]/NAMESPACE/NAME`` (case-insensitive prefix)."""
    return [CompletionItem(r) for r in _templates(_records(ctx), incomplete)]


def complete_describe(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """``describe``'s REF: a template reference, ``pp/NAMESPACE/NAME``, ``cpp/NAME``,
    ``rollout/NAMESPACE/NAME`` or ``cluster/NAME``."""
    records = _records(ctx)
    prefix, slash, _ = incomplete.partition("/")
    if slash and prefix.lower() in ("pp", "propagationpolicy"):
        found = [
            f"{prefix}/{ns}/{name}"
            for kind, ns, name in sorted(records.policies)
            if kind == "PropagationPolicy"
        ]
    elif slash and prefix.lower() in ("cpp", "clusterpropagationpolicy"):
        found = [
            f"{prefix}/{name}" for kind, _, name in sorted(records.policies) if kind != "PropagationPolicy"
        ]
    elif slash and prefix.lower() == "cluster":
        found = [f"{prefix}/{name}" for name in records.clusters]
    else:
        prefixes = ("pp/", "cpp/", "rollout/", "cluster/")
        found = [*(p for p in prefixes if not slash), *_templates(records, incomplete)]
    return _starting(found, incomplete)


def complete_kind(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """``get``'s KIND."""
    return _starting(KIND_WORDS, incomplete)


def binding_name(identity: Identity) -> str:
    """Karmada's binding name: the template's name and its lowercase kind (``cart-deployment``)."""
    return f"{identity[3]}-{identity[1].lower()}"


BINDING_WORDS = frozenset({"rb", "crb", "binding", "bindings", "resourcebindings", "clusterresourcebindings"})
POLICY_WORDS = frozenset(
    {"pp", "propagationpolicies", "cpp", "clusterpropagationpolicies", "policy", "policies"}
)
CLUSTER_WIDE = frozenset({"crb", "clusterresourcebindings", "cpp", "clusterpropagationpolicies"})
NAMESPACED = frozenset({"rb", "resourcebindings", "pp", "propagationpolicies"})


def complete_get_name(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """``get KIND NAME``: the names of that kind (in ``-n``'s namespace, ``default`` without one)."""
    records = _records(ctx)
    kind = str(ctx.params.get("kind_and_api_kind") or "").lower()
    namespace = ctx.params.get("namespace") or ("" if ctx.params.get("all_namespaces") else "default")

    def wanted(ns: str) -> bool:
        if kind in CLUSTER_WIDE:
            return not ns
        if kind in NAMESPACED:
            return bool(ns) and (not namespace or ns == namespace)
        return not ns or not namespace or ns == namespace

    names: list[str] = []
    if kind in ("cluster", "clusters"):
        names = list(records.clusters)
    elif kind in BINDING_WORDS:
        names = [binding_name(i) for i in records.templates if wanted(i[2])]
    elif kind in POLICY_WORDS:
        names = [name for _, ns, name in records.policies if wanted(ns)]
    return _starting(sorted(names), incomplete)


def complete_namespace(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """A namespace some recorded template is in."""
    return _starting(_records(ctx).namespaces, incomplete)


def complete_cluster(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """A member cluster."""
    return _starting(_records(ctx).clusters, incomplete)


def complete_cluster_prefixed(
    ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """``CLUSTER:...`` (``--taint``, ``--capacity``): the cluster, then what follows is the user's."""
    if ":" in incomplete:
        return []
    return _starting((f"{c}:" for c in _records(ctx).clusters), incomplete)


def complete_unhealthy(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """``KIND/NAMESPACE/NAME@CLUSTER``: a namespaced template, then after ``@`` a cluster."""
    records = _records(ctx)
    subject, at, _ = incomplete.rpartition("@")
    if at:
        return _starting((f"{subject}@{c}" for c in records.clusters), incomplete)
    return [CompletionItem(r) for r in _templates(records, incomplete, namespaced=True)]


COMPLETERS: Mapping[str, Callable[[click.Context, click.Parameter, str], list[CompletionItem]]] = {
    f.__name__: f
    for f in (
        complete_reference,
        complete_describe,
        complete_kind,
        complete_get_name,
        complete_namespace,
        complete_cluster,
        complete_cluster_prefixed,
        complete_unhealthy,
    )
}
"""The completers a verb's parameter may name (``shell_complete=``); the shapes refer to them by name."""


# -- the command line rebuilt from its shapes ----------------------------------------------------------------


def _type(shape: Mapping[str, Any]) -> click.ParamType[Any]:
    match shape.get("type"):
        case "choice":
            return click.Choice(shape["choices"], case_sensitive=shape.get("case_sensitive", True))
        case "file":
            return click.Path(dir_okay=False)
        case "dir":
            return click.Path(file_okay=False)
        case "path":
            return click.Path()
        case _:
            return click.STRING


def _parameter(shape: Mapping[str, Any]) -> click.Parameter:
    complete = COMPLETERS.get(shape.get("complete", ""))
    if shape["param"] == "argument":
        return click.Argument(
            [shape["name"]], nargs=shape["nargs"], required=False, type=_type(shape), shell_complete=complete
        )
    pairs = [f"{o}/{s}" for o, s in zip(shape["opts"], shape.get("secondary", ()), strict=False)]
    decls = [*pairs, *shape["opts"][len(pairs) :], shape["name"]]
    if shape.get("count"):
        return click.Option(decls, count=True, hidden=shape.get("hidden", False))
    if shape.get("flag"):
        return click.Option(decls, is_flag=True, hidden=shape.get("hidden", False))
    return click.Option(
        decls,
        type=_type(shape),
        multiple=shape.get("multiple", False),
        nargs=shape.get("nargs", 1),
        hidden=shape.get("hidden", False),
        shell_complete=complete,
    )


def shaped_cli(shapes: Mapping[str, Mapping[str, Any]]) -> click.Group:
    """The command line as ``shapes`` describe it: every verb and parameter, no callbacks."""
    root = shapes[""]
    group = click.Group(
        PROGRAM,
        params=[_parameter(p) for p in root["params"]],
        context_settings={"help_option_names": ["-h", "--help"], "auto_envvar_prefix": "GITOPS_KARMADA"},
    )
    for name, shape in shapes.items():
        if name:
            group.add_command(
                click.Command(
                    name,
                    params=[_parameter(p) for p in shape["params"]],
                    short_help=shape.get("short_help") or None,
                    hidden=shape.get("hidden", False),
                    context_settings={"help_option_names": ["-h", "--help"]},
                )
            )
    return group


def complete() -> None:
    """Answer one TAB (``_GITOPS_KARMADA_COMPLETE`` is set) and exit."""
    from gitops_karmada.cli.completion_shapes import SHAPES

    shaped_cli(SHAPES).main(prog_name=PROGRAM, complete_var=COMPLETE_VAR)
    sys.exit(0)  # main exits itself; this is not reached


def command_shapes(group: click.Group, commands: Mapping[str, click.Command]) -> dict[str, dict[str, Any]]:
    """The shapes of ``group`` and its ``commands`` (what ``completion_shapes.SHAPES`` must equal)."""
    shapes: dict[str, dict[str, Any]] = {"": {"params": [_shape_of(p) for p in group.params]}}
    for name, command in sorted(commands.items()):
        shapes[name] = {
            "short_help": command.get_short_help_str(),
            "params": [_shape_of(p) for p in command.params],
        }
        if command.hidden:
            shapes[name]["hidden"] = True
    return shapes


def _shape_of(param: click.Parameter) -> dict[str, Any]:
    shape: dict[str, Any] = {"param": "argument" if isinstance(param, click.Argument) else "option"}
    shape["name"] = param.name
    if isinstance(param, click.Option):
        shape["opts"] = list(param.opts)
        if param.secondary_opts:
            shape["secondary"] = list(param.secondary_opts)
        if param.count:
            shape["count"] = True
        elif param.is_flag:
            shape["flag"] = True
        if param.multiple:
            shape["multiple"] = True
        if param.hidden:
            shape["hidden"] = True
    if param.nargs != 1 or isinstance(param, click.Argument):
        shape["nargs"] = param.nargs
    kind = param.type
    if isinstance(kind, click.Choice):
        shape["type"] = "choice"
        shape["choices"] = [str(c) for c in kind.choices]
        if not kind.case_sensitive:
            shape["case_sensitive"] = False
    elif isinstance(kind, click.Path):
        if not kind.file_okay:
            shape["type"] = "dir"
        else:
            shape["type"] = "path" if kind.dir_okay else "file"
    elif isinstance(kind, click.File):
        shape["type"] = "file"
    custom = getattr(param, "_custom_shell_complete", None)
    if custom is not None:
        name = str(getattr(custom, "__name__", ""))
        assert COMPLETERS.get(name) is custom, f"{param.name}: completers live in cli.completion"
        shape["complete"] = name
    return shape


@click.command("completion")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion_command(shell: str) -> None:
    """Print the completion script for SHELL, e.g. eval "$(gitops-karmada completion bash)".

    Commands and options complete, and so do template references, namespaces, clusters, policies and
    binding names, from the records the last reconcile committed.
    """
    program = click.get_current_context().find_root().command  # the group this command belongs to
    completion_class = get_completion_class(shell)
    assert completion_class is not None  # click knows every choice above
    click.echo(completion_class(program, {}, PROGRAM, COMPLETE_VAR).source())
