"""The ``memory`` and ``allocations`` tables hold each card's memory figures of ``stats --json`` (§11)."""

from __future__ import annotations

import timelineview
from timelineview.synthetic import cluster_specs, generate_cluster
from timelineview.synthetic.memory import MemorySpec, write_cluster_memory


def test_memory_tables_are_the_documents_memory(tmp_path):
    truths = generate_cluster(tmp_path, cluster_specs(3, seed=2, steps=2, tasks_per_step=40), "msprof")
    write_cluster_memory(truths, MemorySpec(seed=2, imbalance_card=1))
    run = timelineview.open(tmp_path, cache=False)
    cards = run.stats()["cards"]
    want = sorted((c["card"], name, p["peak_allocated_mb"], p["peak_reserved_mb"])
                  for c in cards for name, p in c["memory"]["components"].items())
    got = run.sql("select card, component, peak_allocated_mb, peak_reserved_mb from memory")
    # a figure the records never give (APP's allocated: the trace's counters give reserved only) is null there
    assert sorted(tuple(None if v != v else v for v in row) for row in got.itertuples(index=False, name=None)) == want
    # the document's peaks and their instants, ns on the card's clock in the document and in SQL alike
    figures = set(next(iter(cards[0]["memory"]["components"].values())))
    assert set(run.table("memory").column_names) == {"card", "rank", "component", *figures}
    peaks = run.sql("select card, component, peak_reserved_at_ns from memory")
    assert sorted(peaks.itertuples(index=False, name=None)) == sorted(
        (c["card"], name, p["peak_reserved_at_ns"])
        for c in cards for name, p in c["memory"]["components"].items())
    largest = run.frame("allocations")
    assert list(largest[["card", "name", "size_mb"]].itertuples(index=False, name=None)) == [
        (c["card"], a["name"], a["size_mb"]) for c in cards for a in c["memory"]["largest_allocations"]]
    # SQL gives instants as ns on the card's clock, as the document does: integers, after the card's start
    at_ns = [a["allocated_at_ns"] for c in cards for a in c["memory"]["largest_allocations"]]
    assert all(isinstance(t, int) for t in at_ns)
    span = {c["card"]: (c["start_ns"], c["start_ns"] + round(c["span_us"] * 1000)) for c in cards}
    assert all(span[c["card"]][0] <= a["allocated_at_ns"] <= span[c["card"]][1]  # on the card's clock, in its trace
               for c in cards for a in c["memory"]["largest_allocations"])
    assert sorted(largest["allocated_at_ns"].tolist()) == sorted(at_ns)
    live = {a["allocated_at_ns"] for c in cards for a in c["memory"]["live_at_peak"]}
    assert {(r.card, r.name, r.allocated_at_ns) for r in largest.itertuples() if r.live_at_peak} == \
        {(r.card, r.name, r.allocated_at_ns) for r in largest.itertuples() if r.allocated_at_ns in live}
    assert any(largest["live_at_peak"])
    biggest = run.sql("select card from memory where component = 'PTA' order by peak_reserved_mb desc limit 1")
    assert biggest["card"].tolist() == ["rank 1"]
