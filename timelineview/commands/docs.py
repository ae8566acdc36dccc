"""``timelineview docs [NAME]``: where the documents the help texts point to are, in a checkout or an
installed copy alike (``docs metrics``: the metrics and JSON fields; ``docs sql``: the SQL tables)."""

from __future__ import annotations

import argparse
import sys

from timelineview.commands.exit_codes import EXIT_NOTHING_READABLE, EXIT_OK, EXIT_USAGE

PROG = "timelineview docs"


def docs_main(argv: list[str]) -> int:
    """Print the folder of the documents, or with NAME the path of that document; ``--print`` its text."""
    from timelineview.views.resources import resource_path

    ap = argparse.ArgumentParser(prog=PROG, description="Print where timelineview's documents are: the folder, "
                                 "or the file of one (metrics, sql, databases, summaries, trace-format).")
    ap.add_argument("name", nargs="?", help="a document, e.g. metrics or sql")
    ap.add_argument("--print", action="store_true", dest="show", help="print the document's text instead")
    args = ap.parse_args(argv)
    folder = resource_path("docs")
    if folder is None or not folder.is_dir():
        print(f"{PROG}: this installation holds no documents", file=sys.stderr)
        return EXIT_NOTHING_READABLE
    names = sorted(p.stem for p in folder.glob("*.md"))
    if args.name is None:
        if args.show:
            print(f"{PROG}: --print wants a document: {', '.join(names)}", file=sys.stderr)
            return EXIT_USAGE
        print(folder)
        return EXIT_OK
    name = args.name.removesuffix(".md")
    if name not in names:
        print(f"{PROG}: no document {args.name!r}; there are {', '.join(names)}", file=sys.stderr)
        return EXIT_USAGE
    path = folder / f"{name}.md"
    print(path.read_text(encoding="utf-8") if args.show else path)
    return EXIT_OK
