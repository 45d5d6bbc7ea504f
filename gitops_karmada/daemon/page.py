"""The read-only status page: server-rendered HTML from a ``Snapshot``, no scripts, no external assets.

A cluster × workload grid (replicas per cell, shaded by share of the template's replicas; red, amber or
grey where the cluster reported the workload unhealthy, not applied or unknown; ⏸ where a rollout's wave is
not reached yet; READY from the reports; the rollout waves reached and waiting),
the evictions waiting for their time (and when the daemon runs for them), the recent runs with what moved,
the errors of the last run with their file and field, and per workload a link to its ``explain`` output.
Every value from the repository is escaped.
"""

from __future__ import annotations

import html
import time
import urllib.parse
from typing import TYPE_CHECKING

from gitops_karmada.daemon.status import WAITING

if TYPE_CHECKING:
    from gitops_karmada.daemon.status import RunRecord, Snapshot, WorkloadRow

MAX_GRID_ROWS = 500
"""Beyond this many templates the grid shows the first ones and says how many are left out."""

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f24}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.6em}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:2px 6px;text-align:right}
th{background:#f6f8fa}td.name,th.name{text-align:left}
.ok{color:#1a7f37}.bad{color:#cf222e}.muted{color:#656d76}
code{font-size:12px}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


HEALTH_BACKGROUND = {"Unhealthy": "#ffd8d3", "NotApplied": "#fff1c2", "Unknown": "#eaeef2"}
"""Cells of clusters that reported trouble: red unhealthy, amber not applied, grey unknown."""


def _cell(placement: WorkloadRow, cluster: str) -> str:
    wave = placement.waves.get(cluster, "")
    if wave.endswith(WAITING):
        # the folder keeps the last promoted files until the rollout reaches the cluster's wave
        title = f"{cluster}: waits for rollout wave {wave.removesuffix(WAITING)}"
        return f'<td class="muted" data-wave="waiting" title="{_e(title)}">⏸</td>'
    health = placement.health.get(cluster)
    if cluster not in placement.replicas:
        if health is None:
            return '<td class="muted">–</td>'
        # still reported after it left the placement (a graceful eviction keeps it)
        return f'<td class="muted" data-health="{_e(health)}" title="{_e(cluster)}: {_e(health)}">–</td>'
    replicas = placement.replicas[cluster]
    title = f"{cluster}: {health}" if health else f"{cluster}: not reported"
    attributes = f' data-health="{_e(health)}"' if health else ""
    background = HEALTH_BACKGROUND.get(health or "")
    if not placement.has_replicas:
        return f'<td style="background:{background or "#dafbe1"}" title="{_e(title)}"{attributes}>✓</td>'
    if background is None:
        total = sum(placement.replicas.values()) or 1
        shade = 235 - int(135 * replicas / total)  # more of the template's replicas, darker green
        background = f"rgb({shade},245,{shade})"
    return f'<td style="background:{background}" title="{_e(title)}"{attributes}>{replicas}</td>'


def _grid(snapshot: Snapshot) -> str:
    if not snapshot.placements:
        return '<p class="muted">No binding records yet.</p>'
    head = "".join(f"<th>{_e(c)}</th>" for c in snapshot.clusters)
    rows = []
    for placement in snapshot.placements[:MAX_GRID_ROWS]:
        link = "/explain?" + urllib.parse.urlencode({"template": placement.template})
        cells = "".join(_cell(placement, c) for c in snapshot.clusters)
        rows.append(
            f'<tr><td class="name"><a href="{_e(link)}">{_e(placement.template)}</a></td>'
            f'<td class="name">{_e(placement.policy)}</td><td>{_e(placement.ready or "–")}</td>'
            f'<td class="name">{_e(placement.rollout or "–")}</td>{cells}</tr>'
        )
    more = len(snapshot.placements) - MAX_GRID_ROWS
    note = f'<p class="muted">{more} more template(s) not shown.</p>' if more > 0 else ""
    return (
        f'<table id="grid"><tr><th class="name">template</th><th class="name">policy</th>'
        f'<th title="ready/desired replicas the member clusters reported">ready</th>'
        f'<th class="name" title="the RolloutPolicy waves reached, and those waiting">wave</th>{head}</tr>'
        + "".join(rows)
        + f"</table>{note}"
    )


def _pending(snapshot: Snapshot) -> str:
    """The evictions a later run makes unless their clusters recover, and when the daemon runs for them."""
    failover = snapshot.failover
    if not failover.pending and not failover.due:
        return ""
    rows = "".join(
        f'<tr><td class="name">{_e(p.template)}</td><td class="name">{_e(p.cluster)}</td>'
        f'<td class="name">{_e(p.due)}</td><td class="name">{_e(p.reason)}</td></tr>'
        for p in failover.pending
    )
    table = (
        '<table id="pending"><tr><th class="name">template</th><th class="name">cluster</th>'
        f'<th class="name">due</th><th class="name">why</th></tr>{rows}</table>'
        if rows
        else ""
    )
    due = (
        f'<p class="muted">The failover controllers decide more at {_e(failover.due)}: the daemon runs a '
        "reconcile then by itself.</p>"
        if failover.due
        else ""
    )
    return f"<h2>Pending evictions</h2>{table}{due}"


def _run_row(run: RunRecord) -> str:
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(run.started))
    style = "bad" if run.errors else "ok"
    moved = ", ".join(run.moved[:10]) + (f" and {len(run.moved) - 10} more" if len(run.moved) > 10 else "")
    return (
        f'<tr><td class="name">{when}Z</td><td class="name"><code>{_e(run.source[:12])}</code></td>'
        f'<td class="name {style}">{_e(run.result.value)}</td>'
        f'<td class="name"><code>{_e(run.commit[:12])}</code></td><td>{run.files_changed}</td>'
        f'<td>{run.duration:.2f} s</td><td class="name">{_e(moved)}</td></tr>'
    )


def status_page(snapshot: Snapshot, *, ready: bool) -> str:
    runs = "".join(_run_row(r) for r in snapshot.runs)
    last = snapshot.runs[0] if snapshot.runs else None
    problems = ""
    if last is not None and (last.errors or last.warnings):
        items = [f'<li class="bad">{_e(e)}</li>' for e in last.errors]
        items += [f"<li>{_e(w)}</li>" for w in last.warnings]
        problems = f'<h2>Problems of the last run</h2><ul id="problems">{"".join(items)}</ul>'
    state = '<span class="ok">ready</span>' if ready else '<span class="bad">not ready</span>'
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gitops-karmada: {_e(snapshot.branch)}</title>
<meta http-equiv="refresh" content="10"><style>{STYLE}</style></head>
<body>
<h1>gitops-karmada watch</h1>
<p>{_e(snapshot.repository)} · branch <code>{_e(snapshot.branch)}</code> · {_e(snapshot.mode)} mode · {state}
· reconciled <code>{_e(snapshot.reconciled[:12] or "–")}</code></p>
<h2>Placement</h2>
{_grid(snapshot)}
{_pending(snapshot)}
{problems}
<h2>Recent runs</h2>
<table id="runs"><tr><th class="name">started</th><th class="name">source</th><th class="name">result</th>
<th class="name">commit</th><th>files</th><th>duration</th><th class="name">moved</th></tr>{runs}</table>
<p class="muted"><a href="/metrics">metrics</a> · <a href="/healthz">healthz</a> ·
<a href="/readyz">readyz</a></p>
</body></html>
"""


def explain_page(template: str, text: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>explain {_e(template)}</title><style>{STYLE}</style></head>
<body><p><a href="/">← fleet</a></p><h1>{_e(template)}</h1><pre id="explain">{_e(text)}</pre></body></html>
"""
