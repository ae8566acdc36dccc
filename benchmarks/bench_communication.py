"""Communication analysis (metrics.md §6) on large generated cards, next to their load time.

    python benchmarks/bench_communication.py [--mb 250] [--runs 5]

Generates two msprof cards of about ``--mb`` MB each under ``.bench/`` (once): ``usual`` (10 steps,
a few collectives each) and ``dense`` (400 shorter steps: ~40 times the collectives and plane tasks
of the same bytes, closer to a large model's trace). Each is loaded once (fresh, without the card
cache), then ``analyse_card`` runs ``--runs`` times on it with its classification and steps already
known (the session computes those anyway): plane-task args read from the file, operators, links.
Budget: the analysis adds ≤ 10 % to opening the card (≤ 10 % of opening an 8 × 250 MB
cluster). The last line is JSON (medians).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET_SHARE_OF_LOAD = 0.10
CARDS = {"usual": 10, "dense": 400}  # name -> steps


def generate(name: str, steps: int, mb: float) -> Path:
    out = ROOT / ".bench" / f"comm_{name}_{mb:g}MB.json"
    if not out.exists():
        from timelineview.synthetic import CardSpec, generate_card

        print(f"generating {out} ...", flush=True)
        out.parent.mkdir(exist_ok=True)
        tmp = out.with_name(out.name + ".partial")
        generate_card(tmp, CardSpec(seed=1, steps=steps), "msprof", target_bytes=int(mb * 1e6))
        tmp.rename(out)
    return out


def measure(path: Path, runs: int) -> dict:
    from timelineview.analysis.classify import classify
    from timelineview.analysis.communication import analyse_card
    from timelineview.analysis.derived import derive
    from timelineview.analysis.steps import find_steps
    from timelineview.model import load

    t0 = time.perf_counter()
    store = load([str(path)])[0]
    load_s = time.perf_counter() - t0
    cls = classify(store)
    steps = find_steps(store, derive(store, classification=cls))
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        cc = analyse_card(store, cls, steps)
        times.append(time.perf_counter() - t0)
    median = statistics.median(times)
    return {"mb": round(path.stat().st_size / 1e6, 1), "slices": len(store.slices), "plane_tasks": len(cc.tasks),
            "operators": len(cc.ops), "links": len(cc.links), "load_s": round(load_s, 3),
            "analysis_s": round(median, 4), "share_of_load": round(median / load_s, 4)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mb", type=float, default=250.0)
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    os.environ["TIMELINEVIEW_CACHE"] = tempfile.mkdtemp(prefix="bench-comm-cache-")  # a fresh load, no cache
    out = {}
    for name, steps in CARDS.items():
        r = measure(generate(name, steps, a.mb), a.runs)
        ok = r["share_of_load"] <= BUDGET_SHARE_OF_LOAD
        print(f"{name}: {r['mb']} MB, {r['slices']:,} slices, {r['plane_tasks']:,} plane tasks, {r['operators']:,} "
              f"operators, {r['links']} links: load {r['load_s']:.2f} s, communication analysis "
              f"{r['analysis_s'] * 1000:.1f} ms ({100 * r['share_of_load']:.1f} % of load) "
              f"{'ok' if ok else 'OVER BUDGET'}", flush=True)
        out[name] = r
    out["budget_share_of_load"] = BUDGET_SHARE_OF_LOAD
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
