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
from timelineview.api.schema import INT64
from timelineview.api.tables import TABLES

ROOT = Path(__file__).resolve().parents[2]
UNIT_KEY = re.compile(r".*(" + "|".join(UNIT_SUFFIX.values()) + r")$")
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


@pytest.mark.parametrize("kind", ["stats", "diff"])
def test_every_json_key_with_a_unit_is_a_declared_quantity(kind):
    schema = json.loads(resources.files("timelineview").joinpath("schemas", f"{kind}.schema.json").read_text())
    keys = _schema_keys(schema, set())
    assert sorted(k for k in keys if UNIT_KEY.match(k) and not declared(k)) == []


def test_the_unit_a_key_says_is_the_unit_declared():
    for q in VOCABULARY.values():
        suffix = UNIT_SUFFIX.get(q.unit)
        named = next((u for u, s in UNIT_SUFFIX.items() if q.key.endswith(s)), None)
        assert named == (q.unit if suffix else None), q.key


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
