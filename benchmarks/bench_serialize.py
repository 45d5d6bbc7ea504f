"""YAML emission speed: ``python -m benchmarks.bench_serialize`` (our emitter vs PyYAML's C dumper).

A realistic 72-line Deployment, best of 5 passes each, documents per second, in one process so the ratio
is taken in the same run (the machine is noisy; the ratio is the figure to quote). Both rates go to the
history (``benchmarks.history``).
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

import yaml

from benchmarks.history import Figure, Recorder
from gitops_karmada.core.codecs.serialize import dump_yaml

if TYPE_CHECKING:
    from collections.abc import Callable

DEPLOYMENT = yaml.safe_load(
    """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: checkout
  namespace: shop
  labels: {app: checkout, tier: backend, team: payments, version: "2.14.3"}
  annotations:
    fleet.example.com/owner: payments@example.com
    fleet.example.com/revision: 035e2982
spec:
  replicas: 6
  revisionHistoryLimit: 5
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 0}}
  selector: {matchLabels: {app: checkout}}
  template:
    metadata:
      labels: {app: checkout, tier: backend}
      annotations: {prometheus.io/scrape: "true", prometheus.io/port: "9090"}
    spec:
      serviceAccountName: checkout
      containers:
      - name: checkout
        image: registry.example.com/shop/checkout:2.14.3
        args: ["--listen=:8080", "--metrics=:9090", "--log-level=info"]
        ports: [{name: http, containerPort: 8080}, {name: metrics, containerPort: 9090}]
        env:
        - {name: DB_HOST, value: checkout-db.shop.svc}
        - {name: DB_PORT, value: "5432"}
        - {name: FEATURE_FLAGS, value: "fast-checkout,apple-pay"}
        - name: DB_PASSWORD
          valueFrom: {secretKeyRef: {name: checkout-db, key: password}}
        resources:
          requests: {cpu: 250m, memory: 256Mi}
          limits: {cpu: "1", memory: 512Mi}
        readinessProbe: {httpGet: {path: /ready, port: http}, periodSeconds: 5}
        livenessProbe: {httpGet: {path: /live, port: http}, initialDelaySeconds: 10}
      tolerations:
      - {key: dedicated, operator: Equal, value: payments, effect: NoSchedule}
      nodeSelector: {kubernetes.io/os: linux}
"""
)


def rate(dump: Callable[[Any], object], documents: int) -> float:
    best = 0.0
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(documents):
            dump(DEPLOYMENT)
        best = max(best, documents / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a fifth of the documents per pass")
    args = parser.parse_args()
    scale = 5 if args.quick else 1
    ours = rate(dump_yaml, 5000 // scale)
    pyyaml = rate(lambda d: yaml.dump(d, Dumper=yaml.CSafeDumper, sort_keys=False), 1000 // scale)
    recorder = Recorder.start("bench_serialize")
    print(
        f"dump_yaml: {ours:,.0f} docs/s; PyYAML CSafeDumper: {pyyaml:,.0f} docs/s; ratio {ours / pyyaml:.1f}x"
        f" (commit {recorder.commit}, load {recorder.load:g} at the start)\n"
    )
    figures = [
        Figure("dump_yaml, best of 5", ours, "docs/s"),
        Figure("PyYAML CSafeDumper, best of 5", pyyaml, "docs/s"),
    ]
    print(recorder.remember("72-line Deployment" + (", quick" if args.quick else ""), figures))


if __name__ == "__main__":
    main()
