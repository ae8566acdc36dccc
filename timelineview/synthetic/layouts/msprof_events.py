"""Event text of the CANN 8 / torch_npu layout, shaped like the real ``trace_view.json``.

Functions take pre-formatted columns (lists of strings/ints) and return one JSON object text
per event; key order and separators copy the real files. The producers' names in them (categories, args
keys, task types) are the producers' modules' (what the reader reads them by); the real-sample tests check
those against real files.
"""

from __future__ import annotations

from timelineview.producers.cann_tasks import (
    ACL_PREFIX,
    BATCH_ID_ARG,
    CALL_ID_ARG,
    CONNECTION_ID_ARG,
    COPY_DIRECTION_ARG,
    DATA_SIZE_ARG,
    HOST_TO_DEVICE_FLOW,
    HOST_TO_DEVICE_FLOW_NAME,
    ITEM_ID_ARG,
    LEVEL_ARG,
    MEMCPY_ASYNC,
    MODE_ARG,
    MODEL_ID_ARG,
    PCIE_DMA_SQE,
    STREAM_ID_ARG,
    SUBTASK_ID_ARG,
    TASK_ID_ARG,
    TASK_TYPE_ARG,
    THREAD_ID_ARG,
)
from timelineview.producers.hccl import ARG_MODEL_ID, OP_ARG_ALG_TYPE, OP_ARG_COUNT, OP_ARG_DATA_TYPE
from timelineview.producers.torch_npu import (
    FRAMEWORK_OPERATOR,
    FWD_THREAD_ID_ARG,
    LAUNCH_FLOW,
    LAUNCH_FLOW_NAME,
    SEQUENCE_NUMBER_ARG,
)

_NO_ID = 4294967295
MEMCPY_CALL = "aclrtMemcpyAsync"  # the AscendCL call that queues a host-to-device copy


def meta(name: str, pid: int, tid: int, key: str, value: str) -> str:
    return f'{{"name": "{name}", "pid": {pid}, "tid": {tid}, "args": {{"{key}": {value}}}, "ph": "M"}}'


def python_meta(name: str, pid: int, key: str, value: str) -> str:
    """torch_npu writes its own process metadata with ``ph`` first."""
    return f'{{"ph": "M", "name": "{name}", "pid": {pid}, "tid": 0, "args": {{"{key}": {value}}}}}'


def _task_args(task_type: str, sid: int, cid: int, subtask: int) -> str:
    """A hardware task's ``args`` object text, left open for the keys some tasks add."""
    return (f'{{"{MODEL_ID_ARG}": {_NO_ID}, "{TASK_TYPE_ARG}": "{task_type}", "{STREAM_ID_ARG}": {sid}, '
            f'"{TASK_ID_ARG}": {cid % 65000 + 1}, "{BATCH_ID_ARG}": 0, "{SUBTASK_ID_ARG}": {subtask}, '
            f'"{CONNECTION_ID_ARG}": {cid}')


def _call_args(thread: int, mode: str, call: str, cid: int) -> str:
    """A CANN host call's ``args`` object text."""
    return (f'{{"{THREAD_ID_ARG}": {thread}, "{MODE_ARG}": "{mode}", "{LEVEL_ARG}": "acl", "{CALL_ID_ARG}": "{call}", '
            f'"{ITEM_ID_ARG}": "0", "{CONNECTION_ID_ARG}": {cid}}}')


def hw_tasks(pid: int, names: list[str], types: list[str], sid: list[int], ts: list[str],
             dur: list[str], cid: list[int]) -> list[str]:
    """``Ascend Hardware`` stream tasks."""
    return [f'{{"name": "{n}", "pid": {pid}, "tid": {s}, "ts": "{t}", "dur": {d}, '
            f'"args": {_task_args(tt, s, c, _NO_ID)}}}, "ph": "X"}}'
            for n, tt, s, t, d, c in zip(names, types, sid, ts, dur, cid)]


def comm_stream_tasks(pid: int, sid: int, names: list[tuple[str, str]], ts: list[str], dur: list[str],
                      cid: list[int]) -> list[str]:
    """Tasks of the communication operators on their hardware stream (``Subtask Id`` counts)."""
    return [f'{{"name": "{n}", "pid": {pid}, "tid": {sid}, "ts": "{t}", "dur": {d}, '
            f'"args": {_task_args(tt, sid, c, i)}}}, "ph": "X"}}'
            for i, ((n, tt), t, d, c) in enumerate(zip(names, ts, dur, cid))]


