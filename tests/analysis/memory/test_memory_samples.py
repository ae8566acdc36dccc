"""The memory analysis equals the producer's own records on the real samples (skipped when absent).

The references are computed here with ``csv`` and ``Decimal`` (and SQL over the databases), not with
the readers under test.
"""

from __future__ import annotations

import csv
import json
import shutil
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from timelineview.analysis.summary import card_document
from timelineview.model import load

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples"
pytestmark = [pytest.mark.samples,
              pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples is absent")]
RANKS = (0, 1)
MB = 1 << 20


def output(rank: int) -> Path:
    return SAMPLES / "torch_npu" / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"


def rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return [{k.strip(): v.strip() for k, v in r.items()} for r in csv.DictReader(f)]


def micros(text: str) -> Decimal:
    return Decimal(text.strip())


@pytest.fixture(scope="module", params=RANKS)
def card(request):
    rank = request.param
    [store] = load(output(rank) / "trace_view.json")
    return rank, store, card_document(store)["memory"]


def test_peaks_are_the_max_of_memory_record(card):
    rank, store, memory = card
    records = rows(output(rank) / "memory_record.csv")
    components = {r["Component"] for r in records}
    assert set(memory["components"]) == components | {"DEVICE"}  # the trace's Device counters add DEVICE
    for name in components:
        mine = [r for r in records if r["Component"] == name]
        got = memory["components"][name]
        for column, key in (("Total Allocated(MB)", "peak_allocated_mb"), ("Total Reserved(MB)", "peak_reserved_mb"),
                            ("Total Active(MB)", "peak_active_mb")):
            given = [Decimal(r[column]) for r in mine if r[column]]
            assert got[key] == (float(max(given)) if given else None), (name, column)
        given = [(Decimal(r["Total Allocated(MB)"]), micros(r["Timestamp(us)"])) for r in mine
                 if r["Total Allocated(MB)"]]
        if given:
            top = max(v for v, _ in given)
            first = min(t for v, t in given if v == top)
            assert got["peak_allocated_at_ns"] == int(first * 1000)  # ns on the card's clock, exact


def npu_mem_counters(rank: int) -> dict[str, list[tuple[Decimal, Decimal]]]:
    """The trace's NPU MEM counters by name: (µs, KB) samples, read with ``json`` here."""
    events = json.loads((output(rank) / "trace_view.json").read_text(encoding="utf-8"))
    pids = {e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
            and e["args"]["name"] == "NPU MEM"}
    out: dict[str, list[tuple[Decimal, Decimal]]] = {}
    for e in events:
        if e.get("ph") == "C" and e["pid"] in pids:
            out.setdefault(e["name"], []).append((Decimal(e["ts"]), Decimal(str(e["args"]["KB"]))))
    return out


def test_device_memory_is_the_traces_counter_and_app_the_records(card):
    rank, store, memory = card
    counters = npu_mem_counters(rank)
    device = counters["Device/Memory"]
    top = max(kb for _, kb in device)
    first = min(t for t, kb in device if kb == top)
    got = memory["components"]["DEVICE"]
    assert got["peak_reserved_mb"] == float(top / 1024) and got["peak_allocated_mb"] is None
    assert got["peak_reserved_at_ns"] == int(first * 1000)
    assert "trace counters (NPU MEM)" in memory["sources"]
    # APP is in the records: they win; the trace's APP/Memory counter says the same figure
    app = [Decimal(r["Total Reserved(MB)"]) for r in rows(output(rank) / "memory_record.csv")
           if r["Component"] == "APP"]
    assert memory["components"]["APP"]["peak_reserved_mb"] == float(max(app))
    assert max(kb for _, kb in counters["APP/Memory"]) / 1024 == max(app)


@pytest.mark.parametrize("rank", RANKS)
def test_the_trace_alone_gives_the_producers_app_memory(tmp_path, rank):
    # the trace without its memory files: its counters give APP's reserved memory as memory_record.csv does
    shutil.copy(output(rank) / "trace_view.json", tmp_path / "trace_view.json")
    [store] = load(tmp_path / "trace_view.json", cache=False)
    memory = card_document(store)["memory"]
    assert set(memory["components"]) == {"APP", "DEVICE"} and memory["sources"] == ["trace counters (NPU MEM)"]
    app = [(Decimal(r["Total Reserved(MB)"]), micros(r["Timestamp(us)"]))
           for r in rows(output(rank) / "memory_record.csv") if r["Component"] == "APP"]
    top = max(v for v, _ in app)
    first = min(t for v, t in app if v == top)
    got = memory["components"]["APP"]
    assert got["peak_reserved_mb"] == float(top) and memory["peak_reserved_mb"] == float(top)
    assert got["peak_reserved_at_ns"] == int(first * 1000)
    assert got["peak_allocated_mb"] is None and memory["live_at_peak"] is None
    assert memory["largest_allocations"] is None and memory["allocations"] == 0


def test_largest_allocation_is_operator_memory_largest(card):
    rank, _, memory = card
    ops = rows(output(rank) / "operator_memory.csv")
    largest = max(Decimal(r["Size(KB)"]) for r in ops)
    assert memory["allocations"] == len(ops)
    assert Decimal(str(memory["largest_allocations"][0]["size_mb"])) * 1024 == largest
    sizes = sorted((Decimal(r["Size(KB)"]) for r in ops), reverse=True)[:20]
    assert [Decimal(str(r["size_mb"])) * 1024 for r in memory["largest_allocations"]] == sizes


def test_alive_at_peak_are_those_the_csv_says(card):
    rank, store, memory = card
    records = [r for r in rows(output(rank) / "memory_record.csv") if r["Component"] == "PTA"]
    top = max(Decimal(r["Total Allocated(MB)"]) for r in records)
    t_peak = min(micros(r["Timestamp(us)"]) for r in records if Decimal(r["Total Allocated(MB)"]) == top)
    alive = [r for r in rows(output(rank) / "operator_memory.csv")
             if micros(r["Allocation Time(us)"]) <= t_peak
             and (not r["Release Time(us)"] or micros(r["Release Time(us)"]) > t_peak)]
    assert memory["live_at_peak_count"] == len(alive) > 0
    want = sorted(((Decimal(r["Size(KB)"]), r["Name"]) for r in alive), key=lambda x: -x[0])
    got = [(Decimal(str(r["size_mb"])) * 1024, r["name"]) for r in memory["live_at_peak"]]
    assert len(got) == len(want)  # every one is listed (fewer than LIVE_LISTED on these captures)
    assert [s for s, _ in got] == [s for s, _ in want]  # by size
    assert sorted(got) == sorted(want)
    assert memory["live_at_peak_mb"] == pytest.approx(float(sum(s for s, _ in want)) / 1024)


def _databases() -> list[Path]:
    pattern = "level*/rank*_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_*.db"
    return sorted((SAMPLES / "torch_npu_db").glob(pattern))


@pytest.mark.parametrize("path", _databases(), ids=lambda p: "/".join(p.parts[-4:-2]))
def test_database_peaks_and_largest_equal_sql(path):
    from timelineview.analysis.memory import analyse_memory
    from timelineview.model.memory import load_memory

    memory = analyse_memory("card", load_memory([path]), 0).document()
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    names = dict(db.execute("SELECT id, value FROM STRING_IDS"))
    for comp, alloc, reserved in db.execute(
            "SELECT component, max(totalAllocated), max(totalReserved) FROM MEMORY_RECORD GROUP BY component"):
        got = memory["components"][names[comp]]
        assert got["peak_allocated_mb"] == alloc / MB and got["peak_reserved_mb"] == reserved / MB
    [(largest, count)] = db.execute("SELECT max(size), count(*) FROM OP_MEMORY")
    assert memory["largest_allocations"][0]["size_mb"] == largest / MB and memory["allocations"] == count
    assert memory["load"]["dropped_rows"] == 0
