"""``stats`` end to end, this checkout against an older commit, run alternately on one machine.

    python benchmarks/bench_against_commit.py PATH [--commit SHA] [--runs 5]
    python benchmarks/bench_against_commit.py --generate 355 [--runs 5]   # .bench/msprof_355MB.json first
    python benchmarks/bench_against_commit.py PATH --new-source DIR   # another checkout's sources as the new side

The older commit (``BASELINE_COMMIT`` unless ``--commit``) is exported with ``git archive`` into
``.bench/commit-SHA`` and run with this interpreter and ``PYTHONPATH`` pointing at it, so both sides use the
same numpy, numba and orjson. Neither side is served from a cache: each has a HOME, a card cache folder and
a numba cache of its own, this checkout runs with ``--no-cache`` (a commit without that option had no card
cache in ``stats``), and both compiled scanners are readied before the first timed run, so no run pays
for a compile. The runs alternate (old, new, old, new, …), so a busy machine slows both alike; the figures
are medians, and the ratio (new / old) is what to compare across machines. Wall time, CPU time (user +
system of the command and the worker processes it waited for) and peak resident memory (the largest of
those processes) come from ``wait4``. A ratio above 1 is a regression. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / ".bench"
# the commit of three weeks before the parse got slower (1.3x on a 355 MB msprof trace); the figure to beat
BASELINE_COMMIT = "9f1a17a"
WARM_SCANNER = "from timelineview.model.load import jit; jit.warm_scanner()"


@dataclass(frozen=True)
class Side:
    """One checkout to time: its sources and the folders that keep its caches apart from the other's."""

    name: str
    source: Path
    home: Path
    extra_args: tuple[str, ...]

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "NUMBA_CACHE_DIR")}
        env.update(PYTHONPATH=str(self.source), HOME=str(self.home), NUMBA_CACHE_DIR=str(self.home / "numba"),
                   TIMELINEVIEW_CACHE=str(self.home / "cards"))
        return env


@dataclass(frozen=True)
class Run:
    """One timed command."""

    wall_s: float
    cpu_s: float
    peak_mb: float


def export_commit(commit: str) -> Path:
    """The sources of ``commit``, exported once into ``.bench/commit-SHA``."""
    sha = subprocess.run(["git", "rev-parse", "--verify", f"{commit}^{{commit}}"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    out = BENCH / f"commit-{sha[:12]}"
    if not (out / "timelineview").is_dir():
        out.mkdir(parents=True, exist_ok=True)
        archive = subprocess.Popen(["git", "archive", sha], cwd=ROOT, stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", str(out)], stdin=archive.stdout, check=True)
        if archive.wait() != 0:
            sys.exit(f"git archive {sha} failed")
    return out


def generate(size_mb: int) -> Path:
    """A synthetic one-card msprof trace of about ``size_mb`` MB (the seed bench_load uses)."""
    out = BENCH / f"msprof_{size_mb}MB.json"
    if not out.exists():
        BENCH.mkdir(exist_ok=True)
        subprocess.run([sys.executable, "-m", "timelineview.synthetic", str(out), "--layout", "msprof",
                        "--cards", "1", "--target-mb", str(size_mb), "--seed", "7"], check=True, cwd=ROOT)
    return out


def has_option(side: Side, option: str) -> bool:
    """Whether the side's ``stats`` takes ``option``."""
    out = subprocess.run([sys.executable, "-m", "timelineview", "stats", "--help"], env=side.env(),
                         capture_output=True, text=True, cwd=tempfile.gettempdir())
    return option in out.stdout


def timed(side: Side, path: Path) -> Run:
    """One ``stats`` of ``path`` in a fresh process; its output is discarded."""
    cmd = [sys.executable, "-m", "timelineview", "stats", str(path), "--quiet", *side.extra_args]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=side.env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            cwd=tempfile.gettempdir())
    stderr = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{side.name}: {' '.join(cmd)} exited {proc.returncode}: {stderr.decode(errors='replace')}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def warm(side: Side, path: Path) -> None:
    """Byte-compile the side's modules (an installed package has them; with PYTHONDONTWRITEBYTECODE set
    every run would compile its sources again), ready its compiled scanner in its numba cache (a compile
    in the foreground the first time), then one untimed ``stats`` for the kernels a load compiles on
    first use."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(side.source / "timelineview")], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "-c", WARM_SCANNER], env=side.env(), check=True, cwd=tempfile.gettempdir())
    timed(side, path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?", type=Path)
    ap.add_argument("--generate", type=int, metavar="MB", help="time a generated msprof trace of MB")
    ap.add_argument("--commit", default=BASELINE_COMMIT, help=f"the older commit (default {BASELINE_COMMIT})")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--new-source", type=Path, default=ROOT,
                    help="the sources to time as the new side (a folder holding timelineview/; default this checkout)")
    args = ap.parse_args()
    path = args.path or generate(args.generate or 355)
    size_mb = path.stat().st_size / 1e6
    label = f"commit {args.commit}"
    sides = [Side(label, export_commit(args.commit), BENCH / "home-old", ()),
             Side("this checkout", args.new_source.resolve(), BENCH / "home-new", ())]
    for side in sides:
        side.home.mkdir(parents=True, exist_ok=True)
    sides = [Side(s.name, s.source, s.home, ("--no-cache",) if has_option(s, "--no-cache") else ())
             for s in sides]
    for side in sides:
        warm(side, path)
    runs: dict[str, list[Run]] = {s.name: [] for s in sides}
    for _ in range(args.runs):
        for side in sides:
            runs[side.name].append(timed(side, path))
    print(f"{path} ({size_mb:,.0f} MB), stats end to end, median of {args.runs} alternating runs")
    summary: dict = {"file": str(path), "size_mb": round(size_mb, 1), "runs": args.runs, "commit": args.commit}
    for side in sides:
        wall = statistics.median(r.wall_s for r in runs[side.name])
        cpu = statistics.median(r.cpu_s for r in runs[side.name])
        peak = statistics.median(r.peak_mb for r in runs[side.name])
        print(f"  {side.name:20s} wall {wall:6.2f} s  CPU {cpu:6.2f} s  {size_mb / wall:6.1f} MB/s  "
              f"peak {peak:5.0f} MB  (walls {', '.join(f'{r.wall_s:.2f}' for r in runs[side.name])})")
        summary[side.name] = {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "peak_mb": round(peak),
                              "mb_per_s": round(size_mb / wall, 1)}
    old, new = (summary[s.name] for s in sides)
    summary["wall_ratio_new_over_old"] = round(new["wall_s"] / old["wall_s"], 3)
    summary["cpu_ratio_new_over_old"] = round(new["cpu_s"] / old["cpu_s"], 3)
    per_pair = [n.wall_s / o.wall_s for o, n in zip(runs[label], runs["this checkout"], strict=True)]
    summary["median_pair_wall_ratio"] = round(statistics.median(per_pair), 3)
    print(f"  new / old: wall {summary['wall_ratio_new_over_old']:.2f}x (median of pairs "
          f"{summary['median_pair_wall_ratio']:.2f}x), CPU {summary['cpu_ratio_new_over_old']:.2f}x"
          f"{'  (regression)' if summary['median_pair_wall_ratio'] > 1.05 else ''}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
