"""Event text of the CANN 8 / torch_npu layout, shaped like the real ``trace_view.json``.

Functions take pre-formatted columns (lists of strings/ints) and return one JSON object text
per event; key order and separators copy the real files. The producers' names in them (categories, args
keys, task types) are the producers' modules' (what the reader reads them by); the real-sample tests check
those against real files.
"""

from __future__ import annotations

from timelineview.producers.cann_tasks import (
    ACL_PREFIX,
    HOST_TO_DEVICE_FLOW,
    HOST_TO_DEVICE_FLOW_NAME,
    MEMCPY_ASYNC,
    PCIE_DMA_SQE,
    TASK_TYPE_ARG,
)
from timelineview.producers.torch_npu import FRAMEWORK_OPERATOR, LAUNCH_FLOW, LAUNCH_FLOW_NAME

_NO_ID = 4294967295
MEMCPY_CALL = "aclrtMemcpyAsync"  # the AscendCL call that queues a host-to-device copy


def meta(name: str, pid: int, tid: int, key: str, value: str) -> str:
    return f'{{"name": "{name}", "pid": {pid}, "tid": {tid}, "args": {{"{key}": {value}}}, "ph": "M"}}'


def python_meta(name: str, pid: int, key: str, value: str) -> str:
    """torch_npu writes its own process metadata with ``ph`` first."""
    return f'{{"ph": "M", "name": "{name}", "pid": {pid}, "tid": 0, "args": {{"{key}": {value}}}}}'


def hw_tasks(pid: int, names: list[str], types: list[str], sid: list[int], ts: list[str],
             dur: list[str], cid: list[int]) -> list[str]:
    """``Ascend Hardware`` stream tasks."""
    return [f'{{"name": "{n}", "pid": {pid}, "tid": {s}, "ts": "{t}", "dur": {d}, '
            f'"args": {{"Model Id": {_NO_ID}, '
            f'"{TASK_TYPE_ARG}": "{tt}", "Physic Stream Id": {s}, "Task Id": {c % 65000 + 1}, "Batch Id": 0, '
            f'"Subtask Id": {_NO_ID}, "connection_id": {c}}}, "ph": "X"}}'
            for n, tt, s, t, d, c in zip(names, types, sid, ts, dur, cid)]


def comm_stream_tasks(pid: int, sid: int, names: list[tuple[str, str]], ts: list[str], dur: list[str],
                      cid: list[int]) -> list[str]:
    """Tasks of the communication operators on their hardware stream (``Subtask Id`` counts)."""
    return [f'{{"name": "{n}", "pid": {pid}, "tid": {sid}, "ts": "{t}", "dur": {d}, '
            f'"args": {{"Model Id": {_NO_ID}, '
            f'"{TASK_TYPE_ARG}": "{tt}", "Physic Stream Id": {sid}, "Task Id": {c % 65000 + 1}, "Batch Id": 0, '
            f'"Subtask Id": {i}, "connection_id": {c}}}, "ph": "X"}}'
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
            f'"dur": {host_dur[i]}, "cat": "{FRAMEWORK_OPERATOR}", "args": {{"Sequence number": {i}, '
            f'"Fwd thread id": 0}}}}',
            f'{{"name": "{ACL_PREFIX}{a}", "pid": {cann}, "tid": {host}, "ts": "{acl_ts[i]}", '
            f'"dur": {acl_dur[i]}, '
            f'"args": {{"Thread Id": {host}, "Mode": "ACL_OP", "level": "acl", "id": "{a}", "item_id": "0", '
            f'"connection_id": {c}}}, "ph": "X"}}',
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
        f'"args": {{"Model Id": {_NO_ID}, "{TASK_TYPE_ARG}": "{task_type}", "Physic Stream Id": {sid}, '
        f'"Task Id": {cid % 65000 + 1}, "Batch Id": 0, "Subtask Id": {_NO_ID}, "connection_id": {cid}, '
        f'"data size(Byte)": 19267584, "memcpy direction": "host to device"}}, "ph": "X"}}',
        f'{{"name": "{ACL_PREFIX}{MEMCPY_CALL}", "pid": {cann}, "tid": {thread}, "ts": "{host_ts}", '
        f'"dur": {host_dur}, "args": {{"Thread Id": {thread}, "Mode": "ACL_RTS", "level": "acl", '
        f'"id": "{MEMCPY_CALL}", "item_id": "0", "connection_id": {cid}}}, "ph": "X"}}',
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
            f'"args": {{"connection_id": {cid}, "model id": {_NO_ID}, "data_type": "FP32", '
            f'"alg_type": "{alg}", '
            f'"count": {count}}}, "ph": "X"}}')


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
