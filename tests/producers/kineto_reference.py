"""An answer key for Kineto traces, computed from the file with plain ``json`` and an interval union:
nothing of the package is used, so it checks the package rather than repeating it."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from tests.synthetic.tracecheck import py_union

NCCL_PREFIXES = ("ncclkernel", "nccldevkernel", "void ncclkernel", "void nccldevkernel")


def read_trace(path: Path) -> dict:
    """The whole JSON document, numbers with a fraction as exact decimals."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=Decimal)


def ns(value) -> int:
    """A Kineto time in µs (int or decimal) as integer ns, rounded half to even."""
    return int((Decimal(value) * 1000).to_integral_value())


union_ns = py_union  # the union of half-open intervals as disjoint sorted ones: the tests' plain-Python reference


def total(intervals: list[tuple[int, int]]) -> int:
    return sum(e - s for s, e in intervals)


def clipped(intervals: list[tuple[int, int]], lo: int, hi: int) -> int:
    return sum(max(0, min(e, hi) - max(s, lo)) for s, e in intervals)


@dataclass
class KinetoKey:
    """What the trace holds by its own categories."""

    rank: int | None
    compute: list[tuple[int, int]]  # union of non-NCCL kernels (ns)
    communication: list[tuple[int, int]]  # union of NCCL kernels (ns)
    kernels: int
    nccl_kernels: int
    copies: int
    steps: dict[int, tuple[int, int]]  # ProfilerStep number -> CPU-side window (ns)

    @property
    def compute_us(self) -> float:
        return total(self.compute) / 1000

    @property
    def communication_us(self) -> float:
        return total(self.communication) / 1000


def answer_key(path: Path) -> KinetoKey:
    doc = read_trace(path)
    events = doc["traceEvents"]
    info = doc.get("distributedInfo") or {}
    compute, comm, steps = [], [], {}
    kernels = nccl = copies = 0
    for e in events:
        if e.get("ph") != "X":
            continue
        cat, name = e.get("cat"), str(e.get("name", ""))
        start = ns(e["ts"])
        end = start + ns(e.get("dur", 0))
        if cat == "kernel":
            kernels += 1
            if name.lower().startswith(NCCL_PREFIXES):
                nccl += 1
                comm.append((start, end))
            else:
                compute.append((start, end))
        elif cat in ("gpu_memcpy", "gpu_memset"):
            copies += 1
        elif cat == "user_annotation" and name.startswith("ProfilerStep#"):
            number = int(name.split("#", 1)[1])
            if number not in steps or start < steps[number][0]:
                steps[number] = (start, end)
    return KinetoKey(info.get("rank"), union_ns(compute), union_ns(comm), kernels, nccl, copies, steps)
