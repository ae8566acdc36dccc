"""Pieces shared by the layouts: the writer base class, link-level communication tasks and
the optional extra lanes (partially overlapping slices, B/E pairs, instants)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.producers.cann_tasks import ACL_PREFIX
from timelineview.synthetic.comm.planes import plane_rows
from timelineview.synthetic.spec import CardSpec, WriteOptions
from timelineview.synthetic.truth_builder import TruthBuilder
from timelineview.synthetic.workload import KIND_RECEIVE, KIND_SEND, StepWork
from timelineview.synthetic.writer import Sink

CHUNK = 100_000  # events formatted and written at a time within a step (bounds memory)

# Tasks of one operator on the hardware communication stream, in the order they run.
HW_WAIT, HW_DATA, HW_RECORD = range(3)


class CardWriter:
    """Base of a layout: ``begin`` once, ``write_step`` per step, then ``finish``."""

    layout = ""

    def __init__(self, spec: CardSpec, opts: WriteOptions, sink: Sink, truth: TruthBuilder,
                 relpath: str, n_cards: int) -> None:
        self.spec, self.opts, self.sink, self.truth = spec, opts, sink, truth
        self.relpath, self.n_cards = relpath, n_cards
        self.shift = 0  # file time = true time + shift

    def begin(self, first: StepWork) -> None:
        raise NotImplementedError

    def write_step(self, step: StepWork, last: bool) -> None:
        raise NotImplementedError

    def finish(self) -> dict:
        """Close outputs; return GroundTruth metadata (paths, time base, offset, step source)."""
        raise NotImplementedError


def chunks(n: int):
    """Slices of ``range(n)`` of at most ``CHUNK`` items."""
    for a in range(0, n, CHUNK):
        yield slice(a, min(n, a + CHUNK))


def is_p2p(kind: int) -> bool:
    return kind in (KIND_RECEIVE, KIND_SEND)


@dataclass
class CommTasks:
    """Link-level tasks inside each operator window (all times true ns)."""

    hw_start: np.ndarray  # tasks on the hardware communication stream
    hw_dur: np.ndarray
    hw_kind: np.ndarray  # HW_*
    hw_op: np.ndarray  # operator index within the step
    pl_start: np.ndarray  # tasks on the HCCL plane threads (``planes.PlaneRows`` as arrays)
    pl_dur: np.ndarray
    pl_plane: np.ndarray
    pl_kind: np.ndarray  # planes.PL_*
    pl_op: np.ndarray
    pl_name: list[str]
    pl_src: np.ndarray
    pl_dst: np.ndarray
    pl_transport: list[str]
    pl_link_type: list[str]
    pl_size: np.ndarray


def comm_tasks(step: StepWork, spec: CardSpec, n_cards: int) -> CommTasks:
    """Wait, then transfer: tasks never overlap on a stream or plane and stay inside their op."""
    hw: list[tuple[int, int, int, int]] = []
    for j in range(len(step.op_kind)):
        a, b, x = int(step.op_start[j]), int(step.op_end[j]), int(step.op_xfer[j])
        wait_end = max(b - x, a)
        hw.append((a, max(wait_end - a, 20), HW_WAIT, j))
        lo, hi = max(wait_end, a + 20) + 100, b - 1000
        for c in range(3):
            s = lo + (hi - lo) * c // 3
            e = lo + (hi - lo) * (c + 1) // 3 - 50
            hw.append((s, e - s, HW_DATA, j))
        hw.append((b - 900, 700, HW_RECORD, j))
    h = np.array(hw, np.int64).reshape(-1, 4)
    q = plane_rows(step, spec, n_cards)
    i64 = np.int64
    return CommTasks(h[:, 0], h[:, 1], h[:, 2], h[:, 3], np.array(q.start, i64), np.array(q.dur, i64),
                     np.array(q.plane, i64), np.array(q.kind, i64), np.array(q.op, i64), q.name,
                     np.array(q.src, i64), np.array(q.dst, i64), q.transport, q.link_type, np.array(q.size, i64))


def overlapping_host(step: StepWork) -> tuple[np.ndarray, np.ndarray]:
    """Four slices per step, each overlapping the next without nesting."""
    span = step.bp - step.fp
    starts = step.fp + np.arange(1, 5, dtype=np.int64) * span // 6
    return starts, np.full(4, span // 4, np.int64)


# AscendCL calls on the host that overlap device work
OVERLAP_NAMES = [ACL_PREFIX + call for call in ("aclrtSynchronizeStream", "aclrtMemcpyAsync", "aclrtLaunchCallback",
                                                 "aclrtSynchronizeEvent")]
BE_NAMES = ["forward_backward", "loss_scale_update", "optimizer_step"]
INSTANT_NAMES = ["gc_collect", "loss_scale_check"]


def be_pairs(step: StepWork, last: bool) -> tuple[list[tuple[int, int, str]], tuple[int, str] | None]:
    """An outer pair with one nested pair per step; on the last step one ``B`` stays open."""
    span = step.bp - step.fp
    pairs = [(step.fp, step.fp + span // 2, BE_NAMES[0]),
             (step.fp + span // 8, step.fp + span // 4, BE_NAMES[1])]
    return pairs, ((step.fp + 3 * span // 4, BE_NAMES[2]) if last else None)


def instants(step: StepWork) -> list[tuple[int, str]]:
    return [(step.fp + (step.bp - step.fp) // 3, INSTANT_NAMES[0]), (step.bp, INSTANT_NAMES[1])]
