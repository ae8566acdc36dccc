"""Plane tasks with real-shaped args, the planted slow link, and every hardware task typed "Other"."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

import pytest

from timelineview.synthetic import CardSpec, WriteOptions, cluster_specs, generate_card, generate_cluster
from timelineview.synthetic.__main__ import main as synth_main
from timelineview.synthetic.truth import GroundTruth

from .tracecheck import load_events, ns

INVALID = 4294967295
PLANE_KEYS = {"notify_id", "duration estimated(us)", "stream id", "task id", "context id", "task type", "src rank",
              "dst rank", "transport type", "size(Byte)", "data type", "link type", "bandwidth(GB/s)"}


def _names(events: list[dict]) -> tuple[dict, dict]:
    procs = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e.get("ph") == "M" and e["name"] == "thread_name"}
    return procs, threads


def _plane_tasks(events: list[dict]) -> list[dict]:
    procs, threads = _names(events)
    return [e for e in events if e.get("ph") == "X" and procs.get(e["pid"]) == "HCCL"
            and threads.get((e["pid"], e["tid"]), "").startswith("Plane ")]


@pytest.fixture(scope="module")
def cluster16(tmp_path_factory):
    root = tmp_path_factory.mktemp("comm16")
    specs = cluster_specs(16, seed=2, steps=2, tasks_per_step=40, slow_link=(3, 11), slow_link_factor=2.5)
    truths = generate_cluster(root, specs, "msprof")
    return root, truths


def _events_of(root, rank: int) -> list[dict]:
    return load_events(root / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json")


@pytest.mark.parametrize("rank", [3, 8])
def test_plane_tasks_have_real_shaped_args(cluster16, rank: int) -> None:
    root, _ = cluster16
    tasks = _plane_tasks(_events_of(root, rank))
    assert tasks
    for e in tasks:
        a = e["args"]
        assert PLANE_KEYS <= set(a)
        assert a["src rank"] == rank and a["task type"] == e["name"]
        if a["size(Byte)"] > 0 and a["dst rank"] not in (rank, INVALID):
            same_node = a["dst rank"] // 8 == rank // 8
            assert (a["transport type"], a["link type"]) == (("SDMA", "HCCS") if same_node else ("RDMA", "ROCE"))
            assert Decimal(a["bandwidth(GB/s)"]) == pytest.approx(Decimal(a["size(Byte)"]) / ns(e["dur"]))
    kinds = {(e["name"], e["args"]["transport type"], e["args"]["link type"]) for e in tasks}
    assert {("Notify_Wait", "LOCAL", "INVALID_TYPE"), ("Reduce_Inline", "SDMA", "ON_CHIP"),
            ("Memcpy", "SDMA", "ON_CHIP"), ("Reduce_Inline", "SDMA", "HCCS"), ("Memcpy", "RDMA", "ROCE")} <= kinds


def test_a_notify_wait_comes_before_the_first_transfer_of_each_plane(cluster16) -> None:
    root, _ = cluster16
    by_lane: dict[tuple, list] = defaultdict(list)
    for e in _plane_tasks(_events_of(root, 0)):
        by_lane[(e["pid"], e["tid"])].append(e)
    checked = 0
    for tasks in by_lane.values():
        tasks.sort(key=lambda e: ns(e["ts"]))
        waiting = False
        for e in tasks:
            if e["name"] == "Notify_Record":
                waiting = False  # a new operator starts on this plane
            elif e["name"] == "Notify_Wait":
                waiting = True
            elif e["args"]["size(Byte)"] > 0 and e["args"]["dst rank"] not in (0, INVALID):
                assert waiting
                checked += 1
    assert checked > 10


def test_the_slow_link_is_slow_in_the_file_and_in_the_truth(cluster16) -> None:
    root, truths = cluster16
    assert {t.slow_link for t in truths} == {"3-11"}  # the cluster's planted link, on every card's truth
    senders = [t.rank for t in truths if any((x["src"], x["dst"]) == (3, 11) for x in t.links)]
    assert senders == [3]
    bw: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    for rank in (3, 4, 5):
        for e in _plane_tasks(_events_of(root, rank)):
            a = e["args"]
            if a["transport type"] == "RDMA":
                row = bw[(a["src rank"], a["dst rank"])]
                row[0] += a["size(Byte)"]
                row[1] += ns(e["dur"])
    speed = {k: b / t for k, (b, t) in bw.items()}
    assert speed[(3, 11)] < 0.45 * speed[(4, 12)] and speed[(4, 12)] == pytest.approx(speed[(5, 13)], rel=0.06)
    truth = {(x["src"], x["dst"]): x for x in truths[3].links}
    assert truth[(3, 11)]["bytes"] == bw[(3, 11)][0] and truth[(3, 11)]["transit_ns"] == bw[(3, 11)][1]


def test_cli_plants_a_slow_link(tmp_path) -> None:
    out = tmp_path / "c"
    assert synth_main([str(out), "--cards", "3", "--steps", "1", "--tasks-per-step", "20", "--slow-link", "1-2",
                       "--slow-link-factor", "4"]) == 0
    truth = GroundTruth.from_json((tmp_path / "c.truth" / "rank_1.json").read_bytes())
    assert truth.slow_link == "1-2" and truth.comm_ops and truth.links
    with pytest.raises(SystemExit):
        synth_main([str(out), "--slow-link", "1to2"])


def test_every_hardware_task_typed_other(tmp_path) -> None:
    spec = CardSpec(seed=1, steps=3, tasks_per_step=200)
    real = generate_card(tmp_path / "real.json", spec)
    other = generate_card(tmp_path / "other.json", spec, options=WriteOptions(task_types="other"))
    events = load_events(tmp_path / "other.json")
    procs, threads = _names(events)
    hw = [e for e in events if e.get("ph") == "X" and procs[e["pid"]] == "Ascend Hardware"]
    assert {e["args"]["Task Type"] for e in hw} == {"Other", "other"}
    names = {e["name"] for e in hw}
    assert {"NOTIFY_WAIT", "MEMCPY_ASYNC", "REDUCE_ASYNC_V2", "MemcopyAsync", "EVENT_RECORD", "Other"} <= names
    assert {e["name"] for e in hw if e["args"]["Task Type"] == "other"} == {"MemcopyAsync"}

    def overlap_rows(path):
        evs = load_events(path)
        p, t = _names(evs)
        return sorted((t[(e["pid"], e["tid"])], ns(e["ts"]), ns(e["dur"])) for e in evs
                      if e.get("ph") == "X" and p[e["pid"]] == "Overlap Analysis")

    assert overlap_rows(tmp_path / "other.json") == overlap_rows(tmp_path / "real.json")
    assert (other.category == real.category).all() and (other.start_ns == real.start_ns).all()
    assert {other.task_types[i] for i in other.task_type[other.mask("compute")]} == {"Other"}


def test_task_types_other_needs_an_msprof_layout(tmp_path) -> None:
    with pytest.raises(ValueError, match="task_types"):
        generate_card(tmp_path / "x.json", CardSpec(steps=1), "mindspore_gen_c",
                      options=WriteOptions(task_types="other"))
