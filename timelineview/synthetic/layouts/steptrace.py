"""msprof ``Step Trace`` events: ``Iteration N``, ``FP_BP Time N``, ``Iteration Refresh N``,
``Reduce_N_i`` and the ``Data_aug Bound`` s/t flow (docs/trace-format.md §3.2, §3.4)."""

from __future__ import annotations

from collections.abc import Callable

from timelineview.producers.msprof import (
    BP_END_ARG,
    DATA_AUG_CATEGORY,
    DATA_AUG_FLOW,
    DURATION_NS_ARG,
    DURATION_US_ARG,
    FP_BP_CATEGORY,
    FP_BP_EVENT,
    FP_START_ARG,
    ITERATION_CATEGORY,
    ITERATION_END_ARG,
    ITERATION_EVENT,
    ITERATION_ID_ARG,
    REDUCE_CATEGORY,
    REDUCE_END_ARG,
    REDUCE_EVENT,
    REDUCE_START_ARG,
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
    end_arg = f'"{ITERATION_END_ARG}": {uE}'

    def length(category: str, ns: int) -> str:
        return f'"{DURATION_NS_ARG.format(category)}": {float(ns)}'

    rows = [
        (ITERATION_EVENT.format(k), S, E - S, ITERATION_CATEGORY,
         f'{it}, {fp_arg}, {bp_arg}, {end_arg}, {length(ITERATION_CATEGORY, E - S)}'),
        (FP_BP_EVENT.format(k), fp, bp - fp, FP_BP_CATEGORY,
         f'{it}, {fp_arg}, {bp_arg}, {length(FP_BP_CATEGORY, bp - fp)}'),
        (REFRESH_EVENT.format(k), bp, E - bp, REFRESH_CATEGORY,
         f'{it}, {bp_arg}, {end_arg}, {length(REFRESH_CATEGORY, E - bp)}'),
    ]
    r = 0
    for j, kind in enumerate(st.op_kind):
        if is_p2p(kind) or kind == KIND_ALLGATHER:
            continue
        a, b = int(st.op_start[j]) + shift, int(st.op_end[j]) + shift
        rows.append((REDUCE_EVENT.format(k, r), a, b - a, REDUCE_CATEGORY,
                     f'{it}, "{REDUCE_START_ARG.format(r)}": {us_num1(a)}, "{REDUCE_END_ARG.format(r)}": {us_num1(b)}'))
        r += 1
    lines = [f'{{"name": "{n}", "pid": {pid}, "tid": {tid}, "ts": {ts_token(a)}, "dur": {us_num1(d)}, '
             f'"args": {{{args}}}, "cat": "{cat}", "ph": "X"}}' for n, a, d, cat, args in rows]
    n, cat = DATA_AUG_FLOW.format(k), DATA_AUG_CATEGORY
    lines.append(f'{{"name": "{n}", "cat": "{cat}", "ph": "s", "ts": {ts_token(E)}, "pid": {pid}, '
                 f'"tid": {tid}, "id": "{n}", "args": {{{it}}}}}')
    lines.append(f'{{"name": "{n}", "cat": "{cat}", "ph": "t", "ts": {ts_token(E)}, "pid": {pid}, '
                 f'"tid": {tid}, "id": "{n}", "args": {{"{DURATION_US_ARG.format(cat)}": 0}}}}')
    return lines, [(n_, a, d) for n_, a, d, _, _ in rows]
