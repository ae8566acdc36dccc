"""The tables of the SQL API as Markdown, for docs/sql.md (rendered from ``TABLES``, whose columns take their
meanings from the vocabulary), and the command that rewrites the generated parts of the docs:
``python -m timelineview.api.markdown DOCS_FOLDER``."""

from __future__ import annotations

import sys
from pathlib import Path

from timelineview.analysis.vocabulary.markdown import BEGIN, END, replace_marked, vocabulary_table
from timelineview.api.tables import TABLES

SQL_BEGIN = "<!-- tables: generated from timelineview/api/tables.py, do not edit by hand -->"
SQL_END = "<!-- end of tables -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def tables_markdown() -> str:
    """A section per table: what one row is, then its columns (name, type, meaning)."""
    parts = []
    for spec in TABLES.values():
        rows = [f"| `{c.name}` | `{c.type}` | {_cell(c.doc)} |" for c in spec.columns]
        parts.append("\n".join([f"### `{spec.name}`", "", spec.doc[0].upper() + spec.doc[1:] + ".", "",
                                "| column | type | meaning |", "| --- | --- | --- |", *rows]))
    return "\n\n".join(parts)


def rendered_docs(docs: Path) -> dict[Path, str]:
    """docs/sql.md and docs/metrics.md as they should read: their generated parts rendered afresh."""
    sql, metrics = docs / "sql.md", docs / "metrics.md"
    return {sql: replace_marked(sql.read_text(encoding="utf-8"), SQL_BEGIN, SQL_END, tables_markdown()),
            metrics: replace_marked(metrics.read_text(encoding="utf-8"), BEGIN, END, vocabulary_table())}


def main(argv: list[str]) -> int:
    for path, text in rendered_docs(Path(argv[0]) if argv else Path("docs")).items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
