"""One vocabulary: every surface that shows a quantity spells it as the package declares it once
(timelineview/analysis/vocabulary). A surface that names a quantity its own way — another key, another label,
another definition, an instant in another time base — fails here."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from timelineview.analysis.vocabulary import UNIT_SUFFIX, VOCABULARY, declared, quantity
from timelineview.analysis.vocabulary.quantity import key_unit
from timelineview.api.schema import INT64
from timelineview.api.tables import TABLES

ROOT = Path(__file__).resolve().parents[2]
UNIT_KEY = re.compile(r"(^|.*_)(" + "|".join(s[1:] for s in UNIT_SUFFIX.values()) + r")(_.*|$)")  # a part names it
NUMBER_TYPES = {"number", "integer"}
INSTANT = re.compile(r"(^|_)(start|end|at)_(us|ns)$")
LOADED = {name for name, spec in TABLES.items() if not spec.needs_analysis}


def _schema_keys(node: dict, out: set[str]) -> set[str]:
    for key, value in node.get("properties", {}).items():
        out.add(key)
        _schema_keys(value, out)
    for child in (node.get("items"), node.get("additionalProperties")):
        if isinstance(child, dict):
            _schema_keys(child, out)
    return out


def _schema(kind: str) -> dict:
    return json.loads(resources.files("timelineview").joinpath("schemas", f"{kind}.schema.json").read_text())


def _number_keys(node: dict, out: set[str]) -> set[str]:
    """The keys of the schema's objects whose value may be a number: each is a quantity a document gives (a map
    from names to numbers, ``counts_by_ph``, has names for keys: not walked as keys)."""
    for key, value in node.get("properties", {}).items():
        types = value.get("type", [])
        if NUMBER_TYPES & set(types if isinstance(types, list) else [types]):
            out.add(key)
        _number_keys(value, out)
    for child in (node.get("items"), node.get("additionalProperties")):
        if isinstance(child, dict):
            _number_keys(child, out)
    return out


@pytest.mark.parametrize("kind", ["stats", "diff"])
def test_every_json_key_with_a_unit_is_a_declared_quantity(kind):
    keys = _schema_keys(_schema(kind), set())
    assert sorted(k for k in keys if UNIT_KEY.match(k) and not declared(k)) == []


@pytest.mark.parametrize("kind", ["stats", "diff"])
def test_every_number_of_the_json_documents_is_a_declared_quantity(kind):
    """Every key whose value is a number in the stats and diff documents (their schemas, which admit no other
    key) is declared: a figure a surface prints has its label, unit and definition in one place."""
    keys = _number_keys(_schema(kind), set())
    assert len(keys) > 20 and sorted(k for k in keys if not declared(k)) == []


def test_the_unit_a_key_says_is_the_unit_declared():
    """A key names its unit as one of its parts (``compute_us``, ``step_us_now``, ``us_per_step``), and no other."""
    for q in VOCABULARY.values():
        named = {u for u, s in UNIT_SUFFIX.items() if s[1:] in q.key.split("_")}
        assert named == ({q.unit} if q.unit in UNIT_SUFFIX else set()), q.key
    assert key_unit("step_us_now") == key_unit("us_per_step") == "µs" and key_unit("mfu") is None


def test_every_sql_column_of_a_quantity_carries_its_declared_definition():
    """A column named as a quantity means what the vocabulary says; a column with a unit in its name is one."""
    for name, spec in TABLES.items():
        for column in spec.columns:
            if name in LOADED:
                continue
            if declared(column.name):
                assert column.doc == quantity(column.name).tooltip, (name, column.name)
            else:
                assert not UNIT_KEY.match(column.name), f"{name}.{column.name} is not declared"


def test_every_sql_instant_is_in_ns_on_the_cards_clock():
    for name, spec in TABLES.items():
        for column in spec.columns:
            if INSTANT.search(column.name) or column.name in ("ts_ns", "src_ts_ns", "dst_ts_ns"):
                assert column.name.endswith("_ns") and column.type == INT64, (name, column.name)
    assert "start_ns" in [c.name for c in TABLES["cards"].columns]


def test_a_producers_name_is_a_label_only_for_the_producers_figure():
    """"Free", "Stage", "Preparing", "Wait"… label the producer's own figure and no other quantity."""
    producers = {q.producer.split(" (")[0] for q in VOCABULARY.values() if q.producer}
    words = producers | {p.removesuffix(" Time") for p in producers}
    for q in VOCABULARY.values():
        if q.label in words:
            assert q.producer, f"{q.key} is labelled {q.label!r}, a producer's word, without being its figure"
    assert VOCABULARY["step_interval_us"].producer == "Preparing"
    assert VOCABULARY["free_us"].producer == "Free" and not VOCABULARY["window_free_us"].producer


