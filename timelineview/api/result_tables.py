"""The SQL table of each declared per-card result, derived from its declaration: the card's name and rank,
then its columns (a quantity of the vocabulary: its key, type and definition), one row per row of the result in
each card object of the ``stats --json`` document."""

from __future__ import annotations

from timelineview.analysis.card_results.declaration import INTEGER, NUMBER, TEXT, CardResult, ResultColumn
from timelineview.analysis.card_results.section import rows_in
from timelineview.api.document_tables import CARD, declared, document_spec, per_card
from timelineview.api.schema import DOUBLE, INT64, STRING, Column, TableSpec

SQL_TYPES = {TEXT: STRING, INTEGER: INT64, NUMBER: DOUBLE}


def sql_column(column: ResultColumn) -> Column:
    """A result's column in its table: a described text as described, a quantity as the vocabulary defines it."""
    sql_type = SQL_TYPES[column.kind]
    return Column(column.key, sql_type, column.doc) if column.doc else declared(column.key, sql_type)


def result_table(result: CardResult) -> TableSpec:
    """The table of ``result`` (which names one)."""
    order = result.table_order or tuple(c.key for c in result.columns)
    columns = tuple(sql_column(result.column(key)) for key in order)
    return document_spec(result.table, result.table_doc, (*CARD, *columns),
                         per_card(lambda card: rows_in(card, result)))
