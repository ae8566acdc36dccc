"""A declaration's checks and its derived encodings: the kept columns give back the rows value for value (None,
NaN, an int as an int), the shipped JSON schema holds the fragment each declared result derives, and the tables
of the declared §7.1 results keep their columns."""

from __future__ import annotations

import math

import numpy as np
import pytest

from timelineview.analysis.card_results.declaration import INTEGER, TEXT, CardResult, ResultColumn
from timelineview.analysis.card_results.kept_columns import kept_form, rows_of
from timelineview.analysis.card_results.registry import CARD_RESULTS
from timelineview.analysis.card_results.schema_fragment import result_schema, shipped_schema, stats_schema

COLUMNS = (ResultColumn("op_type", TEXT, doc="a type"), ResultColumn("count", INTEGER), ResultColumn("share"),
           ResultColumn("mfu", nullable=True))


def _result(**kw) -> CardResult:
    return CardResult("a_result", lambda store, a: [], (), kw.pop("columns", COLUMNS), **kw)


def test_the_kept_columns_give_back_the_rows_value_for_value():
    result = _result()
    rows = [{"op_type": "MatMul", "count": 3, "share": 0.25, "mfu": None},
            {"op_type": "Add", "count": 1 << 40, "share": math.nan, "mfu": 0.5},
            {"op_type": "", "count": 0, "share": 1.0, "mfu": 0.0}]
    form = kept_form(result, rows)
    assert form["values"]["count"].dtype == np.int64 and form["values"]["share"].dtype == np.float64
    assert form["absent"]["mfu"].tolist() == [True, False, False] and "share" not in form["absent"]
    back = rows_of(result, form)
    assert [list(r) for r in back] == [list(r) for r in rows]  # the columns' order
    for got, want in zip(back, rows, strict=True):
        for key, value in want.items():
            assert type(got[key]) is type(value), key
            assert got[key] == value or (math.isnan(value) and math.isnan(got[key])), key
    assert rows_of(result, kept_form(result, [])) == []


def test_rows_not_of_the_declared_columns_are_not_kept():
    result = _result()
    with pytest.raises(ValueError, match="count is not a integer"):
        kept_form(result, [{"op_type": "A", "count": 1.0, "share": 0.5, "mfu": None}])  # a float counted
    with pytest.raises(ValueError, match="share is not a number"):
        kept_form(result, [{"op_type": "A", "count": 1, "share": None, "mfu": None}])  # not nullable
    with pytest.raises(ValueError, match="does not hold the columns"):
        kept_form(result, [{"count": 1, "op_type": "A", "share": 0.5, "mfu": None}])  # another order
    form = kept_form(result, [{"op_type": "A", "count": 1, "share": 0.5, "mfu": None}])
    other = _result(columns=COLUMNS[:3])
    with pytest.raises(ValueError, match="other columns"):
        rows_of(other, form)  # kept under another declaration: computed instead


def test_a_declaration_names_keys_of_the_vocabulary_or_describes_them():
    with pytest.raises(ValueError, match="neither a quantity"):
        _result(columns=(ResultColumn("made_up_us"),))
    with pytest.raises(ValueError, match="declared twice"):
        _result(columns=(ResultColumn("count", INTEGER), ResultColumn("count", INTEGER)))
    with pytest.raises(ValueError, match="no section"):
        _result(table="t")
    with pytest.raises(ValueError, match="kind"):
        _result(columns=(ResultColumn("count", "whole"),))


def test_the_shipped_schema_holds_each_declared_fragment():
    """``stats.schema.json`` is the schema derived from the declarations (written by ``write_stats_schema``)."""
    assert stats_schema() == shipped_schema()
    kernels = shipped_schema()["properties"]["cards"]["items"]["properties"]["kernels"]
    assert kernels["properties"]["steps"] == result_schema(CARD_RESULTS["kernels_steps"])
    assert kernels["properties"]["by_shape"]["items"]["properties"]["p50_us"] == {"type": "number"}


def test_the_tables_of_the_declared_kernel_results_keep_their_columns():
    """``op_types`` and ``op_shapes`` as they were written by hand before they were derived (p50 and p90 last)."""
    from timelineview.api.tables import TABLES

    stats = ["count", "total_us", "min_us", "mean_us", "max_us", "share", "flops", "tflops", "mfu"]
    assert [c.name for c in TABLES["op_types"].columns] == ["card", "rank", "op_type", "core_type", *stats]
    assert [c.name for c in TABLES["op_shapes"].columns] == ["card", "rank", "op_type", "core_type", "input_shapes",
                                                            "input_data_types", *stats, "p50_us", "p90_us"]
    assert [c.type for c in TABLES["op_shapes"].columns][2:7] == ["string"] * 4 + ["int64"]
    assert list(TABLES)[-3:] == ["kernels", "op_types", "op_shapes"]
