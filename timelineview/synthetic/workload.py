"""One training step of one card: draw the local work, then place it on the true clock.

``draw_step`` depends only on (seed, rank, step), so a card can be drawn twice: once to
build the cluster schedule (when each collective ends) and once to write the file.
Times here are true nanoseconds, before any layout time base or clock offset.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.synthetic.names import OTHER_TASKS, POOL
from timelineview.synthetic.spec import CardSpec

# Communication operators of a step, in launch order.
KIND_RECEIVE, KIND_SEND, KIND_BUCKET, KIND_TAIL, KIND_ALLGATHER = range(5)
_BUCKET_FRACTIONS = (0.45, 0.7, 0.9)  # backward progress at which a gradient bucket is ready
_FORWARD_SHARE = 0.4
_OTHER_MEAN_NS = np.array([o[4] * 1000.0 for o in OTHER_TASKS])


def comm_kinds(pipeline: bool) -> list[int]:
    """Kinds of the communication operators of every step (identical on all cards)."""
    head = [KIND_RECEIVE, KIND_SEND] if pipeline else []
    return head + [KIND_BUCKET] * len(_BUCKET_FRACTIONS) + [KIND_TAIL, KIND_ALLGATHER]


@dataclass
class StepLocal:
    """A step's work relative to its own origins, before cross-card synchronisation."""

    wait: int  # data-wait length (ns)
    rel_start: np.ndarray  # int64, stream items relative to the compute origin T0
    dur: np.ndarray  # int64
    stream: np.ndarray  # int8 index into the card's compute streams
    other: np.ndarray  # bool: a non-compute chore (EVENT_RECORD, Notify Wait, ...)
    kind: np.ndarray  # int32: POOL id for compute items, OTHER_TASKS id for chores
    forward: np.ndarray  # bool
    ready: list[int]  # per communication op: when it may start (ns, from T0; receive: from S)
    memcpy_dur: int  # input batch host-to-device copy during the data wait (0: none)
    launch: np.ndarray  # bool: compute items with a host launch (flows)
    launch_lead: int  # how far the host runs ahead of the device (ns)
    host_dur: np.ndarray  # int64 per item, host launch duration
    duplicate: np.ndarray  # bool: item written twice when the card has duplicates


