"""Runs of small vector operators that a fusion would remove: on each stream, consecutive compute tasks that all
run on the vector cores and each last at most ``SMALL_TASK_US``, grouped by their sequence of op types. A sequence
that comes back many times (``Mul → Add → Cast`` in every layer) is what a fused operator would replace: one
launch and one pass over memory instead of several.

A run longer than ``MAX_SEQUENCE`` tasks is cut into pieces of that length from its start, so that a long run
counts as the repeated pieces it is made of.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.advisor.task_groups import group_rows, longest_of, stream_order
from timelineview.analysis.advisor.tasks import Tasks
from timelineview.analysis.findings.rules import RULE_BY_NAME
from timelineview.analysis.kernels.dense_ids import distinct_inverse
from timelineview.producers.cann_tasks import VECTOR_TASK_TYPES

_THRESHOLDS = RULE_BY_NAME["fusable_vector_runs"].thresholds
SMALL_TASK_US = float(_THRESHOLDS["small_task_us"])
VECTOR_CORE_TYPES = VECTOR_TASK_TYPES
MIN_SEQUENCE = 2  # a single task is no fusion
MAX_SEQUENCE = 8
MIN_REPEATS = int(_THRESHOLDS["min_repeats"])  # a sequence seen fewer times is not a pattern
TOP_SEQUENCES = 3
NS_PER_US = 1000


@dataclass(frozen=True)
class VectorSequence:
    """One sequence of op types, how many times it ran, the time of its tasks (ns) and its longest occurrences
    (each: positions of its first and last task in ``Tasks``)."""

    op_types: tuple[str, ...]
    count: int
    total_ns: int
    longest: list[tuple[int, int]]


@dataclass(frozen=True)
class VectorRuns:
    """The repeated sequences of a card (most time first) and the time of all of them against all compute."""

    sequences: list[VectorSequence]
    repeated_ns: int
    compute_ns: int

    @property
    def share(self) -> float:
        return self.repeated_ns / self.compute_ns if self.compute_ns else 0.0


def _small_vector(tasks: Tasks) -> np.ndarray:
    """Per task: on the vector cores and short enough to be fused, judged once per distinct core type."""
    kinds = tasks.kinds()
    core_ids = np.unique(kinds.core_type)
    vector_core = np.array([tasks.text(int(c)).strip().upper() in VECTOR_CORE_TYPES for c in core_ids.tolist()])
    vector_kind = vector_core[np.searchsorted(core_ids, kinds.core_type)]
    return vector_kind[kinds.of_task] & (tasks.dur <= SMALL_TASK_US * NS_PER_US)


def _pieces(tasks: Tasks) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the pieces' tasks in stream order, the offset of each piece among them, then the end), each piece a
    run of small vector tasks on one stream cut every ``MAX_SEQUENCE`` tasks."""
    order = stream_order(tasks.lane, tasks.start)
    small = _small_vector(tasks)[order]
    lane = tasks.lane[order]
    after_other = np.concatenate(([True], ~small[:-1] | (lane[1:] != lane[:-1])))
    run_heads = np.flatnonzero(small & after_other)
    rows = np.flatnonzero(small)  # stream-order rows of small vector tasks; a run is a stretch of them
    run_of_row = np.searchsorted(run_heads, rows, side="right") - 1
    in_run = np.arange(len(rows)) - np.searchsorted(rows, run_heads)[run_of_row]
    piece_heads = np.flatnonzero(in_run % MAX_SEQUENCE == 0)
    return order[rows], np.append(piece_heads, len(rows))


def sequence_groups(op_type: np.ndarray, bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the sequence of each piece, the first piece of each sequence) of the pieces ``op_type[bounds[i]:
    bounds[i + 1]]`` (each at most ``MAX_SEQUENCE`` long), sequences numbered in the lexicographic order of their
    op-type ids, a shorter one before its extensions. Each piece's op types are packed into one integer (a few
    bits per op type, most significant first) when they fit in 63 bits, so that a sequence is one value."""
    n_pieces = len(bounds) - 1
    if not n_pieces:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    _, code = distinct_inverse(op_type)
    code = code + 1  # 0: no task at this position of a shorter piece
    piece = np.repeat(np.arange(n_pieces), np.diff(bounds))
    position = np.arange(len(op_type)) - bounds[piece]
    bits = int(code.max()).bit_length() if len(code) else 1
    if bits * MAX_SEQUENCE <= 63:
        shifted = code.astype(np.int64) << (bits * (MAX_SEQUENCE - 1 - position))
        key = np.zeros(n_pieces, np.int64)
        np.add.at(key, piece, shifted)
        return group_rows(key)
    matrix = np.zeros((n_pieces, MAX_SEQUENCE), np.int64)  # too many op types to pack: one column per position
    matrix[piece, position] = code
    return group_rows(*matrix.T)


def vector_runs(tasks: Tasks, longest: int) -> VectorRuns:
    """The repeated sequences of small vector operators of a card."""
    compute_ns = int(tasks.dur.sum())
    if not len(tasks):
        return VectorRuns([], 0, compute_ns)
    task_of_row, bounds = _pieces(tasks)
    lengths = np.diff(bounds)
    kept = np.flatnonzero(lengths >= MIN_SEQUENCE)
    if not len(kept):
        return VectorRuns([], 0, compute_ns)
    rows = np.flatnonzero(np.repeat(lengths >= MIN_SEQUENCE, lengths))  # the kept pieces' rows
    kept_bounds = np.append(0, np.cumsum(lengths[kept]))
    which, first_of = sequence_groups(tasks.op_type[task_of_row[rows]], kept_bounds)
    piece_ns = np.add.reduceat(tasks.dur[task_of_row[rows]], kept_bounds[:-1])
    counts = np.bincount(which, minlength=len(first_of))
    totals = np.bincount(which, weights=piece_ns, minlength=len(first_of))
    repeated = np.flatnonzero(counts >= MIN_REPEATS)
    first_task = task_of_row[bounds[kept]]
    last_task = task_of_row[bounds[kept + 1] - 1]
    out = []
    for k in repeated[np.argsort(-totals[repeated], kind="stable")][:TOP_SEQUENCES].tolist():
        mine = np.flatnonzero(which == k)
        spans = tasks.end[last_task[mine]] - tasks.start[first_task[mine]]
        best = mine[longest_of(spans, longest)]
        head = int(first_of[k])
        names = tuple(tasks.text(int(t)) for t in tasks.op_type[task_of_row[rows[kept_bounds[head]:
                                                                                   kept_bounds[head + 1]]]])
        out.append(VectorSequence(names, int(counts[k]), int(totals[k]),
                                  [(int(first_task[p]), int(last_task[p])) for p in best.tolist()]))
    return VectorRuns(out, int(totals[repeated].sum()), compute_ns)
