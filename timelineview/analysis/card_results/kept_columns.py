"""A declared result's kept encoding, derived from its columns: the rows as one column per declared key (numbers
as int64 / float64 arrays with a mask of the rows holding None, text as a list), and back, value for value.

The kept layer stores the columns (its arrays as its own columns); rows read back are the rows computed, each
value of its column's type, so a card object built from them prints the same bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from timelineview.analysis.card_results.declaration import INTEGER, NUMBER, TEXT, CardResult

DTYPES = {INTEGER: np.int64, NUMBER: np.float64}
ROWS, VALUES, ABSENT = "rows", "values", "absent"  # the kept form's keys


def kept_form(result: CardResult, rows: list[dict]) -> dict:
    """The rows of ``result`` as its kept columns (ValueError when they are not what it declares)."""
    if problem := result.rows_problem(rows):
        raise ValueError(problem)
    values: dict[str, Any] = {}
    absent: dict[str, np.ndarray] = {}
    for c in result.columns:
        column = [row[c.key] for row in rows]
        if c.kind == TEXT:
            values[c.key] = column
            continue
        missing = np.array([v is None for v in column], dtype=bool)
        values[c.key] = np.array([0 if v is None else v for v in column], dtype=DTYPES[c.kind])
        if c.nullable:
            absent[c.key] = missing
    return {ROWS: len(rows), VALUES: values, ABSENT: absent}


def rows_of(result: CardResult, form: Any) -> list[dict]:
    """The rows a kept form holds (ValueError when it is not one of ``result``'s current columns)."""
    n = form[ROWS]
    values, absent = form[VALUES], form[ABSENT]
    if set(values) != {c.key for c in result.columns} or not set(absent) <= set(values):
        raise ValueError(f"{result.name}: kept under other columns")
    columns = []
    for c in result.columns:
        v = values[c.key]
        if c.kind == TEXT:
            if not isinstance(v, list) or len(v) != n:
                raise ValueError(f"{result.name}.{c.key}: not {n} texts")
            columns.append(v)
            continue
        if not isinstance(v, np.ndarray) or v.dtype != DTYPES[c.kind] or v.shape != (n,):
            raise ValueError(f"{result.name}.{c.key}: not {n} values of {np.dtype(DTYPES[c.kind])}")
        listed = v.tolist()  # Python ints and floats, as computed
        if c.key in absent:
            mask = absent[c.key]
            if not isinstance(mask, np.ndarray) or mask.dtype != bool or mask.shape != (n,):
                raise ValueError(f"{result.name}.{c.key}: its mask is not {n} booleans")
            listed = [None if m else x for x, m in zip(listed, mask.tolist(), strict=True)]
        columns.append(listed)
    keys = [c.key for c in result.columns]
    rows = [dict(zip(keys, values_of_row, strict=True)) for values_of_row in zip(*columns, strict=True)] \
        if columns else [{} for _ in range(n)]
    if problem := result.rows_problem(rows):
        raise ValueError(problem)
    return rows