def test_the_docs_tables_are_the_rendered_declarations():
    from timelineview.api.markdown import rendered_docs

    for path, text in rendered_docs(ROOT / "docs").items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name}: run python -m timelineview.api.markdown docs"


# the window-free row of the Details panel says which window it is of (metrics.md §3): its own name and tooltip
WINDOW_NAMED_FREE = {"window_free_us"}


def _generated_document(tmp_path) -> dict:
    from timelineview.analysis.session import AnalysisSession
    from timelineview.model import load
    from timelineview.synthetic import cluster_specs, generate_cluster

    generate_cluster(tmp_path, cluster_specs(3, seed=11, steps=3, tasks_per_step=40, slow_card=1), "msprof")
    return AnalysisSession(load(tmp_path, cache=False)).stats_document()


def test_the_stats_text_heads_every_quantity_with_its_label(tmp_path):
    from timelineview.analysis.summary import format_text

    text = format_text(_generated_document(tmp_path))
    lines = text.splitlines()
    step_header = next(line for line in lines if line.startswith("Step "))
    cells = re.split(r"\s{2,}", step_header.strip())[1:]
    labels = {q.label: key for key, q in VOCABULARY.items()}
    assert cells and all(c in labels for c in cells), [c for c in cells if c not in labels]
    assert cells[0] == quantity("step_time_us").label  # a step's length: the word diff and the window use
    card_table = text.split("Cards\n")[1].split("\n\n")[0].splitlines()[2:]
    headers = {q.header for q in VOCABULARY.values()} | set(labels)
    titles = [re.split(r"\s{2,}", row.strip())[0].removeprefix("file: ") for row in card_table]
    assert titles and all(t in headers for t in titles), [t for t in titles if t not in headers]
    assert not re.search(r"\b\w+_(us|ns|mb)\b", text.split("Files")[0] + step_header)  # no key as a header
    # the communication table: the producer's figures under the producer's words, the union under its own name
    comm_header = text.split("Communication (µs)\n")[1].splitlines()[0]
    cells = re.split(r"\s{2,}", comm_header.strip())[1:]  # after the card's name, every column a quantity
    assert cells == [quantity(k).label for k in ("communication_operators", "measured_operators", "transit_us",
                                                 "wait_us", "synchronization_us", "idle_us", "all_planes_wait_us")]
    assert quantity("wait_us").producer == "Wait Time" and not quantity("all_planes_wait_us").producer


def test_the_diff_text_heads_every_quantity_with_its_label():
    from timelineview.analysis.diff.run_diff import NAME_STATUSES
    from timelineview.commands import diff

    for key, title in (*diff.CARD_COLUMNS, *diff.COMM_COLUMNS, *diff.MEMORY_COLUMNS):
        assert title == quantity(key).label, key
    # an operator's row: its figures and its status, each headed (the status column had no header)
    assert all(declared(k) for k in diff.NAME_KEYS) and diff.NAME_KEYS[-1] == "status"
    assert all(status in quantity("status").definition for status in NAME_STATUSES)
    assert all(diff._phase_title(k) == quantity(k).label for k in ("step_time_us", "step_interval_us", "fp_bp_us",
                                                                   "tail_us", "stage_us", "window_free_us"))


