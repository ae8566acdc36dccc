"""Every figure of a card's memory analysis and of the memory rules, on a small card computed by hand."""

from __future__ import annotations

import pytest

from tests.model.memory.test_memory_csv import MODULE_HEADER, OPERATOR_HEADER, RECORD_HEADER, op_row, write
from timelineview.analysis.memory import MemoryCard, analyse_memory, memory_findings
from timelineview.analysis.memory.imbalance import high_outliers, memory_imbalance, z_threshold
from timelineview.model.memory import load_memory

US = 1000  # ns
T0 = 100 * US  # the card's trace starts at 100 µs
T_END = 600 * US
STEPS = [(1, 100 * US, 250 * US), (2, 250 * US, 500 * US)]


@pytest.fixture
def memory(tmp_path):
    write(tmp_path, "memory_record.csv", RECORD_HEADER, [
        "APP,50\t,,100,,,NPU:0",
        "PTA,100\t,10,20,10,1,NPU:0",
        "GE,150\t,2,4,,,NPU:0",
        "PTA,200\t,30,40,25,1,NPU:0",  # PTA's allocated peak (first of two)
        "PTA,300\t,30,50,30,1,NPU:0",
        "GE,350\t,3,3.5,,,NPU:0",
        "PTA,400\t,5,50,5,1,NPU:0",
        "APP,450\t,,120,,,NPU:0",
    ])
    write(tmp_path, "operator_memory.csv", OPERATOR_HEADER, [
        op_row("op_a", "8192", "150", "250"),
        op_row("op_b", "1024", "200", ""),  # never released
        op_row("op_c", "2048", "200", "200"),  # released at the peak: not alive then
        op_row("cann::x", "256", "190", "210", stream=""),
        op_row("op_e", "4096", "210", "300"),  # allocated after the peak
    ])
    write(tmp_path, "npu_module_mem.csv", MODULE_HEADER, [
        "SLOG,100\t,0,NPU:0", "HCCL,120\t,10,NPU:0", "HCCL,130\t,20,NPU:0", "HCCL,140\t,20,NPU:0",
        "RUNTIME,100\t,5,NPU:0"])
    (tmp_path / "trace_view.json").write_text("[]")
    records = load_memory([tmp_path / "trace_view.json"])
    return analyse_memory("rank 0", records, T0, STEPS)


def test_component_peaks(memory):
    doc = memory.document()
    assert list(doc["components"]) == ["APP", "PTA", "GE"]
    pta = doc["components"]["PTA"]
    # instants in ns on the card's clock (µs after its start T0 before the one time base of metrics.md §5)
    assert pta == {"peak_allocated_mb": 30.0, "peak_allocated_at_ns": T0 + 100 * US, "peak_reserved_mb": 50.0,
                   "peak_reserved_at_ns": T0 + 200 * US, "peak_active_mb": 30.0, "reserved_at_peak_mb": 40.0,
                   "unallocated_at_peak_mb": 10.0}
    ge = doc["components"]["GE"]
    assert ge["peak_allocated_mb"] == 3.0 and ge["peak_allocated_at_ns"] == T0 + 250 * US
    assert ge["peak_reserved_mb"] == 4.0
    assert ge["peak_active_mb"] is None and ge["unallocated_at_peak_mb"] == 0.5
    app = doc["components"]["APP"]
    assert app["peak_allocated_mb"] is None and app["peak_reserved_mb"] == 120.0
    assert app["peak_reserved_at_ns"] == T0 + 350 * US
    assert doc["peak_reserved_mb"] == 50.0 and doc["peak_reserved_component"] == "PTA"  # no PTA+GE here


def test_per_step_peaks_include_the_value_in_force_at_the_start(memory):
    steps = memory.document()["per_step"]
    assert [s["step"] for s in steps] == [1, 2]
    one, two = steps[0]["components"], steps[1]["components"]
    assert one["PTA"] == {"peak_allocated_mb": 30.0, "peak_reserved_mb": 40.0}
    assert one["GE"] == {"peak_allocated_mb": 2.0, "peak_reserved_mb": 4.0}
    assert one["APP"] == {"peak_allocated_mb": None, "peak_reserved_mb": 100.0}  # recorded at 50, before the step
    assert two["PTA"] == {"peak_allocated_mb": 30.0, "peak_reserved_mb": 50.0}  # 30 in force at 250
    assert two["GE"] == {"peak_allocated_mb": 3.0, "peak_reserved_mb": 4.0}
    assert two["APP"] == {"peak_allocated_mb": None, "peak_reserved_mb": 120.0}


