"""The database layout: a card written as the tables of the profiler's SQLite generation.

``write_database(store, path)`` writes a loaded card (typically a generated ``msprof`` card, so
the ground truth is known) as torch_npu's ``export_type=db`` tables (trace-format.md §8): every
name through ``STRING_IDS``, enumerations in ``ENUM_*`` tables, integer ns times (TEXT in
``PYTORCH_API``, as torch_npu writes them), flows as connection ids. Reading it back gives the
same lanes, names and analysis as the JSON (the plane tasks' hardware rows are the stream tasks
they coincide with; any without one are added to their stream). ``generate_database`` does both
steps for a ``CardSpec``. The producers' names it writes (processes read back, enumerations, categories)
are the producers' modules'; the real-sample tests check those against real files.
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import numpy as np

from timelineview.analysis.communication.plane_args import read_plane_args
from timelineview.analysis.task_types import is_compute_task_type
from timelineview.model.store.trace_store import TraceStore
from timelineview.producers import ascend_lanes, cann_tasks, hccl, torch_npu
from timelineview.producers.ascend import CANN_PROCESS, COMMUNICATION_PROCESS, HARDWARE_PROCESS, OVERLAP_PROCESS

SCHEMA = "1.0.0"
NONE = 4294967295
ROWS = 200_000  # rows per executemany batch
API_TYPES = {5000: "runtime", 5500: hccl.DATABASE_API_TYPE, 10000: "node", 15000: "model", 20000: "acl", 50001: "op",
             50002: "queue", 50003: "trace", 50004: "mstx"}
_PREFIX = cann_tasks.API_PREFIX
PREFIX_TYPE = {_PREFIX["acl"]: 20000, _PREFIX["runtime"]: 5000, _PREFIX["node"]: 10000, _PREFIX["model"]: 15000,
               _PREFIX[hccl.DATABASE_API_TYPE]: 5500}
CAT_TYPE = {torch_npu.FRAMEWORK_OPERATOR: 50001, torch_npu.PYTHON_FUNCTION_CATEGORY: 50003,
            **dict.fromkeys(torch_npu.QUEUE_CATEGORIES, 50002)}
TRANSPORT = {0: hccl.TRANSPORT_SDMA, 1: hccl.TRANSPORT_RDMA, 2: hccl.TRANSPORT_LOCAL, 65534: hccl.NOT_APPLICABLE,
             65535: hccl.INVALID_TYPE}
LINK = {0: hccl.LINK_ON_CHIP, 1: hccl.LINK_HCCS, 2: hccl.LINK_PCIE, 3: hccl.LINK_ROCE, 4: hccl.LINK_SIO, 5: "HCCS_SW",
        6: "STANDARD_ROCE", 7: "RESERVED", 65534: hccl.NOT_APPLICABLE, 65535: hccl.INVALID_TYPE}
OVERLAP_TYPE = {name: kind for kind, name in enumerate(ascend_lanes.OVERLAP_LANES)}  # OVERLAP_ANALYSIS.type
TABLES = {
    "META_DATA": "name TEXT, value TEXT",
    "STRING_IDS": "id INTEGER PRIMARY KEY, value TEXT",
    "ENUM_API_TYPE": "id INTEGER PRIMARY KEY, name TEXT",
    "ENUM_HCCL_TRANSPORT_TYPE": "id INTEGER PRIMARY KEY, name TEXT",
    "ENUM_HCCL_LINK_TYPE": "id INTEGER PRIMARY KEY, name TEXT",
    "RANK_DEVICE_MAP": "rankId INTEGER, deviceId INTEGER",
    "TASK": "startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER, "
            "globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, "
            "modelId INTEGER, depth INTEGER",
    "COMPUTE_TASK_INFO": "name INTEGER, globalTaskId INTEGER, blockDim INTEGER, mixBlockDim INTEGER, "
                         "taskType INTEGER, opType INTEGER",
    "COMMUNICATION_TASK_INFO": "name INTEGER, globalTaskId INTEGER, taskType INTEGER, planeId INTEGER, "
                               "groupName INTEGER, notifyId INTEGER, rdmaType INTEGER, srcRank INTEGER, "
                               "dstRank INTEGER, transportType INTEGER, size INTEGER, dataType INTEGER, "
                               "linkType INTEGER, opId INTEGER",
    "COMMUNICATION_OP": "opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER, "
                        "groupName INTEGER, opId INTEGER",
    "CANN_API": "startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, connectionId INTEGER, "
                "name INTEGER, depth INTEGER",
    "PYTORCH_API": "startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER, "
                   "type INTEGER, depth INTEGER",
    "CONNECTION_IDS": "id INTEGER, connectionId INTEGER",
    "connectionCats": "connectionId INT, cat",
    "OVERLAP_ANALYSIS": "id INTEGER PRIMARY KEY AUTOINCREMENT, deviceId INTEGER, startNs INTEGER, "
                        "endNs INTEGER, type INTEGER",
    "STEP_TIME": "id INTEGER, startNs INTEGER, endNs INTEGER",
}


def _lanes_of(store: TraceStore, process: str) -> np.ndarray:
    procs = [p for p, name in enumerate(store.processes.name) if name == process]
    return np.flatnonzero(np.isin(store.lanes.process, procs))


def _insert(conn: sqlite3.Connection, table: str, columns: list[np.ndarray | list]) -> None:
    n = len(columns[0]) if columns else 0
    marks = ", ".join("?" * len(columns))
    for a in range(0, n, ROWS):
        rows = zip(*[c[a:a + ROWS].tolist() if isinstance(c, np.ndarray) else c[a:a + ROWS] for c in columns],
                   strict=True)
        conn.executemany(f"insert into {table} values ({marks})", rows)


def _stream_of(name: str, tid: str) -> int:
    word = name.rsplit(" ", 1)[-1]
    return int(word) if word.isdigit() else int(tid) if tid.lstrip("-").isdigit() else 0


def write_database(store: TraceStore, path: str | Path, rank: int | None = None, device: int = 0) -> int:
    """Write ``store`` as a profiler database at ``path`` (replaced); returns the TASK rows written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    try:
        conn.execute("pragma journal_mode = off")
        conn.execute("pragma synchronous = off")
        for table, cols in TABLES.items():
            conn.execute(f"create table {table} ({cols})")
        n = _write(conn, store, rank if rank is not None else (store.rank or 0), device)
        conn.commit()
        return n
    finally:
        conn.close()


