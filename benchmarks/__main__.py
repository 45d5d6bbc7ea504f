"""Every benchmark in one command: ``python -m benchmarks [--quick]`` (figures go to docs/benchmarks.md).

Runs, one after the other so they do not compete for the 2 cores: YAML emission, scheduling throughput,
the pipeline steps (validate, render, reconcile), diff, the incremental engine's table on fleets M and K,
the watch daemon's push-to-reconciled latency, what the schema check of rendered manifests adds to a first
reconcile, and what failover adds to an incremental run. Every first reconcile is given beside the true
floor of its tree, measured in the same run (``benchmarks.floor``); every figure is appended to
benchmarks/history/figures.jsonl and printed beside the history's median and spread on this machine class
(``benchmarks.history``). Each module also runs alone (``python -m benchmarks.<module> --help``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small fleets, one run each (under two minutes)")
    args = parser.parse_args()
    started = time.perf_counter()
    quick = ["--quick"] if args.quick else []
    small = ["--templates", "500", "--clusters", "10", "--repeat", "1"] if args.quick else []
    for module, module_args in (
        ("benchmarks.bench_serialize", quick),
        ("benchmarks.bench_scheduler", small),
        ("benchmarks.run", quick),
        ("benchmarks.bench_diff", quick),
        ("benchmarks.bench_incremental", quick),
        ("benchmarks.bench_watch", quick),
        ("benchmarks.bench_schema", quick),
        ("benchmarks.bench_failover", quick),
    ):
        print(f"## {module} {' '.join(module_args)}".rstrip(), flush=True)
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", module, *module_args], check=True)
        print(f"\n({module}: {time.perf_counter() - began:.0f} s)", flush=True)
    print(f"## every benchmark: {time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
