"""Lane naming and ordering from ``M`` metadata, with the fixed-pid tables of old MindSpore files.

Process name: ``process_name``, then ``process_labels``, then (only in files with no
``process_name`` at all, i.e. MindSpore ≤ 2.1) the fixed-pid table, then ``Process <pid>``.
Thread name: ``thread_name``, then ``Stream <tid>`` on MindSpore device/AI CPU/
communication pids, ``Steps``/``Scope Name`` for 100000/100001, then ``Thread <tid>``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.model.decode.chunk_result import token_text
from timelineview.producers.ascend_lanes import STREAM_LANE, THREAD_LANE
from timelineview.producers.generations import generation_of
from timelineview.producers.mindspore import DEVICE_PID_MAX, FIXED_PIDS, FIXED_TIDS, STREAM_PIDS


@dataclass
class Metadata:
    """Deduplicated ``M`` records of one card: last one wins per (name, pid, tid)."""

    process_name: dict[str, str]
    process_label: dict[str, str]
    process_sort: dict[str, int]
    thread_name: dict[tuple[str, str], str]
    thread_sort: dict[tuple[str, str], int]

    @classmethod
    def from_records(cls, records: list[tuple]) -> Metadata:
        """``records``: (name, pid, tid, args) in file order."""
        md = cls({}, {}, {}, {}, {})
        for name, pid, tid, args in records:
            if not isinstance(args, dict):
                continue
            p = token_text(pid)
            key = (p, token_text(tid))
            if name == "process_name" and isinstance(args.get("name"), str):
                md.process_name[p] = args["name"]
            elif name == "process_labels" and args.get("labels") is not None:
                md.process_label[p] = str(args["labels"])
            elif name == "process_sort_index":
                v = _as_int(args.get("sort_index"))
                if v is not None:
                    md.process_sort[p] = v
            elif name == "thread_name" and isinstance(args.get("name"), str):
                md.thread_name[key] = args["name"]
            elif name == "thread_sort_index":
                v = _as_int(args.get("sort_index"))
                if v is not None:
                    md.thread_sort[key] = v
        return md


def _as_int(v: object) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v if abs(v) < 2**63 else None
    try:
        return int(float(v))  # float_hook-free decoders may hand "3" or 3.0
    except (TypeError, ValueError, OverflowError):  # 1e400, Infinity: no order, not a crash
        return None


UNSORTED = 1 << 40  # the sort index of a process or thread the producer gave none
INT64_DIGITS = 18  # decimal digits that always fit int64
VECTOR_TOKEN_CHARS = 64  # tokens longer than this are ordered in Python


def _num_key(text: str) -> tuple[int, int, str]:
    """Sort numerically when the token is an integer, after all numbers otherwise."""
    try:
        return (0, int(text), "")
    except ValueError:
        return (1, 0, text)


def mindspore_style(md: Metadata) -> bool:
    """No ``process_name`` anywhere: MindSpore ≤ 2.1 own-format files."""
    return not md.process_name


def process_display_name(pid: str, md: Metadata, legacy: bool) -> str:
    if pid in md.process_name:
        return md.process_name[pid]
    if pid in md.process_label:
        return md.process_label[pid]
    if legacy:
        if pid in FIXED_PIDS:
            return FIXED_PIDS[pid]
        if _is_device_pid(pid):
            return f"Device {pid}"
    return f"Process {pid}"


def _is_device_pid(pid: str) -> bool:
    return pid.isdigit() and int(pid) < DEVICE_PID_MAX


@dataclass
class LaneLayout:
    """Display order of processes and lanes for a set of (pid, tid) keys."""

    process_pid: list[str]
    process_name: list[str]
    process_label: list[str]
    process_sort: np.ndarray
    lane_process: np.ndarray  # int32
    lane_tid: list[str]
    lane_name: list[str]
    lane_sort: np.ndarray
    lane_of_key: dict[tuple[str, str], int]  # (pid, tid) -> display lane id
    process_of_pid: dict[str, int]


def _token_order(tokens: list[str]) -> np.ndarray:
    """Each token's place in ``_num_key``'s order (integers first, numerically, then the other texts in text
    order), computed with numpy where it can be: a file can hold a million distinct tids."""
    n = len(tokens)
    if n == 0 or max(map(len, tokens)) > VECTOR_TOKEN_CHARS:  # a fixed-width array would be n × the longest
        return _places(sorted(range(n), key=lambda k: _num_key(tokens[k])))
    text = np.array(tokens, dtype=str)
    code = text.view(np.uint32).reshape(n, -1)
    plain = (code < 128).all(axis=1) & (np.char.str_len(text) <= INT64_DIGITS)
    body = np.where(np.char.startswith(text, "-"), np.char.replace(text, "-", "", count=1), text)
    numeric = plain & np.char.isdigit(body)  # ASCII integers that fit int64: numpy reads them as int() does
    values = np.zeros(n, dtype=np.int64)
    values[numeric] = text[numeric].astype(np.int64)
    for k in np.flatnonzero(~numeric).tolist():  # "+5", " 5", "1_000", non-ASCII digits: as Python reads them
        kind, value, _ = _num_key(tokens[k])
        if kind == 0:
            if not -(1 << 63) <= value < (1 << 63):
                return _places(sorted(range(n), key=lambda k: _num_key(tokens[k])))
            numeric[k], values[k] = True, value
    return _places(np.lexsort((np.where(numeric, "", text), values, ~numeric)).tolist())


def _places(order: list[int]) -> np.ndarray:
    place = np.empty(len(order), dtype=np.int64)
    place[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
    return place


def _thread_names(keys: list[tuple[str, str]], md: Metadata, legacy: bool) -> list[str]:
    """The lane name of each key: its thread name, else a fixed name (legacy or device), ``Stream <tid>``
    (legacy stream processes) or ``Thread <tid>``, by one comprehension per process (a file can hold a
    million distinct tids)."""
    names: list = [md.thread_name.get(k) for k in keys]
    by_pid: dict[str, list[int]] = {}
    stream, thread = STREAM_LANE.format, THREAD_LANE.format  # as the producers name their threads
    for i, name in enumerate(names):
        if name is None:
            by_pid.setdefault(keys[i][0], []).append(i)
    for p, where in by_pid.items():
        device = _is_device_pid(p)
        fixed = FIXED_TIDS if legacy or device else {}
        streams = legacy and (device or p in STREAM_PIDS)
        tids = [keys[i][1] for i in where]
        named = [fixed.get(t) or (stream(t) if streams and t.lstrip("-").isdigit() else thread(t)) for t in tids]
        for i, name in zip(where, named):
            names[i] = name
    return names


def layout_lanes(lane_keys: list[tuple[str, str]], extra_pids: list[str], md: Metadata) -> LaneLayout:
    """Order processes by sort index then pid, lanes by thread sort index then tid."""
    legacy = mindspore_style(md)
    pids = sorted({p for p, _ in lane_keys} | set(extra_pids),
                  key=lambda p: (md.process_sort.get(p, UNSORTED), _num_key(p)))
    process_of_pid = {p: i for i, p in enumerate(pids)}
    unique = list(dict.fromkeys(lane_keys))
    tids = [t for _, t in unique]
    thread_sort = md.thread_sort
    order = np.lexsort((_token_order(tids),
                        np.array([thread_sort.get(k, UNSORTED) for k in unique], dtype=np.int64),
                        np.array([process_of_pid[p] for p, _ in unique], dtype=np.int64)))
    keys = [unique[k] for k in order.tolist()]
    return LaneLayout(
        process_pid=pids,
        process_name=[process_display_name(p, md, legacy) for p in pids],
        process_label=[md.process_label.get(p, "") for p in pids],
        process_sort=np.array([md.process_sort.get(p, i) for i, p in enumerate(pids)], dtype=np.int64),
        lane_process=np.array([process_of_pid[p] for p, _ in keys], dtype=np.int32),
        lane_tid=[t for _, t in keys],
        lane_name=_thread_names(keys, md, legacy),
        lane_sort=np.array([thread_sort.get(k, i) for i, k in enumerate(keys)], dtype=np.int64),
        lane_of_key={k: i for i, k in enumerate(keys)},
        process_of_pid=process_of_pid,
    )


def detect_generation(md: Metadata, process_names: list[str]) -> str:
    """Best guess of the producer (docs/trace-format.md §9 item 4), for labels and reports."""
    has_metadata = bool(md.process_name or md.process_label or md.thread_name)
    return generation_of(set(md.process_label.values()), set(process_names), has_metadata)