def _write(conn: sqlite3.Connection, store: TraceStore, rank: int, device: int) -> int:
    sl = store.slices
    strings = list(store.strings)
    extra: dict[str, int] = {}

    def sid(text: str) -> int:
        if text not in extra:
            extra[text] = len(strings)
            strings.append(text)
        return extra[text]

    conn.executemany("insert into META_DATA values (?, ?)", [("SCHEMA_VERSION", SCHEMA)])
    conn.executemany("insert into ENUM_API_TYPE values (?, ?)", API_TYPES.items())
    conn.executemany("insert into ENUM_HCCL_TRANSPORT_TYPE values (?, ?)", TRANSPORT.items())
    conn.executemany("insert into ENUM_HCCL_LINK_TYPE values (?, ?)", LINK.items())
    conn.execute("insert into RANK_DEVICE_MAP values (?, ?)", (rank, device))
    connection = _connection_ids(store)

    # device: stream tasks, compute info, plane tasks (their hardware rows), collectives
    hw = np.flatnonzero(np.isin(sl.lane, _lanes_of(store, HARDWARE_PROCESS)))
    hw = hw[np.argsort(sl.start[hw], kind="stable")]
    stream_of_lane = np.zeros(len(store.lanes), dtype=np.int64)  # per lane, then gathered per task
    for ln in np.unique(sl.lane[hw]).tolist():
        stream_of_lane[ln] = _stream_of(store.lanes.name[ln], store.lanes.tid[ln])
    streams = stream_of_lane[sl.lane[hw]]
    tt = sl.task_type[hw]
    compute_flag = np.array([is_compute_task_type(s) for s in strings] + [False], dtype=bool)
    is_compute = compute_flag[tt] & (tt >= 0)
    task_type = np.where(is_compute, -1, sl.name[hw])  # a stream task is named by its type in the database
    communication = _lanes_of(store, COMMUNICATION_PROCESS).tolist() + _lanes_of(store, "Communication").tolist()
    plane_lanes = [ln for ln in communication if store.lanes.name[ln].lower().startswith("plane")]
    planes = np.flatnonzero(np.isin(sl.lane, plane_lanes))
    args = read_plane_args(store, planes) if len(planes) else []
    # a plane task's hardware row: the non-compute stream task starting at the same ns, once (else
    # one of its own on an extra stream)
    cand = np.flatnonzero(~is_compute)  # hw is in start order, so are these
    pos = np.searchsorted(sl.start[hw][cand], sl.start[planes])
    pos_c = np.minimum(pos, max(len(cand) - 1, 0))
    found = (pos < len(cand)) & (sl.start[hw][cand][pos_c] == sl.start[planes]) if len(cand) else \
        np.zeros(len(planes), bool)
    hw_row = np.where(found, cand[pos_c] if len(cand) else -1, -1)
    _, first = np.unique(hw_row[found], return_index=True)
    taken = np.zeros(len(planes), bool)
    taken[np.flatnonzero(found)[first]] = True
    own = ~taken
    n_hw, n_own = len(hw), int(own.sum())
    gtid = np.arange(n_hw + n_own, dtype=np.int64)
    start = np.concatenate([sl.start[hw], sl.start[planes][own]])
    end = start + np.concatenate([sl.dur[hw], sl.dur[planes][own]])
    stream_all = np.concatenate([streams, np.full(n_own, max(streams.max(initial=0) + 1, 0))])
    ttype_all = np.concatenate([task_type, sl.name[planes][own]])
    conn_all = np.concatenate([connection[hw], connection[planes][own]])
    _insert(conn, "TASK", [start, end, np.full(len(start), device), conn_all, gtid, np.zeros(len(start), np.int64),
                           ttype_all, np.full(len(start), NONE), stream_all, gtid & 0xFFFF,
                           np.full(len(start), NONE), np.zeros(len(start), np.int64)])
    ci = np.flatnonzero(is_compute)
    _insert(conn, "COMPUTE_TASK_INFO", [sl.name[hw][ci], gtid[ci], np.zeros(len(ci), np.int64),
                                        np.zeros(len(ci), np.int64), tt[ci], sl.name[hw][ci]])
    plane_gtid = np.empty(len(planes), np.int64)
    plane_gtid[taken] = gtid[hw_row[taken]]
    plane_gtid[own] = gtid[n_hw:]
    _write_planes(conn, store, planes, args, plane_gtid, sid)
    _write_collectives(conn, store, connection, sid)
    _write_host(conn, store, connection, sid)
    _write_overlap(conn, store, device)
    _write_flows(conn, store)
    _insert(conn, "STRING_IDS", [list(range(len(strings))), strings])
    return len(start)


