"""Scheduling throughput: ``python -m benchmarks.bench_scheduler [--templates N] [--clusters K]``.

Times ``core.scheduler.schedule`` alone (bindings per second) on the synthetic fleet of
``benchmarks.fleet`` (half Duplicated, half divided by dynamic weights over every cluster), in one
process, median of ``--repeat`` passes. Karmada's v1.15 performance report measured ~22 bindings/s for
5,000 bindings with its scheduler-estimator enabled (a different thing: a control plane with gRPC calls);
the figure is quoted beside ours for scale, not as a like-for-like comparison. The rate goes to the history
(``benchmarks.history``).
"""

from __future__ import annotations

import argparse
import statistics
import time

from benchmarks.fleet import cluster_doc, deployment_doc, policy_doc
from benchmarks.history import Figure, Recorder
from gitops_karmada.core.defaults import default_policy
from gitops_karmada.core.interpreter import ResourceInterpreter
from gitops_karmada.core.scheduler import ClusterIndex, ScheduleRequest, schedule
from gitops_karmada.model.clusters import Cluster
from gitops_karmada.model.config import KARMADA_DEFAULT_GATES
from gitops_karmada.model.keys import ObjectKey
from gitops_karmada.model.policies import PropagationPolicy


def requests(templates: int) -> list[ScheduleRequest]:
    interpreter = ResourceInterpreter()
    out = []
    for index in range(templates):
        body = deployment_doc(index, f"team-{index % 20:02d}")
        policy = default_policy(
            PropagationPolicy.model_validate(policy_doc(index, "team-00", [f"svc-{index:05d}"]))
        )
        replicas, requirements = interpreter.get_replicas(body)
        key = ObjectKey("apps/v1", "Deployment", body["metadata"]["namespace"], body["metadata"]["name"])  # type: ignore[index]
        out.append(
            ScheduleRequest(
                key=key,
                tie_break_uid=f"apps/v1/Deployment/{key.namespace}/{key.name}",
                placement=policy.spec.placement,
                replicas=replicas,
                replica_requirements=requirements,
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--templates", type=int, default=5000)
    parser.add_argument("--clusters", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    clusters = ClusterIndex([Cluster.model_validate(cluster_doc(i)) for i in range(args.clusters)])
    work = requests(args.templates)
    rates = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for request in work:
            result = schedule(request, clusters, gates=KARMADA_DEFAULT_GATES)
            assert result.success, result.condition_message
        rates.append(len(work) / (time.perf_counter() - start))
    median = statistics.median(rates)
    recorder = Recorder.start("bench_scheduler")
    print(
        f"schedule(): {args.templates} bindings x {args.clusters} clusters: median {median:.0f} bindings/s "
        f"(runs: {', '.join(f'{r:.0f}' for r in rates)}); Karmada v1.15 report: ~22 bindings/s "
        f"(commit {recorder.commit}, load {recorder.load:g} at the start)\n"
    )
    figure = Figure.of("schedule()", rates, "bindings/s")
    print(recorder.remember(f"M {args.templates}x{args.clusters}", [figure]))


if __name__ == "__main__":
    main()
