"""The hostile-input campaigns, each in its own process, and a table of their counts: crafted profiler
databases read by the page reader against SQLite (``page_fuzz``), mutated memory CSVs (``memory_csv``), a
tampered card cache (``cache``), unreadable entries in a data folder under every command (``paths``). Each
campaign runs its inputs in subprocesses under a timeout and prints one JSON line of counts last; this
script exits 1 when a campaign broke a rule (a crash, a hang, a mismatch with SQLite, a silent loss).

    nice -n 5 python benchmarks/bench_hostile.py [--quick] [--only page_fuzz,memory_csv,cache,paths]

``--quick`` is the small sample (about a minute in all); the suite runs the page fuzz's quick sample.
The summaries campaign is ``bench_summary_tamper.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CAMPAIGNS = {
    "page_fuzz": "tests.model.database.page_fuzz_campaign",
    "memory_csv": "tests.model.memory.memory_csv_campaign",
    "cache": "tests.model.store.cache_tamper_campaign",
    "paths": "tests.commands.data_path_campaign",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default=",".join(CAMPAIGNS))
    args = parser.parse_args()
    rows, failed = [], False
    for name in args.only.split(","):
        began = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", CAMPAIGNS[name], *(["--quick"] if args.quick else [])],
                              capture_output=True, text=True, cwd=REPO, env={**os.environ})
        seconds = time.perf_counter() - began
        lines = proc.stdout.strip().splitlines()
        print(f"== {name} ({seconds:.0f} s, exit {proc.returncode})")
        print("\n".join(lines[-40:-1]))
        try:
            counts = json.loads(lines[-1])
        except (IndexError, json.JSONDecodeError):
            counts = {"error": proc.stderr.strip()[-300:]}
        rows.append((name, seconds, counts))
        failed |= proc.returncode != 0
    print("\ncampaign     seconds  counts")
    for name, seconds, counts in rows:
        print(f"{name:12} {seconds:7.0f}  " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
