"""Every benchmark in one command: ``python -m benchmarks [--quick]`` (figures go to docs/benchmarks.md).

Runs, one after the other so they do not compete for the 2 cores: YAML emission, scheduling throughput,
the pipeline steps (validate, render, reconcile: first run, no change, one template changed) and diff.
"""

from __future__ import annotations

import subprocess
import sys


def main() -> None:
    quick = ["--quick"] if "--quick" in sys.argv[1:] else []
    small = ["--templates", "500", "--clusters", "10", "--repeat", "1"] if quick else []
    for module, args in (
        ("benchmarks.bench_serialize", []),
        ("benchmarks.bench_scheduler", small),
        ("benchmarks.run", quick),
        ("benchmarks.bench_diff", quick),
    ):
        print(f"## {module} {' '.join(args)}".rstrip(), flush=True)
        subprocess.run([sys.executable, "-m", module, *args], check=True)


if __name__ == "__main__":
    main()
