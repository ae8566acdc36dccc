"""``timelineview.open``: the tables hold what the stores hold and what ``stats --json`` says."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import orjson
import pytest

from tests.api.conftest import ROOT, run_cli


def test_slices_are_the_store_columns(sample):
    df = sample.slices()
    assert list(df.columns) == ["card", "rank", "process", "thread", "name", "category", "start_ns", "dur_ns",
                                "end_ns", "depth", "id"]
    assert str(df["name"].dtype) == "category"
    assert len(df) == sum(len(s.slices) for s in sample.stores)
    for store in sample.stores:
        rows = df[df["card"] == store.card]
        s = store.slices
        assert (rows["rank"] == store.rank).all()
        np.testing.assert_array_equal(rows["start_ns"].to_numpy(), s.start)
        np.testing.assert_array_equal(rows["dur_ns"].to_numpy(), s.dur)
        np.testing.assert_array_equal(rows["end_ns"].to_numpy(), s.start + s.dur)
        np.testing.assert_array_equal(rows["depth"].to_numpy(), s.depth)
        np.testing.assert_array_equal(rows["id"].to_numpy(), np.arange(len(s)))
        assert rows["name"].astype(str).tolist() == [store.strings[i] for i in s.name]
        assert [None if isinstance(c, float) else c for c in rows["category"].astype(object).tolist()] == \
            [store.strings[i] if i >= 0 else None for i in s.cat]
        assert rows["thread"].astype(str).tolist() == [store.lanes.name[ln] for ln in s.lane]
        assert rows["process"].astype(str).tolist() == \
            [store.processes.name[store.lanes.process[ln]] for ln in s.lane]


def test_slices_arrow_shares_the_store_buffers(sample):
    store = sample.stores[sample.order[0]]
    table = sample.slices_arrow(store.card)
    assert table.num_rows == len(store.slices)
    [start] = table["start_ns"].chunks
    [depth] = table["depth"].chunks
    assert start.buffers()[1].address == store.slices.start.ctypes.data  # no copy
    assert depth.buffers()[1].address == store.slices.depth.ctypes.data
    [name] = table["name"].chunks
    assert name.indices.buffers()[1].address == store.slices.name.ctypes.data
    assert name.dictionary.to_pylist() == store.strings


def test_a_card_by_name_or_by_rank(sample):
    store = sample.stores[sample.order[2]]
    assert len(sample.slices(store.card)) == len(store.slices)
    assert len(sample.slices(store.rank)) == len(store.slices)
    assert set(sample.steps(store.card)["card"]) == {store.card}
    with pytest.raises(KeyError, match="no card"):
        sample.slices("rank 99")
    assert [c.card for c in sample.cards] == ["rank 0", "rank 1", "rank 2", "rank 3"]


def test_a_card_as_the_session_lists_it(sample):
    card = sample.cards[2]
    store = sample.stores[card.number]
    assert len(sample.slices(card)) == len(store.slices)
    assert set(sample.steps(card)["card"]) == {card.card}


def test_counters_and_flows_are_the_store_columns(sample):
    counters, flows = sample.counters(), sample.flows()
    for store in sample.stores:
        c = counters[counters["card"] == store.card]
        np.testing.assert_array_equal(c["ts_ns"].to_numpy(), store.counters.ts)
        np.testing.assert_array_equal(c["value"].to_numpy(), store.counters.value)
        sizes = np.diff(store.counters.offsets)
        assert c["series"].astype(str).tolist() == [n for n, k in zip(store.counters.series_name, sizes)
                                                     for _ in range(k)]
        f = flows[flows["card"] == store.card]
        np.testing.assert_array_equal(f["src_ts_ns"].to_numpy(), store.flows.src_ts)
        bound = store.flows.dst_slice >= 0
        assert f["dst_slice"].isna().sum() == (~bound).sum()
        np.testing.assert_array_equal(f["dst_slice"].to_numpy()[bound].astype(np.int64), store.flows.dst_slice[bound])


def test_stats_is_the_stats_json_document(sample, stats_json):
    assert orjson.loads(orjson.dumps(sample.stats(), option=orjson.OPT_SERIALIZE_NUMPY)) == stats_json


def test_analysis_tables_hold_the_documents_numbers(sample, stats_json):
    steps = sample.steps()
    want = [(c["card"], s["step"], s["dur_us"], s["free_us"]) for c in stats_json["cards"] for s in c["steps"]]
    assert list(steps[["card", "step", "dur_us", "free_us"]].itertuples(index=False, name=None)) == want
    ops = sample.operators()
    want = [(c["card"], o["name"], o["count"], o["total_us"]) for c in stats_json["cards"]
            for o in c["operators"]["by_name"]]
    assert list(ops[["card", "name", "count", "total_us"]].itertuples(index=False, name=None)) == want
    comm = sample.comm_ops()
    want = [(c["card"], o["name"], o["wait_us"]) for c in stats_json["cards"] for o in c["communication"]["comm_ops"]]
    assert list(comm[["card", "name", "wait_us"]].itertuples(index=False, name=None)) == want
    want = [(o["plane"], o["all_planes"]["wait_us"]) for c in stats_json["cards"]
            for o in c["communication"]["comm_ops"]]
    assert list(comm[["plane", "all_planes_wait_us"]].itertuples(index=False, name=None)) == want
    got = [(r["card"], r["name"], r["transport"], r["bytes"], r["bandwidth_gbps"])
           for r in sample.table("comm_bandwidth").to_pylist()]
    want = [(c["card"], o["name"], b["transport"], b["bytes"], b["bandwidth_gbps"]) for c in stats_json["cards"]
            for o in c["communication"]["comm_ops"] for b in o["bandwidth"]]
    assert got == want  # none in this sample (its copies are all on-chip); tests/analysis/communication has them
    got = [(r["card"], r["transport"], r["size_bytes"], r["count"]) for r in sample.table("comm_packets").to_pylist()]
    want = [(c["card"], b["transport"], p["size_bytes"], p["count"]) for c in stats_json["cards"]
            for o in c["communication"]["comm_ops"] for b in o["bandwidth"] for p in b["packets"]]
    assert got == want
    got = [(r["card"], r["link"], r["bytes"]) for r in sample.table("local_links").to_pylist()]
    want = [(c["card"], x["link"], x["bytes"]) for c in stats_json["cards"] for x in c["communication"]["local_links"]]
    assert got == want and want
    links = sample.links()
    assert links["bandwidth_gbps"].tolist() == [x["bandwidth_gbps"] for x in stats_json["links"]]
    findings = sample.findings()
    assert findings["rule"].tolist() == [f["rule"] for f in stats_json["findings"]]
    assert [list(x) for x in findings["cards"]] == [f["cards"] for f in stats_json["findings"]]
    # the evidence spans are ns on the card's clock in the document and in SQL alike (from the card's start on;
    # a step's span may end after the card's last slice)
    start = {c["card"]: c["start_ns"] for c in stats_json["cards"]}
    want = [[{"card": e["card"], "lane": e.get("lane"), "start_ns": e["start_ns"], "end_ns": e["end_ns"]}
             for e in f["evidence"]] for f in stats_json["findings"]]
    assert all(isinstance(e["start_ns"], int) and start[e["card"]] <= e["start_ns"] <= e["end_ns"]
               for f in stats_json["findings"] for e in f["evidence"]) and any(want)
    got = [[{k: span.get(k) for k in ("card", "lane", "start_ns", "end_ns")} for span in orjson.loads(e)]
           for e in findings["evidence"]]
    assert got == want
    cards = sample.card_metrics()
    assert cards["compute_us"].tolist() == [c["compute_us"] for c in stats_json["cards"]]


def test_document_columns_are_every_key_of_the_document(sample, stats_json):
    # a key the document gains is a column the tables must gain (and docs/sql.md with them)
    card = stats_json["cards"][0]
    # (memory is an object, null in a capture without memory records: the memory tables hold it)
    scalar = {k for k, v in card.items() if not isinstance(v, (dict, list))} - {"memory"}
    assert scalar == set(sample.table("cards").column_names)
    assert {k for s in card["steps"] for k in s} | {"card", "rank"} == set(sample.table("steps").column_names)
    assert set(card["operators"]["by_name"][0]) | {"card", "rank"} == set(sample.table("operators").column_names)
    # (an operator's all_planes object is flattened into all_planes_<figure> columns; its bandwidth is the
    # comm_bandwidth table, one row per transport, and comm_packets, one row per transfer size)
    op = card["communication"]["comm_ops"][0]
    flat = (set(op) - {"all_planes", "bandwidth"}) | {f"all_planes_{k}" for k in op["all_planes"]}
    assert flat | {"card", "rank"} == set(sample.table("comm_ops").column_names)
    # (the sample's copies are all on-chip: no operator has a bandwidth row, so its keys come from the schema)
    schema = json.loads((ROOT / "timelineview" / "schemas" / "stats.schema.json").read_text(encoding="utf-8"))
    comm_schema = schema["properties"]["cards"]["items"]["properties"]["communication"]["properties"]
    bandwidth = comm_schema["comm_ops"]["items"]["properties"]["bandwidth"]["items"]["properties"]
    assert set(op["bandwidth"][0] if op["bandwidth"] else bandwidth) == set(bandwidth)
    assert (set(bandwidth) - {"packets"}) | {"card", "rank", "name", "start_ns"} == \
        set(sample.table("comm_bandwidth").column_names)
    assert set(bandwidth["packets"]["items"]["properties"]) | {"card", "rank", "name", "start_ns", "transport"} == \
        set(sample.table("comm_packets").column_names)
    assert set(card["communication"]["local_links"][0]) | {"card", "rank"} == \
        set(sample.table("local_links").column_names)
    assert set(stats_json["links"][0]) == set(sample.table("links").column_names)
    assert set(stats_json["findings"][0]) == set(sample.table("findings").column_names)


def test_sql_group_by_name_is_the_sums_of_the_columns(sample):
    got = sample.sql("select card, name, count(*) n, sum(dur_ns) total from slices group by card, name")
    got = {(r.card, r.name): (r.n, int(r.total)) for r in got.itertuples()}
    want = {}
    for store in sample.stores:
        counts = np.bincount(store.slices.name, minlength=len(store.strings))
        totals = np.bincount(store.slices.name, weights=store.slices.dur, minlength=len(store.strings))
        for i in np.flatnonzero(counts):
            want[(store.card, store.strings[i])] = (int(counts[i]), int(totals[i]))
    assert got == want


def test_diff_is_the_diff_json_document(sample, sample_path):
    import timelineview

    new_path = sample_path / "rank1_ascend_pt"
    new = timelineview.open(new_path, cache=False)
    out = run_cli("diff", str(sample_path), str(new_path), "--json")
    assert out.returncode == 0, out.stderr
    assert orjson.loads(orjson.dumps(sample.diff(new), option=orjson.OPT_SERIALIZE_NUMPY)) == orjson.loads(out.stdout)


def test_a_missing_extra_is_one_line_naming_it(sample, monkeypatch):
    from timelineview.api import MissingExtra, Session

    monkeypatch.setitem(sys.modules, "pyarrow", None)  # an import of it fails, as when it is not installed
    with pytest.raises(MissingExtra) as info:
        Session(sample.stores).slices()
    assert "timelineview[api]" in str(info.value) and "\n" not in str(info.value)


def test_importing_the_package_stays_cheap():
    code = ("import sys, timelineview, timelineview.api; "
            "print(sorted(m for m in ('PySide6', 'pandas', 'pyarrow', 'duckdb') if m in sys.modules)); "
            "print(callable(timelineview.open))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.split() == ["[]", "True"], out.stderr


def test_nothing_readable_and_missing_paths_raise(tmp_path):
    import timelineview
    from timelineview.api import NothingReadable

    with pytest.raises(FileNotFoundError):
        timelineview.open(tmp_path / "nope.json")
    (tmp_path / "empty.json").write_text("[]")
    with pytest.raises(NothingReadable, match="nothing readable"):
        timelineview.open(tmp_path / "empty.json", cache=False)


def test_sql_sees_absent_categories_as_null(sample):
    got = sample.sql("select card, count(*) as n from slices where category is null group by card")
    want = {s.card: int((s.slices.cat < 0).sum()) for s in sample.stores if (s.slices.cat < 0).any()}
    assert want and dict(zip(got["card"].astype(str), got["n"])) == want


def test_the_producers_bandwidth_and_local_links_are_tables(tmp_path):
    """comm_bandwidth, comm_packets and local_links hold the stats document's per-operator bandwidth rows,
    packet sizes and LOCAL links, on a generated cluster that has them."""
    import timelineview
    from timelineview.synthetic import cluster_specs, generate_cluster

    generate_cluster(tmp_path, cluster_specs(3, seed=2, steps=1, tasks_per_step=30))
    run = timelineview.open(tmp_path, cache=False)
    doc = orjson.loads(orjson.dumps(run.stats(), option=orjson.OPT_SERIALIZE_NUMPY))
    ops = [(c["card"], o) for c in doc["cards"] for o in c["communication"]["comm_ops"]]
    got = [(r["card"], r["name"], r["start_ns"], r["transport"], r["bytes"], r["transit_us"], r["count"],
            r["bandwidth_gbps"], r["large_packet_ratio"]) for r in run.table("comm_bandwidth").to_pylist()]
    want = [(card, o["name"], o["start_ns"], b["transport"], b["bytes"], b["transit_us"], b["count"],
             b["bandwidth_gbps"], b["large_packet_ratio"]) for card, o in ops for b in o["bandwidth"]]
    assert got == want and len(want) >= 2 * len(ops)  # each collective: its link type and the SDMA total
    got = [(r["card"], r["name"], r["transport"], r["size_bytes"], r["count"], r["transit_us"])
           for r in run.table("comm_packets").to_pylist()]
    want = [(card, o["name"], b["transport"], p["size_bytes"], p["count"], p["transit_us"]) for card, o in ops
            for b in o["bandwidth"] for p in b["packets"]]
    assert got == want and want
    got = [(r["card"], r["link"], r["transport"], r["bytes"], r["count"]) for r in run.table("local_links").to_pylist()]
    want = [(c["card"], x["link"], "LOCAL", x["bytes"], x["count"]) for c in doc["cards"]
            for x in c["communication"]["local_links"]]
    assert got == want and len(want) == 3


def test_sql_steps_give_both_free_times_of_the_stats_document(tmp_path):
    """steps.free_us is the producer's Free and steps.window_free_us the step window's, as in stats --json; the
    window's free time holds the step interval, so it is never below the producer's Free."""
    import timelineview
    from timelineview.synthetic import cluster_specs, generate_cluster

    generate_cluster(tmp_path, cluster_specs(2, seed=3, steps=2, tasks_per_step=30))
    run = timelineview.open(tmp_path, cache=False)
    doc = orjson.loads(orjson.dumps(run.stats(), option=orjson.OPT_SERIALIZE_NUMPY))
    want = [(c["card"], s["step"], s["start_ns"], s["free_us"], s["window_free_us"]) for c in doc["cards"]
            for s in c["steps"]]
    got = [(r["card"], r["step"], r["start_ns"], r["free_us"], r["window_free_us"])
           for r in run.table("steps").to_pylist()]
    assert got == want and len(want) == 4
    assert all(w >= f - 1e-9 for *_, f, w in got)
