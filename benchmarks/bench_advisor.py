"""What the advisor's checks cost on a large card: the op-type tables of the slow-operator verdict (whole run, and
split over 20 steps), dynamic shapes, low block dims and repeated small vector runs over N synthetic compute tasks
(300 op types, 2000 shapes, 4 streams).

    python benchmarks/bench_advisor.py [--tasks 10000000]

Prints the seconds of each check; the last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from timelineview.analysis.advisor.block_dim import low_block_dim  # noqa: E402
from timelineview.analysis.advisor.device_info import DeviceInfo  # noqa: E402
from timelineview.analysis.advisor.dynamic_shapes import dynamic_shapes  # noqa: E402
from timelineview.analysis.advisor.op_type_times import op_type_times  # noqa: E402
from timelineview.analysis.advisor.task_groups import group_rows  # noqa: E402
from timelineview.analysis.advisor.tasks import StepWindows, TaskKinds, Tasks  # noqa: E402
from timelineview.analysis.advisor.vector_runs import vector_runs  # noqa: E402

OP_TYPES, SHAPES, STREAMS = 300, 2000, 4
STEPS = 20
EVIDENCE = 3


def synthetic_tasks(n: int, seed: int = 1) -> Tasks:
    """``n`` tasks in stream order: random op types (one in three on the vector cores), shapes, 1–50 µs; their
    kinds given, as the kernel table's groups give them to a loaded card."""
    rng = np.random.default_rng(seed)
    strings = [f"Op{i}" for i in range(OP_TYPES)] + ["AI_CORE", "AI_VECTOR_CORE"] + [f"{i},16" for i in range(SHAPES)]
    op = rng.integers(0, OP_TYPES, n).astype(np.int32)
    core = np.where(op % 3 == 0, OP_TYPES + 1, OP_TYPES).astype(np.int32)
    shapes = (OP_TYPES + 2 + (op * 7 + rng.integers(0, 5, n)) % SHAPES).astype(np.int32)
    lane = np.sort(rng.integers(0, STREAMS, n))
    start = np.cumsum(rng.integers(1_000, 60_000, n))
    kind, first = group_rows(op, core, shapes)  # the kernel table's groups, as a loaded card has them
    kinds = TaskKinds(kind, op[first], core[first], shapes[first])
    return Tasks(strings, np.arange(n), lane, start, rng.integers(1_000, 50_000, n), op, core, shapes,
                 rng.integers(1, 48, n).astype(np.int32), rng.random(n) < 0.5, kinds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=10_000_000)
    args = ap.parse_args()
    tasks = synthetic_tasks(args.tasks)
    device = DeviceInfo(24, 48, 1800.0, "benchmark")
    span = int(tasks.end.max()) + 1
    bounds = np.linspace(0, span, STEPS + 1).astype(np.int64)
    steps = StepWindows(bounds[:-1], bounds[1:])
    checks = {"op_type_times": lambda: op_type_times(tasks, EVIDENCE),
              "op_type_times_by_step": lambda: op_type_times(tasks, EVIDENCE, steps),
              "dynamic_shapes": lambda: dynamic_shapes(tasks, EVIDENCE),
              "low_block_dim": lambda: low_block_dim(tasks, device, EVIDENCE),
              "vector_runs": lambda: vector_runs(tasks, EVIDENCE)}
    seconds = {}
    for name, check in checks.items():
        t = time.perf_counter()
        check()
        seconds[name] = time.perf_counter() - t
        print(f"{name:22} {seconds[name]:6.2f} s on {args.tasks:,} tasks", flush=True)
    print(json.dumps({"tasks": args.tasks, "seconds": seconds, "total": sum(seconds.values())}))


if __name__ == "__main__":
    main()
