"""A campaign against torch_npu's memory CSV readers: valid ``memory_record.csv`` and ``operator_memory.csv``
files mutated with a seed — numbers beyond int64 (1e300 KB, 9e12 MB), negative, NaN and infinite numbers,
text in number columns, lines ended by CR only, a column or the header removed, binary garbage written
over a stretch, the file cut at a byte — each read in a worker process under a timeout.

A read keeps the rule when every data line of the file is a row read or a row dropped with a reason
(``rows_read + dropped_rows == lines``), or the whole file is refused with a warning; and no size it keeps
is negative unless a negative number was written. Verdicts: ``kept the count``, ``refused``, ``lost``
(rows neither read nor counted), ``wrong value``, ``crash``, ``hang``.

    python -m tests.model.memory.memory_csv_campaign [--inputs 300] [--seed 1] [--quick]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import sys
import tempfile
from pathlib import Path

from tests.campaign_workers import judge_in_workers, work_through

ROWS = 200
TIMEOUT_S = 30.0
QUICK_INPUTS = 30
FAILURES = ("lost", "wrong value", "crash", "hang")
VERDICTS = ("kept the count", "refused") + FAILURES
RECORD_HEADER = "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type"
OPERATOR_HEADER = ("Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),"
                   "Active Duration(us),Allocation Total Allocated(MB),Allocation Total Reserved(MB),"
                   "Allocation Total Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),"
                   "Release Total Active(MB),Stream Ptr,Device Type")
NUMBERS = ("1e300", "9e12", "9223372036854775808", "-9223372036854775809", "-5", "-0.5", "NaN", "nan", "inf",
           "-inf", "", "abc", "1" * 40, "0x10", "1e-300", "\t", " 12 ", "1,5")
LINES = re.compile(rb"\r\n|\r|\n")


def _record_rows(rng: random.Random) -> list[str]:
    t = 1736408883573957.920
    rows = []
    for _ in range(ROWS):
        t += rng.uniform(1, 100)
        rows.append(f"{rng.choice(['PTA', 'GE', 'APP'])},{t:.3f}\t,{rng.uniform(0, 9e4):.4f},"
                    f"{rng.uniform(0, 9e4):.4f},{rng.uniform(0, 9e4):.4f},{rng.randrange(10**9)},NPU:0")
    return rows


def _operator_rows(rng: random.Random) -> list[str]:
    t = 1736408883694624.810
    rows = []
    for _ in range(ROWS):
        t += rng.uniform(1, 100)
        t1 = f"{t + rng.uniform(1, 50):.3f}\t" if rng.random() < 0.8 else ""
        rows.append(f"aten::op{rng.randrange(20)},{rng.uniform(0, 9e4):.1f},{t:.3f}\t,{t1},,,,1.0,2.0,1.0,,,,"
                    f"{rng.choice(['123', ''])},NPU:0")
    return rows


def mutate(lines: list[str], rng: random.Random) -> tuple[bytes, str]:
    """A mutated file (its bytes) from ``lines`` (header first), and the mutation's name."""
    way = rng.choice(("number", "numbers", "cr only", "drop column", "no header", "garbage", "truncate",
                      "short row", "long row"))
    lines = list(lines)
    if way in ("number", "numbers"):
        for _ in range(1 if way == "number" else rng.randint(2, 30)):
            k = rng.randrange(1, len(lines))
            fields = lines[k].split(",")
            col = rng.randrange(1, min(len(fields), 5))
            value = rng.choice(NUMBERS)
            fields[col] = value
            lines[k] = ",".join(fields)
            way += f" {value!r}"
    elif way == "drop column":
        col = rng.randrange(5)
        lines = [",".join(f for i, f in enumerate(line.split(",")) if i != col) for line in lines]
        way += f" {col}"
    elif way == "no header":
        lines = lines[1:]
    elif way == "short row":
        k = rng.randrange(1, len(lines))
        lines[k] = ",".join(lines[k].split(",")[:rng.randrange(1, 4)])
    elif way == "long row":
        k = rng.randrange(1, len(lines))
        lines[k] += "," * rng.randrange(1, 50) + "x" * rng.randrange(10**5)
    end = "\r" if way == "cr only" else rng.choice(("\r\n", "\n"))
    data = bytearray((end.join(lines) + end).encode())
    if way == "garbage":
        at = rng.randrange(len(data))
        span = rng.randrange(1, 400)
        data[at:at + span] = bytes(rng.randrange(256) for _ in range(span))
    elif way == "truncate":
        del data[rng.randrange(len(data)):]
    return bytes(data), way