def _int(value, default: int) -> int:
    return value if isinstance(value, int) else default


def _edges(store: TraceStore) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bound flow edges: (edge index, src slice, dst slice)."""
    fl = store.flows
    src, dst = np.asarray(fl.src_slice), np.asarray(fl.dst_slice)
    ok = np.flatnonzero((src >= 0) & (dst >= 0))
    return ok.astype(np.int64), src[ok].astype(np.int64), dst[ok].astype(np.int64)


def _edge_connections(store: TraceStore) -> np.ndarray:
    """Per bound edge its connection id: the first edge into its end slice, so a CANN call and the
    framework op of one device task share the id, as in the producer's tables."""
    edge, _, dst = _edges(store)
    first = np.full(len(store.slices), -1, np.int64)
    order = np.argsort(edge)[::-1]  # the smallest edge written last wins
    first[dst[order]] = edge[order]
    return first[dst]


def _connection_ids(store: TraceStore) -> np.ndarray:
    """Per slice one connection id (device tasks: the id of their edges; host calls: of their first
    edge); -1 when none. Framework ranges hold several through ``CONNECTION_IDS``."""
    out = np.full(len(store.slices), -1, np.int64)
    _, src, dst = _edges(store)
    cid = _edge_connections(store)
    out[dst] = cid
    order = np.argsort(cid)[::-1]
    out[src[order]] = cid[order]
    return out