def test_the_windows_headers_and_tooltips_are_the_vocabularys():
    """The cluster table, the Details panel, the Compare tab and its paired bars: a declared quantity is shown
    under its label and explained by its definition."""
    from timelineview.analysis.cluster.comparison import BAR_PARTS, COLUMNS, MEMORY_COLUMNS, PIPELINE_COLUMNS
    from timelineview.views.analysis_tabs.compare.delta_tables import COMM_METRICS, MEMORY_TITLES, WHOLE_RUN_METRICS
    from timelineview.views.panels.area_stats import METRIC_ROWS, METRIC_TIPS
    from timelineview.viewstate.tabs.paired_bars import phase_title

    checked = 0
    for column in (*COLUMNS, *PIPELINE_COLUMNS, *MEMORY_COLUMNS):
        if declared(column.key) and column.key not in WINDOW_NAMED_FREE:
            assert column.title == quantity(column.key).label, column.key
            assert column.tooltip.startswith(quantity(column.key).tooltip), column.key
            checked += 1
    for key, title in METRIC_ROWS:
        if key not in WINDOW_NAMED_FREE:
            assert title.strip() == quantity(key).label and METRIC_TIPS[key] == quantity(key).tooltip, key
            checked += 1
    for key, title in (*BAR_PARTS, *WHOLE_RUN_METRICS, *COMM_METRICS, *MEMORY_TITLES.items()):
        assert title == quantity(key).label, key
        checked += 1
    for key in ("step_time_us", "step_interval_us", "fp_bp_us", "tail_us"):
        assert phase_title(key) == quantity(key).label
    assert checked > 30


# one figure of two things shares a label: the instant of a peak (a driver module's, the allocated one)
SAME_FIGURE = ({"peak_at_ns", "live_at_peak_at_ns"},)


def test_no_two_quantities_share_a_label():
    """A header names one quantity: two keys share a label only when they are one figure in two forms."""
    by_label: dict[str, set[str]] = {}
    for key, q in VOCABULARY.items():
        by_label.setdefault(q.label, set()).add(key)
    shared = [keys for keys in by_label.values() if len(keys) > 1]
    assert all(keys in SAME_FIGURE for keys in shared), shared


def test_the_communication_tabs_columns_are_the_vocabularys():
    """The Communication tab heads the producer's figures with the producer's words and the unions over every
    plane with their own ("All-planes wait"), as ``stats`` and ``query`` do."""
    from timelineview.views.analysis_tabs.communication.communication_view import CARD_COLUMNS

    titles = {c.key: c.title for c in CARD_COLUMNS}
    assert [titles[k] for k in ("transit_us", "wait_us", "synchronization_us", "idle_us", "wait_ratio")] == \
        ["Transit", "Wait", "Synchronization", "Idle", "Wait ratio"]
    assert [titles[f"all_planes_{k}"] for k in ("transit_us", "wait_us", "synchronization_us", "idle_us",
                                               "wait_ratio")] == \
        ["All-planes transit", "All-planes wait", "All-planes synchronization", "All-planes idle",
         "All-planes wait ratio"]
    assert titles["plane"] == quantity("plane").label


def test_every_column_of_the_window_that_shows_a_quantity_is_headed_by_its_label():
    """Every column record of every window module: a declared quantity is titled by its label (or its label with
    its unit), but for the Free columns, whose titles say which window they are of."""
    import importlib
    import pkgutil

    import timelineview.views as views
    from timelineview.analysis.cluster.comparison import Column
    from timelineview.views.analysis_tabs.record_table import RecordColumn

    wrong, checked = [], 0
    for module in pkgutil.walk_packages(views.__path__, "timelineview.views."):
        for value in vars(importlib.import_module(module.name)).values():
            for column in value if isinstance(value, tuple) else (value,):
                if isinstance(column, (RecordColumn, Column)) and declared(column.key) \
                        and column.key not in WINDOW_NAMED_FREE:
                    checked += 1
                    if column.title not in (quantity(column.key).label, quantity(column.key).header):
                        wrong.append((module.name, column.key, column.title))
    assert checked > 20 and wrong == []
