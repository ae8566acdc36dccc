"""Hostile-input campaigns' inputs judged in worker processes under a timeout: a worker that dies (a
signal, an exit) or hangs names the input it was on, which is counted as a crash or a hang, and the
inputs after it go to a new worker.

A worker is ``python -m MODULE --worker LISTING RESULTS ARG...``: it reads the inputs' paths from
``LISTING`` (one a line) and appends to ``RESULTS`` a line ``{"start": name}`` before each input and the
outcome (a dict with ``name``, ``verdict``, ``detail``) after it (``work_through``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def work_through(listing: str, results: str, judge: Callable[[str], dict]) -> None:
    """The worker's side: judge each input of ``listing``, a traceback counted as a crash."""
    with open(results, "a") as out:
        for path in Path(listing).read_text().split("\n"):
            if not path:
                continue
            out.write(json.dumps({"start": Path(path).name}) + "\n")
            out.flush()
            try:
                outcome = judge(path)
            except Exception as exc:  # noqa: BLE001 - a traceback is a verdict here
                outcome = {"name": Path(path).name, "verdict": "crash", "detail": f"{type(exc).__name__}: {exc}"}
            out.write(json.dumps(outcome) + "\n")
            out.flush()


def judge_in_workers(module: str, paths: list[str], work: Path, args: list[str], timeout: float,
                     batch: int = 40) -> list[dict]:
    """Outcomes of ``paths`` judged by workers of ``module``, ``batch`` inputs a worker, ``timeout`` seconds
    an input."""
    outcomes: list[dict] = []
    for a in range(0, len(paths), batch):
        outcomes.extend(_batch(module, paths[a:a + batch], work, args, timeout, a))
    return outcomes


def _batch(module: str, paths: list[str], work: Path, args: list[str], timeout: float, tag: int) -> list[dict]:
    outcomes: list[dict] = []
    todo = list(paths)
    k = 0
    while todo:
        k += 1
        listing, results = work / f"batch{tag}-{k}.txt", work / f"results{tag}-{k}.jsonl"
        listing.write_text("\n".join(todo))
        results.write_text("")
        why = ""
        try:
            proc = subprocess.run([sys.executable, "-m", module, "--worker", str(listing), str(results), *args],
                                  capture_output=True, text=True, timeout=timeout * len(todo), cwd=REPO)
            if proc.returncode:
                why = f"exit {proc.returncode}: {proc.stderr.strip()[-200:]}"
        except subprocess.TimeoutExpired:
            why = "timeout"
        done, started = [], None
        for line in results.read_text().splitlines():
            record = json.loads(line)
            if "start" in record:
                started = record["start"]
            else:
                done.append(record)
                started = None
        outcomes.extend(done)
        names = {o["name"] for o in done}
        todo = [p for p in todo if Path(p).name not in names]
        if started is not None:
            outcomes.append({"name": started, "verdict": "hang" if why == "timeout" else "crash",
                             "detail": why or "worker died"})
            todo = [p for p in todo if Path(p).name != started]
        elif todo:  # the worker stopped before it started any of the rest: do not loop
            outcomes.extend({"name": Path(p).name, "verdict": "crash", "detail": why or "worker stopped"}
                            for p in todo)
            todo = []
    return outcomes