def test_largest_and_alive_at_peak(memory):
    doc = memory.document()
    assert [(r["name"], r["size_mb"]) for r in doc["largest_allocations"]] == [
        ("op_a", 8.0), ("op_e", 4.0), ("op_c", 2.0), ("op_b", 1.0), ("cann::x", 0.25)]
    a = doc["largest_allocations"][0]
    assert a["allocated_at_ns"] == T0 + 50 * US and a["released_at_ns"] == T0 + 150 * US and a["component"] == "PTA"
    assert doc["largest_allocations"][3]["released_at_ns"] is None
    assert doc["live_at_peak_component"] == "PTA" and doc["live_at_peak_at_ns"] == T0 + 100 * US
    assert [r["name"] for r in doc["live_at_peak"]] == ["op_a", "op_b", "cann::x"]
    assert doc["live_at_peak_count"] == 3 and doc["live_at_peak_mb"] == 9.25
    # the interval index gives the same blocks at every instant
    for t_us in range(0, 600, 5):
        assert memory.alive_at(t_us * US).tolist() == memory.alive_at_scan(t_us * US).tolist()


def test_modules(memory):
    assert memory.document()["modules"] == [{"name": "HCCL", "peak_reserved_mb": 20.0, "peak_at_ns": T0 + 30 * US},
                                            {"name": "RUNTIME", "peak_reserved_mb": 5.0, "peak_at_ns": T0}]


def test_large_allocation_and_fragmentation(memory):
    found = {f.rule: f for f in memory_findings([MemoryCard("rank 0", memory, T0, T_END, ((100 * US, 250 * US),
                                                                                              (250 * US, 500 * US)))])}
    assert set(found) == {"large_allocation", "fragmentation"}  # GE: 0.25 of 3 MB, 0.5 of 3.5 MB: below
    big = found["large_allocation"]
    assert big.value == 8.0 and big.reference == pytest.approx(3.0) and big.cards == ["rank 0"]
    assert [(e.start_ns, e.end_ns, e.name) for e in big.evidence] == [(T0 + 50 * US, T0 + 150 * US, "op_a")]
    assert "op_a" in big.advice and "recomputation" in big.advice
    frag = found["fragmentation"]
    assert frag.value == 10.0 and frag.reference == pytest.approx(8.0)  # 20 % of the 40 MB reserved at the peak
    assert [(e.start_ns, e.end_ns) for e in frag.evidence] == [(T0, T0 + 150 * US)]  # the step holding the peak


def test_no_records_no_memory(tmp_path):
    (tmp_path / "trace_view.json").write_text("[]")
    assert analyse_memory("rank 0", load_memory([tmp_path / "trace_view.json"]), 0) is None


def test_unreadable_records_still_reported(tmp_path):
    write(tmp_path, "memory_record.csv", "Component", ["PTA"])
    (tmp_path / "trace_view.json").write_text("[]")
    m = analyse_memory("rank 0", load_memory([tmp_path / "trace_view.json"]), 0)
    doc = m.document()
    assert doc["components"] == {} and "no column Timestamp(us)" in doc["load"]["warnings"][0]


# ------------------------------------------------------------------------------- memory_imbalance
def test_z_threshold_grows_with_the_number_of_cards():
    assert z_threshold(8) == pytest.approx(3.02, abs=0.01)
    assert z_threshold(64) == pytest.approx(3.6, abs=0.01)  # metrics.md §4: 3.0, 3.6, 4.3
    assert z_threshold(1024) == pytest.approx(4.3, abs=0.05)


def test_imbalance_by_hand():
    # median 1000, |deviations| sorted 0 0 0 1 1 2 2 300: MAD 1, z(1300) = 300 / 1.4826 = 202 > 3.02
    values = [1000, 1001, 999, 1000, 1002, 998, 1000, 1300]
    flags = memory_imbalance([f"rank {i}" for i in range(8)], values)
    assert [f["card"] for f in flags] == ["rank 7"]
    assert flags[0]["median"] == 1000.0 and flags[0]["z"] == pytest.approx(300 / 1.4826)
    # 1002: z = 1.35, and 2 MB is below the practical size anyway
    assert [o.index for o in high_outliers(values)] == [7]


def test_imbalance_practical_size_alone_when_mad_is_zero():
    assert [f["card"] for f in memory_imbalance(list("abcd"), [1000, 1000, 1000, 1060])] == ["d"]  # 60 ≥ 50
    assert memory_imbalance(list("abcd"), [1000, 1000, 1000, 1040]) == []  # 40 < 5 % of 1000
    assert memory_imbalance(list("abcd"), [100, 100, 100, 110]) == []  # 10 MB < the 16 MB floor
    assert memory_imbalance(list("ab"), [1000, 2000]) == []  # needs 3 cards


def test_a_failing_reader_is_a_warning_not_an_error(tmp_path, monkeypatch):
    from types import SimpleNamespace

    import timelineview.analysis.memory.stage as stage

    def broken(paths):
        raise ValueError("boom")

    monkeypatch.setattr(stage, "load_memory", broken)
    store = SimpleNamespace(card="rank 0", paths=[tmp_path / "trace_view.json"], t_origin=0)
    doc = stage.card_memory(store, []).document()
    assert doc["components"] == {} and doc["load"]["warnings"] == ["memory records not analysed: ValueError: boom"]
