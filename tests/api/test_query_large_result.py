"""A query's result is streamed, never built whole in memory: CSV and JSON print every row a batch at a time, the
text table shows the first rows and says how many were left out."""

from __future__ import annotations

import csv
import io
import re

import orjson
import pytest

from tests.api.conftest import run_cli
from timelineview.commands.query import SHOWN_ROWS
from timelineview.synthetic import CardSpec, generate_card

pytest.importorskip("duckdb")

ROWS = SHOWN_ROWS + 70_000  # more than a batch of the stream, more than the text table shows


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    trace = tmp_path_factory.mktemp("large") / "run" / "ascend_timeline_display_0.json"
    trace.parent.mkdir()
    generate_card(trace, CardSpec(rank=0, steps=2, tasks_per_step=20), target_bytes=100_000)
    return trace.parent


SQL = f"select range as n, range * 2 as twice from range({ROWS})"


def test_the_text_table_shows_the_first_rows_and_counts_the_rest(run):
    out = run_cli("query", str(run), SQL, "--no-cache")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    # the footer's counts grouped as the cells are, by the text table's one formatter (a space, never a comma)
    grouped = {n: f"{n:,}".replace(",", " ") for n in (ROWS, SHOWN_ROWS, ROWS - SHOWN_ROWS)}
    assert lines[-1] == f"({grouped[ROWS]} rows; the first {grouped[SHOWN_ROWS]} shown, " \
                        f"{grouped[ROWS - SHOWN_ROWS]} left out (--csv or --json print them all))"
    assert not re.search(r"\d,\d", lines[-1])
    body = lines[2:-1]
    assert len(body) == SHOWN_ROWS
    # the text table's one formatter groups digits in threes with a space (metrics.md): cells apart by 2+ spaces
    cells = re.split(r"\s{2,}", body[-1].strip())
    assert [int(x.replace(" ", "")) for x in cells] == [SHOWN_ROWS - 1, 2 * (SHOWN_ROWS - 1)]


def test_csv_and_json_stream_every_row(run):
    out = run_cli("query", str(run), SQL, "--no-cache", "--csv")
    assert out.returncode == 0, out.stderr
    rows = list(csv.reader(io.StringIO(out.stdout)))
    assert rows[0] == ["n", "twice"] and len(rows) == ROWS + 1
    assert rows[1:] == [[str(k), str(2 * k)] for k in range(ROWS)]
    out = run_cli("query", str(run), SQL, "--no-cache", "--json")
    assert out.returncode == 0, out.stderr
    assert orjson.loads(out.stdout) == [{"n": k, "twice": 2 * k} for k in range(ROWS)]
    empty = run_cli("query", str(run), "select 1 as one where false", "--no-cache", "--json")
    assert orjson.loads(empty.stdout) == []
