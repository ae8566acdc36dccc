"""The real profiler databases in ../shared/samples (skipped when absent) against the producer's own
analysis of each capture, ``analysis.db`` beside it: ``stats --json`` on a database must give the
producer's step table (``StepTraceTime``), each collective's elapse, transit, wait, synchronisation and
idle (``CommAnalyzerTime``), each collective's bandwidth per transport with its packet sizes
(``CommAnalyzerBandwidth``) and each link's bytes and transfer time, the LOCAL one included
(``CommAnalyzerMatrix``'s ``…-total`` rows) within 0.5 %."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from timelineview import cli
from timelineview.analysis.classify import classify
from timelineview.analysis.communication import names as nm
from timelineview.analysis.summary import stats_document
from timelineview.commands.diff import diff_main
from timelineview.commands.exit_codes import EXIT_OK
from timelineview.model import find_cards, load
from timelineview.model.memory import load_memory

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples"
DB = SAMPLES / "torch_npu_db"
pytestmark = [pytest.mark.samples, pytest.mark.skipif(not DB.is_dir(), reason="../shared/samples is absent")]
REL = 0.005
CAPTURES = [(level, rank) for level in ("level0", "level1") for rank in (0, 1)]
US_PER_MS = 1000.0
BYTES_PER_MB = 1e6  # CommAnalyzerMatrix's transit_size: the producer's MB is 10^6 bytes here
# StepTraceTime column (µs) -> our per-step key
STEP_KEYS = {"computing": "compute_us", "communication_not_overlapped": "pure_communication_us",
             "overlapped": "overlapped_us", "communication": "communication_us", "free": "free_us",
             "stage": "stage_us", "preparing": "step_interval_us"}


def _output(level: str, rank: int) -> Path:
    return DB / level / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"


def _answers(level: str, rank: int, sql: str) -> list[tuple]:
    path = _output(level, rank) / "analysis.db"
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def documents() -> dict[tuple[str, int], dict]:
    """``stats --json`` of each sample database, as the command prints it."""
    out = {}
    for level, rank in CAPTURES:
        path = _output(level, rank) / f"ascend_pytorch_profiler_{rank}.db"
        out[(level, rank)] = path
    return out


def _stats_json(path: Path, capsys) -> dict:
    assert cli.stats_main([str(path), "--json", "--quiet"]) == EXIT_OK
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("level,rank", CAPTURES)
def test_stats_json_gives_the_producers_step_table(documents, capsys, level, rank):
    doc = _stats_json(documents[(level, rank)], capsys)
    [card] = doc["cards"]
    assert card["rank"] == rank and card["load"]["warnings"] == []
    producer = _answers(level, rank, f"select step, {', '.join(STEP_KEYS)} from StepTraceTime")
    assert [int(row[0]) for row in producer] == [s["step"] for s in card["steps"]]
    for row, step in zip(producer, card["steps"], strict=True):
        for (column, key), value in zip(STEP_KEYS.items(), row[1:], strict=True):
            assert value > 0, column
            assert step[key] == pytest.approx(value, rel=REL), (column, key)


@pytest.mark.parametrize("level,rank", CAPTURES)
def test_the_producers_overlap_lanes_are_read_when_present(documents, capsys, level, rank):
    """OVERLAP_ANALYSIS is in one of the four databases: there the card carries the producer's lanes,
    and they agree with what we compute from the tasks."""
    doc = _stats_json(documents[(level, rank)], capsys)
    [card] = doc["cards"]
    conn = sqlite3.connect(f"file:{documents[(level, rank)]}?mode=ro&immutable=1", uri=True)
    has = conn.execute("select count(*) from sqlite_master where name = 'OVERLAP_ANALYSIS'").fetchone()[0]
    conn.close()
    if not has:
        assert card["file_overlap"] is None
        return
    for key in ("compute_us", "communication_us", "pure_communication_us", "free_us"):
        assert card[key] == pytest.approx(card["file_overlap"][key], rel=REL), key


@pytest.mark.parametrize("rank", (0, 1))
def test_each_collectives_elapse_equals_comm_analyzer_time(documents, capsys, rank):
    doc = _stats_json(documents[("level1", rank)], capsys)
    ops = doc["cards"][0]["communication"]["comm_ops"]
    producer = _answers("level1", rank, "select hccl_op_name, elapse_time from CommAnalyzerTime "
                                        "order by start_timestamp")
    assert [name for name, _ in producer] == [op["name"] for op in ops]
    for (_, elapse_ms), op in zip(producer, ops, strict=True):
        assert op["elapse_us"] == pytest.approx(elapse_ms * US_PER_MS, rel=REL)


def _producer_time_rule(store, ops_doc) -> list[tuple[float, float, float, float]]:
    """The producer's per-collective rule, applied to the card's plane tasks (a reference written
    here, not the project's analysis): on the operator's *master plane* (the lowest plane holding a
    wait), transit = Σ durations of SDMA transfers off the chip, wait = Σ Notify_Wait durations,
    synchronisation = the waits before the first transfer, idle = elapse − transit − wait (ms)."""
    planes = [ln for ln, name in enumerate(store.lanes.name) if nm.PLANE_LANE.match(name)]
    sl = store.slices
    tasks = np.flatnonzero(np.isin(sl.lane, planes))
    args = store.args_many(tasks)
    out = []
    for op in ops_doc:
        mine = [(int(t), a) for t, a in zip(tasks.tolist(), args, strict=True) if a["operator"] == op["name"]]
        waits = [p for p, a in mine if a["task type"] == "Notify_Wait"]
        master = min(int(sl.lane[t]) for t in waits)
        events = sorted((int(sl.start[t]), t, a) for t, a in mine if int(sl.lane[t]) == master)
        transit = wait = sync = 0
        seen_transfer = False
        for _, t, a in events:
            dur = int(sl.dur[t])
            if a["task type"] in ("Memcpy", "Reduce_Inline") and a["transport type"] == "SDMA" \
                    and a["link type"] != "ON_CHIP":
                transit += dur
                seen_transfer = True
            if a["task type"] == "Notify_Wait":
                wait += dur
                sync += 0 if seen_transfer else dur
        elapse = op["elapse_us"] * US_PER_MS
        out.append((transit / 1e6, wait / 1e6, sync / 1e6, (elapse - transit - wait) / 1e6))
    return out


TIME_COLUMNS = "transit_time, wait_time, synchronization_time, idle_time"
MAIN_KEYS = ("transit_us", "wait_us", "synchronization_us", "idle_us")
ABS_US = 0.1  # sub-µs figures (a 20 ns synchronisation) are compared to 0.1 µs


@pytest.mark.parametrize("rank", (0, 1))
def test_each_collectives_figures_equal_comm_analyzer_time(documents, capsys, rank):
    """The producer's transit, wait, synchronisation, idle and wait ratio of each collective are the
    headline figures of its ``comm_ops`` entry, and the card's figures sum them."""
    comm = _stats_json(documents[("level1", rank)], capsys)["cards"][0]["communication"]
    producer = _answers("level1", rank, f"select {TIME_COLUMNS} from CommAnalyzerTime order by start_timestamp")
    assert len(producer) == len(comm["comm_ops"]) == 4
    for op, theirs in zip(comm["comm_ops"], producer, strict=True):
        for key, ms in zip(MAIN_KEYS, theirs, strict=True):
            assert op[key] == pytest.approx(ms * US_PER_MS, rel=REL, abs=ABS_US), (op["name"], key)
        transit, wait = theirs[0], theirs[1]
        assert op["wait_ratio"] == pytest.approx(wait / (wait + transit), rel=REL)
    assert comm["measured_operators"] == len(producer)
    for i, key in enumerate(MAIN_KEYS):
        assert comm[key] == pytest.approx(sum(row[i] for row in producer) * US_PER_MS, rel=REL)
    # the unions over every plane are another figure (all_planes): on the first collective the producer
    # counts as idle most of what every plane spends waiting (89 ms against a 3.6 ms wait)
    first = comm["comm_ops"][0]
    assert first["all_planes"]["wait_us"] > 2 * first["wait_us"]
    assert first["all_planes"]["wait_us"] == pytest.approx(first["idle_us"], rel=0.1)


BANDWIDTH_COLUMNS = "hccl_op_name, transport_type, transit_size, transit_time, bandwidth, large_packet_ratio, " \
    "package_size, count, total_duration"


@pytest.mark.parametrize("rank", (0, 1))
def test_each_collectives_bandwidth_per_transport_equals_comm_analyzer_bandwidth(documents, capsys, rank):
    """Per collective and transport: bytes, transit time, bandwidth and large-packet ratio, and the size
    distribution (one producer row per packet size; the SDMA total row carries none)."""
    ops = _stats_json(documents[("level1", rank)], capsys)["cards"][0]["communication"]["comm_ops"]
    rows = _answers("level1", rank, f"select {BANDWIDTH_COLUMNS} from CommAnalyzerBandwidth")
    theirs: dict[tuple[str, str], dict] = {}
    for name, transport, size_mb, time_ms, gbps, large, package_mb, count, duration_ms in rows:
        entry = theirs.setdefault((name, transport), {"bytes": size_mb * BYTES_PER_MB,
                                                      "transit_us": time_ms * US_PER_MS, "bandwidth_gbps": gbps,
                                                      "large": large, "packets": {}})
        if count:
            entry["packets"][round(package_mb * BYTES_PER_MB)] = (count, duration_ms * US_PER_MS)
    ours = {(op["name"], b["transport"]): b for op in ops for b in op["bandwidth"]}
    assert set(ours) == set(theirs) and len(ours) == 8  # HCCS and the SDMA total of 4 collectives
    for key, want in theirs.items():
        got = ours[key]
        assert got["bytes"] == pytest.approx(want["bytes"], rel=REL), key
        assert got["transit_us"] == pytest.approx(want["transit_us"], rel=REL), key
        assert got["bandwidth_gbps"] == pytest.approx(want["bandwidth_gbps"], rel=REL), key
        assert got["large_packet_ratio"] == want["large"] == 0
        if key[1] != "SDMA":  # the copy-engine total has no distribution of its own
            assert got["count"] == sum(n for n, _ in want["packets"].values())
        packets = {p["size_bytes"]: (p["count"], p["transit_us"]) for p in got["packets"]}
        assert set(packets) == set(want["packets"]), key
        for size, (count, dur) in want["packets"].items():
            assert packets[size][0] == count
            assert packets[size][1] == pytest.approx(dur, rel=REL)


@pytest.mark.parametrize("rank", (0, 1))
def test_the_local_link_equals_comm_analyzer_matrix(documents, capsys, rank):
    """The producer's LOCAL link (src = dst: bytes moved on the card itself, its on-chip copies and
    reduces) is reported beside the links between ranks."""
    local = _stats_json(documents[("level1", rank)], capsys)["cards"][0]["communication"]["local_links"]
    producer = _answers("level1", rank, "select src_rank, dst_rank, transit_size, transit_time from CommAnalyzerMatrix "
                                        "where hccl_op_name like '%-total' and transport_type = 'LOCAL'")
    assert len(producer) == len(local) == 1
    [(src, dst, size_mb, time_ms)] = producer
    [link] = local
    assert (link["link"], link["transport"]) == (f"{src}-{dst}", "LOCAL") and src == dst == str(rank)
    assert link["bytes"] == pytest.approx(size_mb * BYTES_PER_MB, rel=REL)
    assert link["transit_us"] == pytest.approx(time_ms * US_PER_MS, rel=REL)


@pytest.mark.parametrize("rank", (0, 1))
def test_plane_tasks_give_comm_analyzer_times_by_the_producers_rule(documents, capsys, rank):
    """The plane tasks the reader builds (their planes, types, transports, link types, durations and
    operators) are the producer's inputs: its own rule on them, written here independently of the
    project's ``main_plane`` figures, gives CommAnalyzerTime."""
    [store] = load(documents[("level1", rank)])
    ops = _stats_json(documents[("level1", rank)], capsys)["cards"][0]["communication"]["comm_ops"]
    producer = _answers("level1", rank, "select transit_time, wait_time, synchronization_time, idle_time "
                                        "from CommAnalyzerTime order by start_timestamp")
    for ours, theirs in zip(_producer_time_rule(store, ops), producer, strict=True):
        for a, b in zip(ours, theirs, strict=True):
            assert a == pytest.approx(b, rel=REL, abs=1e-4)


@pytest.mark.parametrize("rank", (0, 1))
def test_per_link_bytes_and_transit_equal_comm_analyzer_matrix(documents, capsys, rank):
    links = _stats_json(documents[("level1", rank)], capsys)["cards"][0]["communication"]["links"]
    producer = _answers("level1", rank, "select src_rank, dst_rank, transport_type, transit_size, transit_time "
                                        "from CommAnalyzerMatrix where hccl_op_name like '%-total' "
                                        "and src_rank != dst_rank")
    assert len(producer) == len(links) == 7
    ours = {link["link"]: link for link in links}
    for src, dst, link_type, size_mb, time_ms in producer:
        link = ours[f"{src}-{dst}"]
        assert link["link_type"] == link_type
        assert link["bytes"] == pytest.approx(size_mb * BYTES_PER_MB, rel=REL)
        assert link["transit_us"] == pytest.approx(time_ms * US_PER_MS, rel=REL)


def test_level0_has_plane_tasks_but_no_producer_communication_detail():
    tables = _answers("level0", 0, "select name from sqlite_master")
    assert ("CommAnalyzerTime",) not in tables


@pytest.mark.parametrize("level", ("level0", "level1"))
def test_a_folder_of_two_ranks_is_a_two_card_cluster(level):
    stores = load(DB / level)
    assert [s.rank for s in stores] == [0, 1]
    doc = stats_document(stores)
    assert [c["card"] for c in doc["cards"]] == ["rank 0", "rank 1"]
    # one host: the collectives end within a few µs of each other on both clocks
    assert abs(doc["cards"][1]["clock_offset_us"]) < 100
    if level == "level1":
        keys = {link["link"] for link in doc["links"]}
        assert {"0-1", "1-0"} <= keys


def test_lanes_and_args_are_those_the_json_generation_shows():
    [store] = load(_output("level1", 0))
    names = {store.lane_full_name(i) for i in range(len(store.lanes))}
    assert {"Ascend Hardware / Stream 2", "HCCL / Plane 0", "HCCL / Plane 7", "Overlap Analysis / Free",
            "CANN / Thread 3136493", "Python / Thread 3136493"} <= names
    c = classify(store)
    assert c.mode == "msprof" and len(c.comm_lanes) == 1 and c.compute.sum() == 187  # COMPUTE_TASK_INFO rows
    plane = int(np.flatnonzero(np.isin(store.slices.lane, [i for i, n in enumerate(store.lanes.name)
                                                             if n == "Plane 1"]))[0])
    args = store.args(plane)
    assert set(args) >= {"src rank", "dst rank", "transport type", "link type", "size(Byte)", "notify_id",
                         "task type", "bandwidth(GB/s)"}
    assert args["transport type"] in ("SDMA", "RDMA", "LOCAL")
    cats = {store.strings[c] for c in np.unique(store.flows.cat)}
    assert {"HostToDevice", "async_npu"} <= cats
    # a host call's flow lands on a device task of the same connection id
    edge = int(np.flatnonzero(store.flows.cat == store.string_id("HostToDevice"))[0])
    src, dst = int(store.flows.src_slice[edge]), int(store.flows.dst_slice[edge])
    assert store.args(src)["connection_id"] == store.args(dst)["connection_id"]
    kernel = int(np.flatnonzero(c.compute)[0])
    assert {"Op Type", "Input Shapes", "aic_total_time", "aiv_total_time"} <= set(store.args(kernel))  # + PMU
    assert store.counters.series_name[0] == "AI Core Freq"
    assert [s for s in store.strings if s.startswith("ProfilerStep#")] == ["ProfilerStep#50"]


def test_the_database_is_read_and_the_json_of_the_same_capture_is_not(tmp_path):
    """A folder holding both: one card, the database, with a note naming the JSON left unread."""
    out = tmp_path / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    db = out / "ascend_pytorch_profiler_0.db"
    db.write_bytes((_output("level1", 0) / "ascend_pytorch_profiler_0.db").read_bytes())
    (out / "trace_view.json").write_bytes(
        (SAMPLES / "torch_npu" / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").read_bytes())
    [card] = find_cards(tmp_path)
    assert card.files == [db] and card.rank == 0
    [store] = load(tmp_path)
    assert any("trace_view.json: not read: the database" in w for w in store.report.warnings)


def test_diff_between_a_json_run_and_a_database_run(capsys):
    assert diff_main([str(SAMPLES / "torch_npu"), str(DB / "level1"), "--json"]) == EXIT_OK
    doc = json.loads(capsys.readouterr().out)
    assert sorted(c["card"] for c in doc["cards"]) == ["rank 0", "rank 1"]
    card = next(c for c in doc["cards"] if c["card"] == "rank 0")
    assert card["new"]["compute_us"] == pytest.approx(8903.431, rel=REL)  # StepTraceTime's computing
    assert card["delta"]["compute_us"] == pytest.approx(card["new"]["compute_us"] - card["base"]["compute_us"])
    assert {link["key"] for link in doc["links"]} >= {"0-1", "1-0"}


def _own_sql(level: str, rank: int, sql: str) -> list[tuple]:
    path = _output(level, rank) / f"ascend_pytorch_profiler_{rank}.db"
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


@pytest.mark.parametrize("level,rank", CAPTURES)
def test_sample_kernels_without_compute_info_are_drawn_through_their_sub_tasks(level, rank):
    """Every AI_CORE task the samples hold without compute info is the parent of sub-tasks (an FFTS+ kernel
    or a collective's carrier): none is drawn, none untyped, and the card says nothing of them."""
    parents = _own_sql(level, rank, "select t.streamId, t.taskId from TASK t join STRING_IDS s on s.id = t.taskType "
                                    "left join COMPUTE_TASK_INFO c on c.globalTaskId = t.globalTaskId "
                                    "where c.globalTaskId is null and s.value = 'AI_CORE'")
    assert len(parents) == 9
    for stream, task in parents:
        assert _own_sql(level, rank, f"select count(*) from TASK where streamId = {stream} and taskId = {task} "
                                     f"and contextId != 4294967295")[0][0] > 0
    [store] = load(_output(level, rank) / f"ascend_pytorch_profiler_{rank}.db")
    assert not [w for w in store.report.warnings if "COMPUTE_TASK_INFO" in w or "bare number" in w]
    names = {store.strings[i] for i in np.unique(store.slices.name[classify(store).compute])}
    assert "AI_CORE" not in names


@pytest.mark.parametrize("level,rank", CAPTURES)
def test_sample_npu_op_mem_is_named_as_not_read(level, rank):
    path = _output(level, rank) / f"ascend_pytorch_profiler_{rank}.db"
    rows = _own_sql(level, rank, "select count(*) from NPU_OP_MEM")[0][0]
    allocs = _own_sql(level, rank, "select count(*) from NPU_OP_MEM n join STRING_IDS s on s.id = n.type "
                                   "where s.value = 'allocate'")[0][0]
    streamless = _own_sql(level, rank, "select count(*) from OP_MEMORY where streamPtr is null")[0][0]
    assert (rows, allocs, streamless) == (114, 57, 57)
    m = load_memory([path])
    assert (f"{path.name}: table NPU_OP_MEM not read, {rows} rows ({allocs} allocations against OP_MEMORY's "
            f"{streamless} without a stream): the allocations are read from OP_MEMORY") in m.report.warnings
    assert len(m.allocations) == _own_sql(level, rank, "select count(*) from OP_MEMORY")[0][0]


@pytest.mark.parametrize("level,rank", CAPTURES)
def test_sample_links_all_name_their_transport(documents, capsys, level, rank):
    doc = _stats_json(documents[(level, rank)], capsys)
    [card] = doc["cards"]
    links = card["communication"]["links"]
    assert all(x["transport"] not in nm.NO_TRANSPORT for x in links)
    assert bool(links) == (level == "level1")  # level0 writes no sizes (and N/A transports): no transfer at all
    moving = _own_sql(level, rank, "select count(*) from COMMUNICATION_TASK_INFO c where size > 0 and "
                                   "srcRank != dstRank and transportType not in (0, 1, 2)")[0][0]
    assert moving == 0  # nothing left out: every transfer of the samples has a transport
    assert sum(x["count"] for x in links) == _own_sql(
        level, rank, "select count(*) from COMMUNICATION_TASK_INFO c join TASK t on t.globalTaskId = c.globalTaskId "
                     "where c.size > 0 and c.srcRank != c.dstRank and c.srcRank < 4294967295 "
                     "and c.dstRank < 4294967295")[0][0]