def launches(py: int, cann: int, hw: int, host: int, aten: list[str], api: list[str], host_ts: list[str],
             host_dur: list[str], acl_ts: list[str], acl_dur: list[str], dev_ns: list[int], dev_ts: list[str],
             sid: list[int], cid: list[int]) -> list[str]:
    """Per launched task: the ``aten::`` op, the ``AscendCL@`` API, a ``torch_to_npu`` flow (id =
    device start in ns, above 2^53) and a ``HostToDevice`` flow (string id = connection id)."""
    out = []
    for i in range(len(aten)):
        a, c, s, dt = api[i], cid[i], sid[i], dev_ts[i]
        out += [
            f'{{"ph": "X", "name": "{aten[i]}", "pid": {py}, "tid": {host}, "ts": "{host_ts[i]}", '
            f'"dur": {host_dur[i]}, "cat": "{FRAMEWORK_OPERATOR}", "args": {{"{SEQUENCE_NUMBER_ARG}": {i}, '
            f'"{FWD_THREAD_ID_ARG}": 0}}}}',
            f'{{"name": "{ACL_PREFIX}{a}", "pid": {cann}, "tid": {host}, "ts": "{acl_ts[i]}", '
            f'"dur": {acl_dur[i]}, '
            f'"args": {_call_args(host, "ACL_OP", a, c)}, "ph": "X"}}',
            f'{{"ph": "s", "bp": "e", "name": "{LAUNCH_FLOW_NAME}", "id": {dev_ns[i]}, "pid": {py}, '
            f'"tid": {host}, "ts": "{host_ts[i]}", "cat": "{LAUNCH_FLOW}"}}',
            f'{{"ph": "f", "bp": "e", "name": "{LAUNCH_FLOW_NAME}", "id": {dev_ns[i]}, "pid": {hw}, "tid": {s}, '
            f'"ts": "{dt}", "cat": "{LAUNCH_FLOW}"}}',
            *_host_to_device(c, cann, host, acl_ts[i], hw, s, dt),
        ]
    return out


def memcpy(hw: int, cann: int, sid: int, thread: int, ts: str, dur: str, host_ts: str, host_dur: str,
           cid: int, task_type: str = PCIE_DMA_SQE) -> list[str]:
    """The input-batch copy (``PCIE_DMA_SQE``), its ``aclrtMemcpyAsync`` launch and their flow."""
    return [
        f'{{"name": "{MEMCPY_ASYNC}", "pid": {hw}, "tid": {sid}, "ts": "{ts}", "dur": {dur}, '
        f'"args": {_task_args(task_type, sid, cid, _NO_ID)}, '
        f'"{DATA_SIZE_ARG}": 19267584, "{COPY_DIRECTION_ARG}": "host to device"}}, "ph": "X"}}',
        f'{{"name": "{ACL_PREFIX}{MEMCPY_CALL}", "pid": {cann}, "tid": {thread}, "ts": "{host_ts}", '
        f'"dur": {host_dur}, "args": {_call_args(thread, "ACL_RTS", MEMCPY_CALL, cid)}, "ph": "X"}}',
        *_host_to_device(cid, cann, thread, host_ts, hw, sid, ts),
    ]


def _host_to_device(cid: int, cann: int, thread: int, host_ts: str, hw: int, sid: int, ts: str) -> list[str]:
    """The flow from a CANN call (connection id ``cid``) to its device task: start and finish."""
    name, cat = HOST_TO_DEVICE_FLOW_NAME.format(cid), HOST_TO_DEVICE_FLOW
    return [f'{{"name": "{name}", "ph": "s", "cat": "{cat}", "id": "{cid}", "pid": {cann}, '
            f'"tid": {thread}, "ts": "{host_ts}"}}',
            f'{{"name": "{name}", "ph": "f", "id": "{cid}", "ts": "{ts}", "cat": "{cat}", '
            f'"pid": {hw}, "tid": {sid}, "bp": "e"}}']


def hccl_op(name: str, pid: int, tid: int, ts: str, dur: str, cid: int, alg: str, count: int) -> str:
    return (f'{{"name": "{name}", "pid": {pid}, "tid": {tid}, "ts": "{ts}", "dur": {dur}, '
            f'"args": {{"{CONNECTION_ID_ARG}": {cid}, "{ARG_MODEL_ID}": {_NO_ID}, "{OP_ARG_DATA_TYPE}": "FP32", '
            f'"{OP_ARG_ALG_TYPE}": "{alg}", "{OP_ARG_COUNT}": {count}}}, "ph": "X"}}')


def x_plain(name: str, pid: int, tid: int, ts: str, dur: str) -> str:
    """An X event without args (``Overlap Analysis`` lanes)."""
    return f'{{"name": "{name}", "pid": {pid}, "tid": {tid}, "ts": "{ts}", "dur": {dur}, "ph": "X"}}'


def x_args(name: str, pid: int, tid: int, ts: str, dur: str, args: str) -> str:
    return (f'{{"name": "{name}", "pid": {pid}, "tid": {tid}, "ts": "{ts}", "dur": {dur}, '
            f'"args": {args}, "ph": "X"}}')


def counter(name: str, pid: int, ts: str, key: str, value: str) -> str:
    return (f'{{"name": "{name}", "ts": "{ts}", "pid": {pid}, "tid": 0, "args": {{"{key}": {value}}}, '
            f'"ph": "C"}}')


def begin_end(ph: str, name: str, pid: int, tid: int, ts: str) -> str:
    return f'{{"name": "{name}", "ph": "{ph}", "pid": {pid}, "tid": {tid}, "ts": "{ts}"}}'


def instant(name: str, pid: int, tid: int, ts: str) -> str:
    return f'{{"name": "{name}", "ph": "i", "ts": "{ts}", "pid": {pid}, "tid": {tid}, "args": {{}}}}'