def _write_planes(conn, store: TraceStore, planes: np.ndarray, args: list, gtid: np.ndarray, sid) -> None:
    sl = store.slices
    groups = [ln for ln in range(len(store.lanes)) if store.lanes.name[ln].endswith(" Communication")]
    ops = np.flatnonzero(np.isin(sl.lane, groups))
    ops = ops[np.argsort(sl.start[ops], kind="stable")]
    k = np.searchsorted(sl.start[ops], sl.start[planes], side="right") - 1
    op_name = np.where(k >= 0, sl.name[ops][np.maximum(k, 0)], -1) if len(ops) else np.full(len(planes), -1)
    # the plane task's collective by its opId: the collective's place on its lane, as _write_collectives numbers it
    ordinal = np.zeros(len(sl), np.int64)
    for ln in groups:
        ordinal[np.flatnonzero(sl.lane == ln)] = np.arange(int((sl.lane == ln).sum()))
    op_id = np.where(k >= 0, ordinal[ops][np.maximum(k, 0)], 0) if len(ops) else np.zeros(len(planes), np.int64)
    group = sid(_group_name(store.lanes.name[groups[0]])) if groups else -1
    transport = {v: i for i, v in TRANSPORT.items()}
    link = {v: i for i, v in LINK.items()}
    plane_no = np.array([int(store.lanes.name[ln].split()[-1]) for ln in sl.lane[planes]], dtype=np.int64)
    rows = [[], [], [], [], [], [], [], []]
    for a in args:
        rows[0].append(_int(a.src, NONE))
        rows[1].append(_int(a.dst, NONE))
        rows[2].append(transport.get(a.transport, 65535))
        rows[3].append(_int(a.size, 0) if not isinstance(a.size, float) else int(a.size))
        rows[4].append(link.get(a.link_type, 65535))
    n = len(planes)
    _insert(conn, "COMMUNICATION_TASK_INFO", [op_name, gtid, sl.name[planes], plane_no, np.full(n, group),
                                              np.zeros(n, np.int64), np.full(n, 65535), rows[0], rows[1],
                                              rows[2], rows[3], np.full(n, 65535), rows[4], op_id])


def _group_name(lane_name: str) -> str:
    words = lane_name.split()
    return " ".join(words[1:-1]) if len(words) > 2 else lane_name


def _write_collectives(conn, store: TraceStore, connection: np.ndarray, sid) -> None:
    sl = store.slices
    for ln in range(len(store.lanes)):
        name = store.lanes.name[ln]
        if not name.endswith(" Communication") or not name.startswith("Group"):
            continue
        ops = np.flatnonzero(sl.lane == ln)
        n = len(ops)
        _insert(conn, "COMMUNICATION_OP", [sl.name[ops], sl.start[ops], sl.start[ops] + sl.dur[ops],
                                           connection[ops], np.full(n, sid(_group_name(name))),
                                           np.arange(n, dtype=np.int64)])


def _lane_tids(store: TraceStore, signed: bool) -> np.ndarray:
    """Each lane's tid as an integer (0 for a tid that is not a non-negative one, or with ``signed`` not an
    integer), to gather per slice."""
    def number(t: str) -> int:
        return int(t) if (t.lstrip("-") if signed else t).isdigit() else 0
    return np.array([number(t) for t in store.lanes.tid], dtype=np.int64)


def _write_host(conn, store: TraceStore, connection: np.ndarray, sid) -> None:
    sl = store.slices
    cann = np.flatnonzero(np.isin(sl.lane, _lanes_of(store, CANN_PROCESS)))
    distinct, which = np.unique(sl.name[cann], return_inverse=True)  # each name's prefix read once
    type_of, name_of = np.empty(len(distinct), np.int64), np.empty(len(distinct), np.int64)
    for k, i in enumerate(distinct.tolist()):
        text = store.strings[i]
        prefix = next((p for p in PREFIX_TYPE if text.startswith(p)), "")
        type_of[k] = PREFIX_TYPE.get(prefix, 50001)
        name_of[k] = sid(text[len(prefix):]) if prefix else i
    types, names = type_of[which], name_of[which]
    tids = _lane_tids(store, signed=True)[sl.lane[cann]]
    _insert(conn, "CANN_API", [sl.start[cann], sl.start[cann] + sl.dur[cann], types, tids, connection[cann],
                               names, sl.depth[cann].astype(np.int64)])
    torch = np.flatnonzero(np.isin(sl.lane, _lanes_of(store, torch_npu.PYTHON_PROCESS)))
    cats = [CAT_TYPE.get(store.strings[c], 50001) if c >= 0 else 50001 for c in sl.cat[torch].tolist()]
    tids = _lane_tids(store, signed=False)[sl.lane[torch]]
    ends = sl.start[torch] + sl.dur[torch]
    ref = np.where(connection[torch] >= 0, np.arange(len(torch)), -1)
    _insert(conn, "PYTORCH_API", [[str(v) for v in sl.start[torch].tolist()], [str(v) for v in ends.tolist()],
                                  tids, ref, sl.name[torch], cats, sl.depth[torch].astype(np.int64)])
    # every connection of a framework range, at either end of its edges
    row_of = np.full(len(sl), -1, np.int64)
    row_of[torch] = np.arange(len(torch))
    _, src, dst = _edges(store)
    cid = _edge_connections(store)
    refs = np.concatenate([row_of[src], row_of[dst]])
    cids = np.concatenate([cid, cid])
    keep = refs >= 0
    _insert(conn, "CONNECTION_IDS", [refs[keep], cids[keep]])


