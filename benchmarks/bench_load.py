"""Load throughput and memory: file → TraceStore with index, against plain ``orjson.loads``.

    python benchmarks/bench_load.py PATH [--runs 3]
    python benchmarks/bench_load.py --generate 300 [--runs 3]   # writes .bench/msprof_300MB.json first
    python benchmarks/bench_load.py --torch-npu-like 150 --sample TRACE_VIEW_JSON   # a real capture, 150 times

Every measurement runs in a fresh process (so peak memory is that run's own). A thread
standing in for the GUI wakes every millisecond during the load; "UI thread late" is the
longest it was kept waiting, in any run. Peak
resident memory is the sum of the peaks of the main process and each worker
(``VmHWM``), an upper bound of what they held together: it counts the shared libraries
once per process. With worker processes, peak PSS is the largest sampled sum of their
proportional set sizes, which counts shared pages once; with decode threads there is one
process, and peak PSS shows its peak RSS. The last line is JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _proc_mb(pid: int | str, file: str, field: str, missing: float) -> float:
    """A kB figure of /proc/<pid>/<file>, in MB (``missing`` when it cannot be read)."""
    try:
        for line in Path(f"/proc/{pid}/{file}").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return missing


def _vm_hwm_mb(pid: int | str = "self") -> float:
    return _proc_mb(pid, "status", "VmHWM:", float("nan"))


def _pss_mb(pid: int | str) -> float:
    return _proc_mb(pid, "smaps_rollup", "Pss:", 0.0)


class PssSampler(threading.Thread):
    """Largest sum of the processes' proportional set sizes, sampled every 20 ms.

    Unlike the sum of each process's peak RSS, this counts pages the processes share
    (the Python, numpy and LLVM libraries) once, as the machine holds them.
    """

    def __init__(self, pids: list[int | str]) -> None:
        super().__init__(daemon=True)
        self.pids, self.peak, self.done = pids, 0.0, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.02):
            self.peak = max(self.peak, sum(_pss_mb(p) for p in self.pids))

    def stop(self) -> float:
        self.done.set()
        self.join()
        self.peak = max(self.peak, sum(_pss_mb(p) for p in self.pids))
        return self.peak


class StallProbe(threading.Thread):
    """Stands in for the GUI thread: wakes every millisecond and records how late it ran.
    Decode threads hold the GIL in their Python parts; this is how long they kept a
    Python thread waiting."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.late: list[float] = []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            t = time.perf_counter()
            time.sleep(0.001)
            self.late.append(time.perf_counter() - t - 0.001)

    def stop(self) -> tuple[float, float]:
        """(longest, 99th percentile) lateness in ms."""
        self.done.set()
        self.join()
        late = np.array(self.late or [0.0]) * 1000
        return float(late.max()), float(np.percentile(late, 99))


def one_load(path: str, workers: int) -> dict:
    from timelineview.model import load
    from timelineview.model.load.loader import shutdown_pool, warm_pool

    pids = warm_pool(workers)
    # PSS only tells more than peak RSS when worker processes share pages; reading it
    # walks the page tables every 20 ms, which slowed a 0.5 s load by about 0.05 s
    sampler = PssSampler(["self", *pids]) if pids else None
    if sampler:
        sampler.start()
    probe = StallProbe()
    probe.start()
    t = time.perf_counter()
    [store] = load(path, workers=workers)
    elapsed = time.perf_counter() - t
    stall_max, stall_p99 = probe.stop()
    rss = _vm_hwm_mb() + sum(_vm_hwm_mb(p) for p in pids)
    pss = sampler.stop() if sampler else rss  # one process: all it holds is its own
    picks = np.random.default_rng(0).choice(len(store.slices), min(20, len(store.slices)), replace=False)
    lookups = []
    for i in picks:  # each one re-reads and splits its 256 KiB range of the file
        t = time.perf_counter()
        store.args(int(i))
        lookups.append(time.perf_counter() - t)
    out = {"seconds": elapsed, "slices": len(store.slices), "rows": store.index.n_rows, "peak_rss_mb": rss,
           "peak_pss_mb": pss, "stall_max_ms": stall_max, "stall_p99_ms": stall_p99,
           "args_ms": 1000 * statistics.median(lookups) if lookups else 0.0}
    shutdown_pool()
    return out


def one_orjson(path: str) -> dict:
    import orjson

    gc.disable()
    t = time.perf_counter()
    with open(path, "rb") as f:
        data = orjson.loads(f.read())
    elapsed = time.perf_counter() - t
    n = len(data["traceEvents"] if isinstance(data, dict) else data)
    return {"seconds": elapsed, "events": n, "peak_rss_mb": _vm_hwm_mb()}


