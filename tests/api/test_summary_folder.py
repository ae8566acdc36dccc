"""A summary folder (``timelineview summarize``) through the API and ``query``: no trace, so the loaded
tables are empty with their columns, and the analysis tables are those of its ``stats --json``."""

from __future__ import annotations

import orjson
import pytest

from tests.api.conftest import run_cli

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def summary(sample_path, tmp_path_factory):
    from timelineview.distributed.summarize import summarize

    out = tmp_path_factory.mktemp("summary") / "sample"
    summarize(sample_path, out, workers=1, progress=None, note=None)
    return out


def test_a_summary_opens_with_its_documents_tables(summary):
    import timelineview
    from timelineview.api.tables import TABLES

    out = run_cli("stats", str(summary), "--json")
    assert out.returncode == 0, out.stderr
    doc = orjson.loads(out.stdout)
    run = timelineview.open(summary)
    assert [c.card for c in run.cards] == [c["card"] for c in doc["cards"]]
    assert run.stores == []
    for name in ("slices", "counters", "flows", "instants"):
        table = run.table(name)
        assert table.num_rows == 0 and table.schema == TABLES[name].arrow_schema()
    want = [(c["card"], s["step"], s["dur_us"]) for c in doc["cards"] for s in c["steps"]]
    assert list(run.steps()[["card", "step", "dur_us"]].itertuples(index=False, name=None)) == want
    assert len(run.comm_ops()) == sum(len(c["communication"]["comm_ops"]) for c in doc["cards"])
    assert len(run.steps("rank 2")) == len(doc["cards"][2]["steps"])


def test_query_on_a_summary(summary):
    out = run_cli("query", str(summary), "select card, sum(wait_us) as wait from comm_ops group by card "
                  "order by card", "--json")
    assert out.returncode == 0, out.stderr
    doc = orjson.loads(run_cli("stats", str(summary), "--json").stdout)
    want = [{"card": c["card"], "wait": sum(o["wait_us"] for o in c["communication"]["comm_ops"])}
            for c in sorted(doc["cards"], key=lambda c: c["card"])]
    got = orjson.loads(out.stdout)
    assert [r["card"] for r in got] == [w["card"] for w in want]
    assert [r["wait"] for r in got] == pytest.approx([w["wait"] for w in want], rel=1e-12)