def _write_overlap(conn, store: TraceStore, device: int) -> None:
    sl = store.slices
    for ln in _lanes_of(store, OVERLAP_PROCESS).tolist():
        kind = OVERLAP_TYPE.get(store.lanes.name[ln])
        if kind is None:
            continue
        rows = np.flatnonzero(sl.lane == ln)
        n = len(rows)
        conn.executemany("insert into OVERLAP_ANALYSIS (deviceId, startNs, endNs, type) values (?, ?, ?, ?)",
                         zip([device] * n, sl.start[rows].tolist(), (sl.start[rows] + sl.dur[rows]).tolist(),
                             [kind] * n, strict=True))


def _write_flows(conn, store: TraceStore) -> None:
    edge, _, _ = _edges(store)
    pairs = sorted(set(zip(_edge_connections(store).tolist(),
                           [store.strings[c] for c in np.asarray(store.flows.cat)[edge].tolist()], strict=True)))
    _insert(conn, "connectionCats", [[p[0] for p in pairs], [p[1] for p in pairs]])


# per table: column -> (how its copy's value is made, the offset it takes); "id" offsets are applied
# to values >= 0 only (-1 is NULL's stand-in)
_COPY = {
    "TASK": {"deviceId": "device", "connectionId": "cid", "globalTaskId": "task", "globalPid": "pid"},
    "COMPUTE_TASK_INFO": {"globalTaskId": "task"},
    "COMMUNICATION_TASK_INFO": {"globalTaskId": "task", "opId": "op"},
    "COMMUNICATION_OP": {"connectionId": "cid", "opId": "op"},
    "CANN_API": {"connectionId": "cid", "globalTid": "tid"},
    "PYTORCH_API": {"connectionId": "ref", "globalTid": "tid"},
    "CONNECTION_IDS": {"id": "ref", "connectionId": "cid"},
    "connectionCats": {"connectionId": "cid"},
    "OVERLAP_ANALYSIS": {"deviceId": "device"},
}


def add_device_copy(path: str | Path, device: int, rank: int | None = None) -> None:
    """Make the database at ``path`` (one device, from ``write_database``) hold a second device: a
    copy of every device and host row as device ``device`` (listed in ``RANK_DEVICE_MAP`` with
    ``rank``), its tasks launched by another process (pid + 1), with task, collective and
    connection ids of its own. Each device's card then reads as the original one."""
    conn = sqlite3.connect(path)
    try:
        def top(table: str, column: str) -> int:
            return int(conn.execute(f"select ifnull(max({column}), -1) from {table}").fetchone()[0]) + 1

        shift = {"task": top("TASK", "globalTaskId"),
                 "cid": max(top(t, "connectionId") for t in ("TASK", "CANN_API", "COMMUNICATION_OP",
                                                              "CONNECTION_IDS", "connectionCats")),
                 "op": max(top("COMMUNICATION_OP", "opId"), top("COMMUNICATION_TASK_INFO", "opId")),
                 "ref": top("CONNECTION_IDS", "id"), "pid": 1, "tid": 1 << 32}
        for table, changed in _COPY.items():
            cols = [r[1] for r in conn.execute(f"pragma table_info({table})")
                    if not (table == "OVERLAP_ANALYSIS" and r[1] == "id")]  # its own id: autoincrement
            exprs = []
            for c in cols:
                how = changed.get(c)
                exprs.append(str(device) if how == "device" else c if how is None else
                             f"case when {c} >= 0 then {c} + {shift[how]} else {c} end")
            conn.execute(f"insert into {table} ({', '.join(cols)}) select {', '.join(exprs)} from {table}")
        conn.execute("insert into RANK_DEVICE_MAP values (?, ?)", (rank if rank is not None else NONE, device))
        conn.commit()
    finally:
        conn.close()


def generate_database(path: str | Path, spec=None, **kwargs) -> tuple:
    """Generate a card (``generate_card`` with the ``msprof`` layout, beside ``path`` in a temporary
    folder), load it and write it as a database at ``path``: (ground truth, store, TASK rows)."""
    from timelineview.model.load.loader import load
    from timelineview.synthetic.generate import generate_card
    from timelineview.synthetic.spec import MSPROF_LAYOUT, CardSpec

    with tempfile.TemporaryDirectory(dir=Path(path).parent) as tmp:
        json_path = Path(tmp) / torch_npu.TRACE_FILE
        truth = generate_card(json_path, spec or CardSpec(), MSPROF_LAYOUT, **kwargs)
        [store] = load(json_path)
        n = write_database(store, path)
    return truth, store, n
