"""The memory lines of the readable ``stats`` output."""

from timelineview.analysis.memory.text import memory_text

START_NS = 1_700_000_000_000_000_000  # the cards' start on their clock: the text reads instants after it


def card(name, memory):
    return {"card": name, "start_ns": START_NS, "memory": memory}


MEMORY = {"components": {"PTA": {"peak_allocated_mb": 30.0, "peak_allocated_at_ns": START_NS + 100_000,
                                 "peak_reserved_mb": 50.0,
                                 "peak_active_mb": 30.0, "unallocated_at_peak_mb": 10.0}},
          "largest_allocations": [{"name": "op_a", "size_mb": 8.0, "allocated_at_ns": START_NS + 50_000,
                                  "released_at_ns": None}],
          "live_at_peak_component": "PTA", "live_at_peak_at_ns": START_NS + 100_000, "live_at_peak_count": 3,
          "live_at_peak_mb": 9.25,
          "load": {"dropped_rows": 2, "dropped_by_reason": {"bad time": 2}, "warnings": ["x.csv: no column Name"]}}


def test_lines_per_card_and_imbalance():
    doc = {"cards": [card("rank 0", MEMORY), card("rank 1", None), card("rank 2", MEMORY)],
           "memory_imbalance": [{"card": "rank 2", "value": 1300.0, "median": 1000.0, "z": 9.5}]}
    text = memory_text(doc)
    assert text.count("Memory of rank") == 2 and "Memory of rank 1" not in text
    assert "largest block: op_a 8.000 MB, allocated at 50.000 µs, held to the end" in text
    assert "alive at PTA's allocated peak (100.000 µs): 3 blocks, 9.250 MB" in text
    assert "2 memory row(s) dropped (2 bad time)" in text and "x.csv: no column Name" in text
    assert "Memory imbalance (peak reserved)" in text and "rank 2" in text.split("Memory imbalance")[1]


def test_nothing_without_memory():
    assert memory_text({"cards": [card("rank 0", None)]}) == ""
    assert "Memory imbalance: none." in memory_text({"cards": [card(f"rank {i}", MEMORY) for i in range(3)]})