def present_rows(data: bytes) -> int:
    """Data lines of a file: its non-empty lines after the first (the header)."""
    return sum(1 for line in LINES.split(data)[1:] if line.strip(b" \t"))


def judge(path: str) -> dict:
    """The verdict on one file (run in a worker): the file's name says which reader reads it."""
    import numpy as np

    from timelineview.model.memory.csv_files import read_memory_record, read_operator_memory
    from timelineview.model.memory.records import MISSING, MemoryReport, Names

    file = Path(path)
    kind = file.name.split("-", 1)[1]
    report = MemoryReport()
    reader = read_memory_record if kind == "memory_record.csv" else read_operator_memory
    got = reader(file, Names(), report)
    data = file.read_bytes()
    present = present_rows(data)
    counted = report.rows_read + report.dropped_rows
    name = file.name
    if len(got) != report.rows_read:
        return {"name": name, "verdict": "lost", "detail": f"{len(got)} rows kept, {report.rows_read} said read"}
    sizes = [got.size] if kind == "operator_memory.csv" else [got.allocated, got.reserved, got.active]
    negative = any(bool(((s < 0) & (s != MISSING)).any()) for s in sizes)
    if negative and "'-" not in file.with_suffix(".how").read_text():
        low = min(int(np.min(s)) for s in sizes if len(s))
        return {"name": name, "verdict": "wrong value", "detail": f"negative size kept: {low}"}
    if counted == present:
        return {"name": name, "verdict": "kept the count",
                "detail": f"{report.rows_read} read, {report.dropped_rows} dropped"}
    if report.warnings and report.rows_read == 0:
        return {"name": name, "verdict": "refused", "detail": report.warnings[0][:120]}
    return {"name": name, "verdict": "lost", "detail": f"{present} lines, {report.rows_read} read + "
                                                      f"{report.dropped_rows} dropped; {report.warnings[:1]}"}


def run(inputs: int, seed: int, work: Path, timeout: float = TIMEOUT_S) -> list[dict]:
    """Make ``inputs`` mutated memory files under ``work`` and judge each."""
    rng = random.Random(seed)
    bases = {"memory_record.csv": [RECORD_HEADER, *_record_rows(random.Random(3))],
             "operator_memory.csv": [OPERATOR_HEADER, *_operator_rows(random.Random(4))]}
    paths = []
    for i in range(inputs):
        kind = rng.choice(sorted(bases))
        data, how = mutate(bases[kind], rng)
        path = work / f"m{i:04d}-{kind}"
        path.write_bytes(data)
        path.with_suffix(".how").write_text(how)
        paths.append(str(path))
    module = __spec__.name if __spec__ else "tests.model.memory.memory_csv_campaign"
    return judge_in_workers(module, paths, work, [], timeout)


def table(outcomes: list[dict]) -> dict[str, int]:
    counts = collections.Counter(o["verdict"] for o in outcomes)
    return {"inputs": len(outcomes), **{v: counts.get(v, 0) for v in VERDICTS}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help=f"a sample of {QUICK_INPUTS} inputs")
    parser.add_argument("--work", help="working folder (kept; default: a temporary one, removed)")
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        work_through(args.worker[0], args.worker[1], judge)
        return 0
    with tempfile.TemporaryDirectory(prefix="memory-csv-") as tmp:
        work = Path(args.work) if args.work else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        outcomes = run(QUICK_INPUTS if args.quick else args.inputs, args.seed, work)
        for o in outcomes:
            if o["verdict"] in FAILURES:
                how = work / o["name"]
                how = how.with_suffix(".how").read_text() if how.with_suffix(".how").exists() else "?"
                print(f"{o['verdict']:14} {o['name']} [{how}] {o['detail']}")
    counts = table(outcomes)
    print(json.dumps(counts))
    return 1 if any(counts[v] for v in FAILURES) else 0


if __name__ == "__main__":
    os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(tempfile.gettempdir(), "timelineview-numba"))
    sys.exit(main())
