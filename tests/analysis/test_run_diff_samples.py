"""``diff`` on two real torch_npu captures (rank 0 of one, rank 1 of the other; ../shared/samples, skipped when
absent): the cards are matched in rank order and what changed agrees with the producer's own step table and
with the plane tasks read straight from each trace."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

import pytest

from timelineview.analysis.diff.run_diff import diff_runs
from timelineview.analysis.session import AnalysisSession
from timelineview.model import load

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples" / "torch_npu"
pytestmark = [pytest.mark.samples, pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples is absent")]
NO_RANK = 4294967295
# the producer's step table column -> our key (its Overlap Analysis, computed from the same tasks)
PRODUCER = {"Computing": "compute_us", "Communication": "communication_us",
            "Communication(Not Overlapped)": "pure_communication_us", "Free": "free_us",
            "Preparing": "step_interval_us"}


def output(rank: int) -> Path:
    return SAMPLES / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"


def producer_step(rank: int) -> dict:
    with open(output(rank) / "step_trace_time.csv", newline="") as f:
        (row,) = list(csv.DictReader(f))
    return {key: float(row[column]) for column, key in PRODUCER.items()}


def plane_links(rank: int) -> dict[str, list[float]]:
    """{"src-dst": [bytes, transit µs]} of the transfer tasks on the HCCL Plane threads, by a plain loop."""
    events = json.loads((output(rank) / "trace_view.json").read_bytes())
    events = events if isinstance(events, list) else events["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e.get("ph") == "M" and e["name"] == "thread_name"}
    out: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for e in events:
        if e.get("ph") != "X" or procs.get(e["pid"]) != "HCCL":
            continue
        if not threads.get((e["pid"], e["tid"]), "").startswith("Plane "):
            continue
        a = e["args"]
        src, dst = int(a["src rank"]), int(a["dst rank"])
        if a["size(Byte)"] > 0 and src != dst and NO_RANK not in (src, dst):
            row = out[f"{src}-{dst}"]
            row[0] += a["size(Byte)"]
            row[1] += float(e["dur"])
    return dict(out)


@pytest.fixture(scope="module")
def diff():
    return diff_runs(AnalysisSession(load([SAMPLES / "rank0_ascend_pt"])),
                     AnalysisSession(load([SAMPLES / "rank1_ascend_pt"])))


def test_rank0_against_rank1_is_one_card_pair(diff):
    assert diff.matched_by == "order"
    assert [(c.card, c.new_card) for c in diff.cards] == [("rank 0", "rank 1")]
    assert diff.notes[0] == "the runs share no rank: cards matched in rank order (rank 0 with rank 1)"
    card = diff.cards[0]
    base, new = producer_step(0), producer_step(1)
    for key in PRODUCER.values():
        assert card.base[key] == pytest.approx(base[key], rel=0.005), key
        assert card.new[key] == pytest.approx(new[key], rel=0.005), key
        assert card.delta[key] == pytest.approx(card.new[key] - card.base[key])
    assert diff.operators and any(o.delta_us for o in diff.operators)  # the cards' operators are compared


def test_links_are_matched_across_the_renamed_ranks(diff):
    base, new = plane_links(0), plane_links(1)
    # rank 0 sends to 1..7, rank 1 to 0, 2..7: with ranks 0 and 1 swapped, each link meets its counterpart
    assert {(x.key, x.new_key) for x in diff.links} == {(k, "1-0" if k == "0-1" else "1-" + k.split("-")[1])
                                                         for k in base}
    for x in diff.links:
        assert x.base.bytes == base[x.key][0] and x.new.bytes == new[x.new_key][0]
        assert x.base.transit_us == pytest.approx(base[x.key][1], abs=0.01)
        assert x.new.transit_us == pytest.approx(new[x.new_key][1], abs=0.01)
    costs = [abs(x.bandwidth_cost_us) for x in diff.links]
    assert costs == sorted(costs, reverse=True)
