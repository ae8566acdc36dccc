"""Formatting of communication operators and their link tasks, shared by the msprof layouts."""

from __future__ import annotations

import numpy as np

from timelineview.producers import hccl as hccl_names
from timelineview.producers.hccl import (
    ARG_BANDWIDTH,
    ARG_CONTEXT_ID,
    ARG_DATA_TYPE,
    ARG_DST_RANK,
    ARG_DURATION_ESTIMATED,
    ARG_LINK_TYPE,
    ARG_MODEL_ID,
    ARG_NOTIFY_ID,
    ARG_SIZE,
    ARG_SRC_RANK,
    ARG_STREAM_ID,
    ARG_TASK_ID,
    ARG_TASK_TYPE,
    ARG_TRANSPORT,
)
from timelineview.synthetic.comm.planes import PL_DATA, PL_LOCAL
from timelineview.synthetic.layouts.common import CommTasks, is_p2p
from timelineview.synthetic.textfmt import us_num
from timelineview.synthetic.workload import KIND_ALLGATHER, KIND_RECEIVE, KIND_SEND, StepWork

DP_GROUP, PP_GROUP = 271, 272
_HCOM = {KIND_RECEIVE: "receive", KIND_SEND: "send", KIND_ALLGATHER: "allGather"}
_COUNT = {KIND_RECEIVE: 1048576, KIND_SEND: 1048576, KIND_ALLGATHER: 2097152}


def hcom_name(kind: int, seq: int) -> str:
    """torch_npu operator name, e.g. ``hcom_allReduce__271_0_1`` (same on every card)."""
    group = PP_GROUP if is_p2p(kind) else DP_GROUP
    return f"{hccl_names.OPERATOR_PREFIX}{_HCOM.get(kind, 'allReduce')}__{group}_{seq}_1"


def op_count(kind: int) -> int:
    return _COUNT.get(kind, 4097000)


def plane_task_names(step: StepWork, ct: CommTasks) -> list[str]:
    """``Notify_Record`` / ``Notify_Wait`` / ``Reduce_Inline`` / ``Memcpy`` (see ``planes``)."""
    return list(ct.pl_name)


def plane_args(ct: CommTasks, names: list[str], rank: int, n_cards: int, stream: int,
               task_base: int, model_id: bool) -> list[str]:
    """The ``args`` object text of each plane task, shaped like the real HCCL lanes: ``bandwidth(GB/s)``
    is the task's own size over its duration, as the producer writes it."""
    out = []
    tail = f', "{ARG_MODEL_ID}": 4294967295' if model_id else ""
    est = us_num(np.maximum(ct.pl_dur // 2, 20))
    size, dur = ct.pl_size.tolist(), ct.pl_dur.tolist()
    for i, (name, plane, kind, op) in enumerate(zip(names, ct.pl_plane.tolist(), ct.pl_kind.tolist(),
                                                    ct.pl_op.tolist())):
        data = kind in (PL_DATA, PL_LOCAL)
        notify = "18446744073709551615" if data else str(4294967296 * (plane + 1) + 60 + op)
        bw = size[i] / dur[i] if data and dur[i] else 0.0
        out.append(
            f'{{"{ARG_NOTIFY_ID}": "{notify}", "{ARG_DURATION_ESTIMATED}": {est[i]}, "{ARG_STREAM_ID}": {stream}, '
            f'"{ARG_TASK_ID}": {task_base + op}, "{ARG_CONTEXT_ID}": {i}, "{ARG_TASK_TYPE}": "{name}", '
            f'"{ARG_SRC_RANK}": {rank}, "{ARG_DST_RANK}": {int(ct.pl_dst[i])}, '
            f'"{ARG_TRANSPORT}": "{ct.pl_transport[i]}", "{ARG_SIZE}": {size[i]}, '
            f'"{ARG_DATA_TYPE}": "{"FP32" if data else "INVALID_TYPE"}", "{ARG_LINK_TYPE}": "{ct.pl_link_type[i]}", '
            f'"{ARG_BANDWIDTH}": {bw!r}{tail}}}'
        )
    return out