def run_child(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def generate(size_mb: int) -> Path:
    out = ROOT / ".bench" / f"msprof_{size_mb}MB.json"
    if not out.exists():
        out.parent.mkdir(exist_ok=True)
        subprocess.run([sys.executable, "-m", "timelineview.synthetic", str(out), "--layout", "msprof",
                        "--cards", "1", "--target-mb", str(size_mb), "--seed", "7"], check=True, cwd=ROOT)
    return out


def torch_npu_like(copies: int, sample: Path) -> Path:
    """A real torch_npu ``trace_view.json`` (``sample``; counters were 44 % of the events of the one
    measured) repeated ``copies`` times along the time axis, with fresh flow ids: what a long torch_npu
    capture looks like."""
    out = ROOT / ".bench" / f"torch_npu_like_x{copies}.json"
    if out.exists():
        return out
    if not sample.is_file():
        sys.exit(f"{sample} is not present")
    events = json.loads(sample.read_bytes())
    meta = [e for e in events if e.get("ph") == "M"]
    rest = [e for e in events if e.get("ph") != "M"]
    result = list(meta)
    for k in range(copies):
        shift = k * 10**7  # µs
        for e in rest:
            e = dict(e)
            if isinstance(e.get("ts"), str):
                whole, _, frac = e["ts"].partition(".")
                e["ts"] = f"{int(whole) + shift}.{frac}" if frac else str(int(whole) + shift)
            elif "ts" in e:
                e["ts"] += shift
            if e.get("ph") in ("s", "t", "f") and "id" in e:
                e["id"] = f"{e['id']}{k}"
            result.append(e)
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?")
    ap.add_argument("--generate", type=int, metavar="MB", help="benchmark a generated msprof trace of MB")
    ap.add_argument("--torch-npu-like", type=int, metavar="COPIES",
                    help="benchmark a real torch_npu trace (--sample) repeated COPIES times")
    ap.add_argument("--sample", type=Path, help="the torch_npu trace_view.json --torch-npu-like repeats")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--one", choices=["load", "orjson"], help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    if args.one == "load":
        print(json.dumps(one_load(args.path, args.workers)))
        return
    if args.one == "orjson":
        print(json.dumps(one_orjson(args.path)))
        return
    if args.path:
        path = Path(args.path)
    elif args.torch_npu_like:
        if args.sample is None:
            ap.error("--torch-npu-like needs --sample PATH (a torch_npu trace_view.json)")
        path = torch_npu_like(args.torch_npu_like, args.sample)
    else:
        path = generate(args.generate or 300)
    size_mb = path.stat().st_size / 1e6
    cores = os.cpu_count() or 1
    configs = {"orjson.loads (gc off)": ("--one", "orjson")}
    configs["timelineview, 1 worker"] = ("--one", "load", "--workers", "1")
    if cores > 1:
        configs[f"timelineview, {cores} workers"] = ("--one", "load", "--workers", str(cores))
    results: dict[str, list[dict]] = {k: [] for k in configs}
    for _ in range(args.runs):  # interleaved, so machine noise hits every config alike
        for name, extra in configs.items():
            results[name].append(run_child(str(path), *extra))
    summary = {"file": str(path), "size_mb": round(size_mb, 1), "runs": args.runs}
    print(f"{path} ({size_mb:,.0f} MB), median of {args.runs} runs")
    for name, runs in results.items():
        sec = statistics.median(r["seconds"] for r in runs)
        rss = statistics.median(r["peak_rss_mb"] for r in runs)
        args_ms = statistics.median(r.get("args_ms", 0.0) for r in runs)
        extra = ""
        if "args_ms" in runs[0]:
            pss = statistics.median(r["peak_pss_mb"] for r in runs)
            stall = max(r["stall_max_ms"] for r in runs)
            extra = f"  peak PSS {pss:6.0f} MB  args of one slice {args_ms:.2f} ms  UI thread late ≤ {stall:.0f} ms"
        print(f"  {name:28s} {sec:7.2f} s  {size_mb / sec:7.1f} MB/s  peak RSS {rss:8.0f} MB{extra}")
        summary[name] = {"seconds": round(sec, 3), "mb_per_s": round(size_mb / sec, 1), "peak_rss_mb": round(rss)}
        if extra:
            summary[name]["args_ms"] = round(args_ms, 2)
            summary[name]["peak_pss_mb"] = round(pss)
            summary[name]["stall_max_ms"] = round(stall, 1)
    base = summary["orjson.loads (gc off)"]["seconds"]
    best = min(v["seconds"] for k, v in summary.items() if k.startswith("timelineview"))
    summary["speedup_vs_orjson"] = round(base / best, 2)
    if cores > 1:
        one = summary["timelineview, 1 worker"]["seconds"]
        summary["scaling_1_to_all_cores"] = round(one / summary[f"timelineview, {cores} workers"]["seconds"], 2)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
