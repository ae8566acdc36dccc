"""A declared result's JSON-schema fragment, and the ``stats --json`` schema with every declared result's
fragment at its section of the card object.

``timelineview/schemas/stats.schema.json`` is the schema as shipped; :func:`stats_schema` is that file with
the fragments derived from the declarations, and a test holds the two equal (a new result's fragment is
written into the file with :func:`write_stats_schema`).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from timelineview.analysis.card_results.declaration import INTEGER, NUMBER, TEXT, CardResult, ResultColumn
from timelineview.analysis.card_results.registry import placed_results

JSON_TYPES = {TEXT: "string", INTEGER: "integer", NUMBER: "number"}
SCHEMA_INDENT = 1  # as the shipped file is written


def column_schema(column: ResultColumn) -> dict:
    kind = JSON_TYPES[column.kind]
    return {"type": ["null", kind] if column.nullable else kind}


def result_schema(result: CardResult) -> dict:
    """The schema of ``result``'s rows: a list of objects holding exactly its columns."""
    return {"type": "array", "items": {
        "type": "object", "properties": {c.key: column_schema(c) for c in result.columns},
        "required": sorted(c.key for c in result.columns), "additionalProperties": False}}


def shipped_schema() -> dict:
    """``stats.schema.json`` as shipped with the package."""
    return json.loads(resources.files("timelineview").joinpath("schemas", "stats.schema.json").read_text("utf-8"))


def _card_object(schema: dict) -> dict:
    return schema["properties"]["cards"]["items"]


def stats_schema() -> dict:
    """The shipped schema with each declared result's fragment at its section (a fragment equal to the one
    there is left as written: the file's key order stays)."""
    schema = shipped_schema()
    for result in placed_results():
        node = _card_object(schema)
        for key in result.section[:-1]:
            node = node["properties"][key]
        last = result.section[-1]
        fragment = result_schema(result)
        if node["properties"].get(last) != fragment:
            node["properties"][last] = fragment
        node["required"] = sorted({*node.get("required", []), last})
    return schema


def write_stats_schema(path: Path | None = None) -> None:
    """Write :func:`stats_schema` over the shipped file (or to ``path``): after declaring a new result."""
    target = path or Path(str(resources.files("timelineview").joinpath("schemas", "stats.schema.json")))
    target.write_text(json.dumps(stats_schema(), indent=SCHEMA_INDENT, ensure_ascii=False) + "\n", encoding="utf-8")
