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

_THRESHOLDS = RULE_BY_NAME["fusable_vector_runs"].thresholds
SMALL_TASK_US = float(_THRESHOLDS["small_task_us"])
VECTOR_CORE_TYPES = ("AI_VECTOR_CORE", "AIV")
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


def _pieces(tasks: Tasks) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tasks in stream order, the piece of each (-1: not in a run), its position in its piece)."""
    order = stream_order(tasks.lane, tasks.start)
    core_ids = np.unique(tasks.core_type)
    vector_id = np.array([tasks.text(int(c)).strip().upper() in VECTOR_CORE_TYPES for c in core_ids.tolist()])
    vector = vector_id[np.searchsorted(core_ids, tasks.core_type)]
    small = (vector & (tasks.dur <= SMALL_TASK_US * NS_PER_US))[order]
    lane = tasks.lane[order]
    after_other = np.concatenate(([True], ~small[:-1] | (lane[1:] != lane[:-1])))
    new_run = small & after_other
    run = np.cumsum(new_run) - 1
    first = np.flatnonzero(new_run)
    in_run = np.arange(len(order)) - first[np.maximum(run, 0)] if len(first) else np.zeros(len(order), np.int64)
    new_piece = small & (in_run % MAX_SEQUENCE == 0)
    piece = np.where(small, np.cumsum(new_piece) - 1, -1)
    return order, piece, in_run % MAX_SEQUENCE


def vector_runs(tasks: Tasks, longest: int) -> VectorRuns:
    """The repeated sequences of small vector operators of a card."""
    compute_ns = int(tasks.dur.sum())
    if not len(tasks):
        return VectorRuns([], 0, compute_ns)
    order, piece, position = _pieces(tasks)
    inside = piece >= 0
    n_pieces = int(piece.max()) + 1 if inside.any() else 0
    length = np.bincount(piece[inside], minlength=n_pieces)
    matrix = np.full((n_pieces, MAX_SEQUENCE), -2, np.int64)
    matrix[piece[inside], position[inside]] = tasks.op_type[order[inside]]
    kept = np.flatnonzero(length >= MIN_SEQUENCE)
    if not len(kept):
        return VectorRuns([], 0, compute_ns)
    which, first_of = group_rows(*matrix[kept].T)
    seqs = matrix[kept][first_of]
    piece_ns = np.bincount(piece[inside], weights=tasks.dur[order[inside]], minlength=n_pieces)[kept]
    counts = np.bincount(which, minlength=len(seqs))
    totals = np.bincount(which, weights=piece_ns, minlength=len(seqs))
    repeated = np.flatnonzero(counts >= MIN_REPEATS)
    rows = np.flatnonzero(inside)  # stream-order rows of the pieces' tasks
    heads = rows[position[rows] == 0]
    first_task = np.zeros(n_pieces, np.int64)
    first_task[piece[heads]] = order[heads]
    last_row = np.zeros(n_pieces, np.int64)
    np.maximum.at(last_row, piece[rows], rows)
    last_task = order[last_row]
    out = []
    for k in repeated[np.argsort(-totals[repeated], kind="stable")][:TOP_SEQUENCES].tolist():
        mine = kept[which == k]
        spans = tasks.end[last_task[mine]] - tasks.start[first_task[mine]]
        best = mine[longest_of(spans, longest)]
        names = tuple(tasks.text(int(t)) for t in seqs[k] if t != -2)
        out.append(VectorSequence(names, int(counts[k]), int(totals[k]),
                                  [(int(first_task[p]), int(last_task[p])) for p in best.tolist()]))
    return VectorRuns(out, int(totals[repeated].sum()), compute_ns)
