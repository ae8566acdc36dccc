"""A per-card result declared once, here and nowhere else: its rows are in the card object of ``stats --json``,
kept with the card's cache entry and read back without being computed, in a card's summary, in an SQL table of
its own and in the JSON schema, each checked against the rows this test computes by hand from the slices."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from timelineview.analysis.card_analysis import analyse_card
from timelineview.analysis.card_results.declaration import INTEGER, NUMBER, TEXT, CardResult, ResultColumn
from timelineview.analysis.card_results.registry import declare, withdraw
from timelineview.analysis.card_results.schema_fragment import shipped_schema, stats_schema
from timelineview.analysis.cluster.comparison import comparison_error
from timelineview.analysis.kept.results import MISSING, KeptResults
from timelineview.analysis.sources import SummarySource, TraceSource
from timelineview.analysis.summaries.card_summary import read_card_summary, write_card_summary
from timelineview.model import load
from timelineview.synthetic import cluster_specs, generate_cluster

NAME, SECTION, TABLE = "toy_lane_totals", "lane_totals", "toy_lane_totals"
computed: Counter = Counter()  # how often the toy's rows were computed


def _lane_totals(store, a) -> list[dict]:
    """The toy: per lane of the card, its slices, their total and mean duration (None for a lane without any)."""
    computed[store.card] += 1
    sl = store.slices
    count = [0] * len(store.lanes)
    total = [0] * len(store.lanes)
    for lane, dur in zip(sl.lane.tolist(), sl.dur.tolist(), strict=True):
        count[lane] += 1
        total[lane] += dur
    return [{"lane": store.lane_full_name(k), "count": count[k], "total_us": total[k] / 1000,
             "mean_us": total[k] / count[k] / 1000 if count[k] else None} for k in range(len(store.lanes))]


TOY = CardResult(NAME, _lane_totals, (), (
    ResultColumn("lane", TEXT, doc="the lane's full name"), ResultColumn("count", INTEGER),
    ResultColumn("total_us"), ResultColumn("mean_us", NUMBER, nullable=True)),
    section=(SECTION,), table=TABLE, table_doc="one row per lane of each card (a test's result)")


def _reference(store) -> list[dict]:
    """The toy's rows by hand: every slice of each lane, one by one."""
    rows = []
    for k in range(len(store.lanes)):
        durations = [int(d) for lane, d in zip(store.slices.lane, store.slices.dur, strict=True) if lane == k]
        rows.append({"lane": store.lane_full_name(k), "count": len(durations), "total_us": sum(durations) / 1000,
                     "mean_us": sum(durations) / len(durations) / 1000 if durations else None})
    return rows


@pytest.fixture
def toy():
    declare(TOY)
    yield TOY
    withdraw(NAME)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("declared") / "job"
    generate_cluster(out, cluster_specs(2, seed=7, steps=2, tasks_per_step=40), "msprof")
    return out


def test_the_card_object_holds_the_declared_rows(toy, cluster):
    store = load(cluster, cache=False)[0]
    a = analyse_card(store, ("document",))
    expected = _reference(store)
    assert expected and any(r["count"] for r in expected)
    assert a.document[SECTION] == expected
    assert getattr(a, NAME) == expected  # also as a field of the analysis
    assert TraceSource(store).result(NAME) == expected


def test_the_rows_are_kept_as_columns_and_read_back_without_computing(toy, cluster, tmp_path):
    cache = tmp_path / "cache"
    load(cluster, cache=cache)  # fills the card cache
    store = load(cluster, cache=cache)[0]  # a card from the cache: its analysis is kept
    computed.clear()
    first = analyse_card(store, (NAME,))
    assert computed[store.card] == 1 and getattr(first, NAME) == _reference(store)
    kept = KeptResults.of(store, first.min_gap_ns).restore(NAME, lambda other: None)
    assert kept is not MISSING
    assert kept["values"]["count"].dtype.str == "<i8" and kept["values"]["lane"] == [r["lane"] for r in
                                                                                      _reference(store)]
    again = analyse_card(load(cluster, cache=cache)[0], (NAME,))
    assert computed[store.card] == 1  # read back, not computed
    assert getattr(again, NAME) == getattr(first, NAME)
    assert [type(v) for r in getattr(again, NAME) for v in r.values()] == \
        [type(v) for r in getattr(first, NAME) for v in r.values()]  # an int stays an int, a float a float


def test_a_summary_holds_the_declared_rows(toy, cluster, tmp_path):
    store = load(cluster, cache=False)[1]
    a = analyse_card(store, ("document", "comparison_steps", "operators", "communication"))
    folder = tmp_path / "card"
    write_card_summary(folder, store, a, comparison_error(store, a.derived),
                       {"run": "r", "dir": folder.name, "key": None, "worker": "w", "sources": []})
    summary = read_card_summary(folder)
    assert summary.result(NAME) == _reference(store)
    assert SummarySource(summary, 0).result(NAME) == _reference(store)


def test_a_summary_with_rows_of_other_columns_is_refused(toy, cluster, tmp_path):
    """The summary reader checks the declared rows: a row whose count is text is that card's failure."""
    from timelineview.analysis.summaries.manifest_schema import details_problem

    store = load(cluster, cache=False)[0]
    document = json.loads(json.dumps(analyse_card(store, ("document",)).document))
    details = {"document": document, "operators": None, "communication": None, "signals": None}
    assert details_problem(details) == ""
    document[SECTION][0]["count"] = "3"
    assert "count is not a integer" in details_problem(details)


def test_the_sql_table_holds_the_declared_rows(toy, cluster):
    pytest.importorskip("duckdb")
    import timelineview

    session = timelineview.open(cluster, cache=False)
    table = session.table(TABLE)
    assert table.schema.names == ["card", "rank", "lane", "count", "total_us", "mean_us"]
    assert [str(t) for t in table.schema.types] == ["string", "int32", "string", "int64", "double", "double"]
    stores = load(cluster, cache=False)
    for store in stores:
        got = session.sql(f"select lane, count, total_us, mean_us from {TABLE} where card = '{store.card}'")
        rows = [{k: (None if v != v else v) for k, v in r.items()} for r in got.to_dict("records")]
        assert rows == _reference(store)


def test_the_schema_admits_the_declared_rows(toy, cluster):
    jsonschema = pytest.importorskip("jsonschema")
    from timelineview.analysis.session import AnalysisSession

    schema = stats_schema()
    card = schema["properties"]["cards"]["items"]
    assert card["properties"][SECTION] == {"type": "array", "items": {
        "type": "object", "properties": {"lane": {"type": "string"}, "count": {"type": "integer"},
                                         "total_us": {"type": "number"}, "mean_us": {"type": ["null", "number"]}},
        "required": ["count", "lane", "mean_us", "total_us"], "additionalProperties": False}}
    assert SECTION in card["required"]
    document = json.loads(json.dumps(AnalysisSession(load(cluster, cache=False)).stats_document()))
    assert all(SECTION in c for c in document["cards"])
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(document)) == []
    refused = list(jsonschema.Draft202012Validator(shipped_schema()).iter_errors(document))
    assert refused and all(SECTION in e.message for e in refused)  # the file as shipped has no such key


def test_withdrawn_the_result_is_nowhere(cluster):
    """Without the toy (the declarations as shipped), the card object and the tables are as before it."""
    from timelineview.api.tables import TABLES

    store = load(cluster, cache=False)[0]
    assert SECTION not in analyse_card(store, ("document",)).document
    assert TABLE not in TABLES and SECTION not in stats_schema()["properties"]["cards"]["items"]["properties"]