def draw_step(spec: CardSpec, step: int) -> StepLocal:
    """Draw the compute and chores of ``step`` (1-based) for ``spec``; deterministic.

    The operator sequence (kinds, streams, sizes) depends on (seed, step) only, so every rank
    of a cluster runs the same graph; timing jitter, idle gaps and the data wait depend on the
    rank too.
    """
    graph = np.random.default_rng([spec.seed, step, 11])
    rng = np.random.default_rng([spec.seed, spec.rank, step, 12])
    n = spec.tasks_per_step
    n_other = max(1, n // 8)
    total = n + n_other
    if spec.streams == 1:
        stream = np.zeros(total, np.int8)
    else:
        probs = [0.7] + [0.3 / (spec.streams - 1)] * (spec.streams - 1)
        stream = graph.choice(spec.streams, total, p=probs).astype(np.int8)
    other = np.zeros(total, bool)
    other[graph.choice(total, n_other, replace=False)] = True
    forward = np.arange(total) < int(total * _FORWARD_SHARE)

    kind = POOL.sample(graph, forward)
    # AI CPU kernels only on the primary stream: MindSpore puts all AI CPU ops on one lane.
    kind = np.where(stream > 0, POOL.not_aicpu[kind], kind)
    chore = graph.integers(len(OTHER_TASKS), size=total)
    kind = np.where(other, chore, kind).astype(np.int32)

    mean = np.where(other, _OTHER_MEAN_NS[chore], POOL.mean_ns[np.where(other, 0, kind)])
    size = graph.lognormal(0.0, 0.25, total)  # this op instance's shapes
    scale = np.where(other, 1.0, spec.compute_scale)
    if spec.slow_op_types:  # a card slow in some op types only: the excess the operators must explain
        slowed = ~other & np.isin(np.asarray(POOL.base)[np.where(other, 0, kind)], spec.slow_op_types)
        scale = np.where(slowed, scale * spec.slow_op_factor, scale)
    dur = np.maximum(mean * size * scale * rng.lognormal(0.0, 0.05, total), 20.0).astype(np.int64)
    gap = rng.exponential(1500.0, total) + (rng.random(total) < 0.02) * rng.uniform(2e4, 1e5, total)
    gap = gap.astype(np.int64) + 10

    rel_start = _chain(stream, dur, gap, spec.streams)
    ready, _ = _ready_points(rel_start, dur, stream, other, forward, spec.pipeline)
    wait = max(int(spec.data_wait_us * 1000.0 * rng.uniform(0.9, 1.1)), 1000)
    memcpy = min(wait // 3, 800_000) if wait > 30_000 else 0

    launch = ~other & (graph.random(total) < 0.3)
    return StepLocal(
        wait=wait, rel_start=rel_start, dur=dur, stream=stream, other=other, kind=kind, forward=forward,
        ready=ready, memcpy_dur=memcpy, launch=launch,
        launch_lead=int(rng.uniform(30_000, 120_000)),
        host_dur=rng.uniform(3_000, 25_000, total).astype(np.int64),
        duplicate=~other & (graph.random(total) < (0.01 if spec.with_duplicates else 0.0)),
    )


def _chain(stream: np.ndarray, dur: np.ndarray, gap: np.ndarray, streams: int) -> np.ndarray:
    """Back-to-back items per stream (gap before each); secondary streams spread over the primary."""
    rel = np.zeros(len(dur), np.int64)
    primary_end = 0
    for s in range(streams):
        m = stream == s
        if not m.any():
            continue
        d, g = dur[m], gap[m].astype(np.float64)
        if s > 0 and primary_end:
            room = 0.95 * primary_end - d.sum()
            if room > g.sum():
                g = g * (room / g.sum())
        g = g.astype(np.int64)
        starts = np.cumsum(g) + np.concatenate(([0], np.cumsum(d)[:-1]))
        rel[m] = starts
        if s == 0:
            primary_end = int(starts[-1] + d[-1])
    return rel


def _ready_points(rel, dur, stream, other, forward, pipeline) -> tuple[list[int], int]:
    compute = ~other
    end = rel + dur
    bp = int(end[compute].max())
    fwd_end = int(end[compute & forward].max()) if (compute & forward).any() else bp
    back = np.flatnonzero(compute & ~forward & (stream == 0))
    back = back[np.argsort(rel[back], kind="stable")]
    buckets = [int(end[back[int(f * (len(back) - 1))]]) if len(back) else bp for f in _BUCKET_FRACTIONS]
    head = [0, fwd_end] if pipeline else []  # receive is placed from S, see schedule
    return head + buckets + [bp, bp], bp


@dataclass
class StepWork:
    """A step placed on the true clock (ns), ready for a layout to write."""

    index: int  # 1-based step number
    start: int  # S: previous step's end
    end: int  # E
    fp: int  # first compute task start
    bp: int  # last compute task end
    item_start: np.ndarray  # int64
    item_dur: np.ndarray
    stream: np.ndarray  # int8
    other: np.ndarray
    kind: np.ndarray
    forward: np.ndarray
    duplicate: np.ndarray
    op_kind: list[int]
    op_seq: list[int]  # per-card running number of the operator (same on every card)
    op_start: np.ndarray  # int64
    op_end: np.ndarray
    op_xfer: np.ndarray  # transfer part at the end of each operator (the rest is waiting)
    memcpy_start: int  # -1: no input copy
    memcpy_dur: int
    launch_idx: np.ndarray  # items launched from the host, in device start order
    host_start: np.ndarray
    host_dur: np.ndarray
    op_peer: np.ndarray | None = None  # per operator, a send's or receive's peer rank (None: the default peers)
    op_extra: np.ndarray | None = None  # per operator, the part of its transfer the planted slow link added


def place_step(local: StepLocal, index: int, start: int, end: int, t0: int, op_start: np.ndarray,
               op_end: np.ndarray, op_xfer: np.ndarray, op_kind: list[int], op_seq: list[int],
               op_peer: np.ndarray | None = None, item_shift: np.ndarray | None = None,
               op_extra: np.ndarray | None = None) -> StepWork:
    """Put a drawn step at compute origin ``t0`` with the operator times from the schedule; ``op_seq``:
    the operators' running numbers (the same on every card that runs them); ``op_peer``: each send's and
    receive's peer rank; ``item_shift``: how much later than ``t0`` each drawn item goes (a 1F1B stage's
    microbatch chunks each start where the schedule puts them); ``op_extra``: the part of each operator's
    transfer the planted slow link added."""
    s = local.rel_start + t0 + (item_shift if item_shift is not None else 0)
    keep = ~local.other | (s + local.dur < int(op_start[-1]))  # chores never outlive the step
    s, d = s[keep], local.dur[keep]
    other, kind, stream = local.other[keep], local.kind[keep], local.stream[keep]
    compute = ~other
    fp, bp = int(s[compute].min()), int((s + d)[compute].max())
    memcpy_start = start + local.wait - local.memcpy_dur - 2000 if local.memcpy_dur else -1
    idx, hs, hd = _host_launches(s, local.launch[keep], local.launch_lead, local.host_dur[keep], start)
    return StepWork(
        index=index, start=start, end=end, fp=fp, bp=bp, item_start=s, item_dur=d, stream=stream,
        other=other, kind=kind, forward=local.forward[keep], duplicate=local.duplicate[keep],
        op_kind=op_kind, op_seq=list(op_seq),
        op_start=op_start, op_end=op_end, op_xfer=op_xfer,
        memcpy_start=memcpy_start, memcpy_dur=local.memcpy_dur,
        launch_idx=idx, host_start=hs, host_dur=hd, op_peer=op_peer, op_extra=op_extra,
    )


def _host_launches(dev_start, launch, lead, host_dur, step_start):
    """Host launch windows: one host thread, strictly before the device task, never overlapping."""
    idx = np.flatnonzero(launch)
    idx = idx[np.argsort(dev_start[idx], kind="stable")]
    ds = dev_start[idx]
    first = np.ones(len(idx), bool)
    first[1:] = ds[1:] != ds[:-1]  # flow ids are device start times: keep them unique
    idx, ds = idx[first], ds[first]
    h = np.maximum(ds - lead, step_start + 1000)
    i = np.arange(len(h))
    h = np.maximum.accumulate(h - i) + i  # strictly increasing, moved only where times tie
    nxt = np.concatenate((h[1:], [np.iinfo(np.int64).max]))
    d = np.minimum(host_dur[idx], nxt - h - 1)
    ok = (d >= 8) & (h + d <= ds)
    return idx[ok], h[ok], d[ok]
