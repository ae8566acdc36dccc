"""msprof ``Step Trace`` events: ``Iteration N``, ``FP_BP Time N``, ``Iteration Refresh N``,
``Reduce_N_i`` and the ``Data_aug Bound`` s/t flow (docs/trace-format.md §3.2, §3.4)."""

from __future__ import annotations

from collections.abc import Callable

from timelineview.producers.msprof import (
    BP_END_ARG,
    FP_BP_CATEGORY,
    FP_BP_EVENT,
    FP_START_ARG,
    ITERATION_CATEGORY,
    ITERATION_EVENT,
    ITERATION_ID_ARG,
    REFRESH_CATEGORY,
    REFRESH_EVENT,
)
from timelineview.synthetic.layouts.common import is_p2p
from timelineview.synthetic.textfmt import us_num1
from timelineview.synthetic.workload import KIND_ALLGATHER, StepWork

Row = tuple[str, int, int]  # (name, start ns, dur ns) in file time


def step_trace(st: StepWork, shift: int, pid: int, tid: int, ts_token: Callable[[int], str]
               ) -> tuple[list[str], list[Row]]:
    """Event lines (X rows then the s/t flow) and the X rows for the ground truth.

    ``ts_token`` renders a file-time ns as the ``ts`` JSON token (quoted string or number).
    The args carry microseconds as plain numbers, like the real files.
    """
    k = st.index
    S, E, fp, bp = st.start + shift, st.end + shift, st.fp + shift, st.bp + shift
    uE, uf, ub = (us_num1(x) for x in (E, fp, bp))
    it, fp_arg, bp_arg = f'"{ITERATION_ID_ARG}": {k}', f'"{FP_START_ARG}": {uf}', f'"{BP_END_ARG}": {ub}'
    rows = [
        (ITERATION_EVENT.format(k), S, E - S, ITERATION_CATEGORY,
         f'{it}, {fp_arg}, {bp_arg}, "Iteration End": {uE}, "Iteration Time(ns)": {float(E - S)}'),
        (FP_BP_EVENT.format(k), fp, bp - fp, FP_BP_CATEGORY,
         f'{it}, {fp_arg}, {bp_arg}, "FP_BP Time(ns)": {float(bp - fp)}'),
        (REFRESH_EVENT.format(k), bp, E - bp, REFRESH_CATEGORY,
         f'{it}, {bp_arg}, "Iteration End": {uE}, "Iteration Refresh(ns)": {float(E - bp)}'),
    ]
    r = 0
    for j, kind in enumerate(st.op_kind):
        if is_p2p(kind) or kind == KIND_ALLGATHER:
            continue
        a, b = int(st.op_start[j]) + shift, int(st.op_end[j]) + shift
        rows.append((f"Reduce_{k}_{r}", a, b - a, "Reduce",
                     f'{it}, "Reduce Start {r}": {us_num1(a)}, '
                     f'"Reduce End {r}": {us_num1(b)}'))
        r += 1
    lines = [f'{{"name": "{n}", "pid": {pid}, "tid": {tid}, "ts": {ts_token(a)}, "dur": {us_num1(d)}, '
             f'"args": {{{args}}}, "cat": "{cat}", "ph": "X"}}' for n, a, d, cat, args in rows]
    n = f"Data_aug Bound {k}"
    lines.append(f'{{"name": "{n}", "cat": "Data_aug Bound", "ph": "s", "ts": {ts_token(E)}, "pid": {pid}, '
                 f'"tid": {tid}, "id": "{n}", "args": {{{it}}}}}')
    lines.append(f'{{"name": "{n}", "cat": "Data_aug Bound", "ph": "t", "ts": {ts_token(E)}, "pid": {pid}, '
                 f'"tid": {tid}, "id": "{n}", "args": {{"Data_aug Bound(us)": 0}}}}')
    return lines, [(n_, a, d) for n_, a, d, _, _ in rows]
