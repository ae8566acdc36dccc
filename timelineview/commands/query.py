"""``timelineview query PATHS... "SQL" [--csv|--json]``: SQL (DuckDB) over the tables of a run (docs/sql.md)."""

from __future__ import annotations

import argparse
import csv
import datetime
import decimal
import os
import sys
import threading
from collections.abc import Iterable

import orjson

from timelineview.commands.exit_codes import (
    EPILOG,
    EXIT_INTERRUPTED,
    EXIT_NOTHING_READABLE,
    EXIT_OK,
    EXIT_USAGE,
    run_guarded,
)
from timelineview.commands.gap_option import add_gap_option
from timelineview.terminal_text import terminal_safe

PROG = "timelineview query"
INTERRUPT_AGAIN_S = 0.2  # how often Ctrl+C's interrupt is sent again until the query has ended
SHOWN_ROWS = 10_000  # the text table is aligned over its rows, so it holds them: the rest are counted, not shown
WAIT_S = 0.1  # how often the main thread wakes while a query runs (Ctrl+C is seen between waits)


def _parser() -> argparse.ArgumentParser:
    from timelineview.api.tables import TABLES

    parser = argparse.ArgumentParser(
        prog=PROG, epilog=EPILOG + " A query that cannot run (syntax, unknown table or column), or the [api] "
                                   "extra missing, is 2.",
        description=f"Run SQL (DuckDB's dialect) over a run's tables: {', '.join(TABLES)} (--tables prints "
                    "their columns, docs/sql.md says what they hold). "
                    "Example: timelineview query run/ \"select name, sum(dur_ns) from slices group by name\"")
    parser.add_argument("args", nargs="*", metavar="PATH... SQL",
                        help="trace files, profiler folders or a summary folder, then the query (quote it)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--csv", action="store_true", help="print the rows as CSV (a header line first)")
    out.add_argument("--json", action="store_true", help="print the rows as a JSON list of objects")
    parser.add_argument("--tables", action="store_true", help="print every table's columns and exit")
    parser.add_argument("--no-cache", action="store_true", help="read the files, not the card cache")
    add_gap_option(parser)
    return parser


def query_main(argv: list[str]) -> int:
    """Entry point of the ``query`` subcommand; returns the exit code (``commands.exit_codes``)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.tables:
        return run_guarded(PROG, _print_tables)
    if len(args.args) < 2:
        parser.print_usage(sys.stderr)
        print(f"{PROG}: give the run's paths, then the query", file=sys.stderr)
        return EXIT_USAGE
    if not args.args[-1].strip(" \t\r\n;"):
        parser.print_usage(sys.stderr)
        print(f"{PROG}: the query is empty: give an SQL statement after the run's paths", file=sys.stderr)
        return EXIT_USAGE
    return run_guarded(PROG, lambda: _query(args.args[:-1], args.args[-1], args))


def _print_tables() -> int:
    from timelineview.api.schema import describe
    from timelineview.api.tables import TABLES

    print("\n\n".join(describe(spec) for spec in TABLES.values()))
    return EXIT_OK


def _query(paths: list[str], sql: str, args: argparse.Namespace) -> int:
    from timelineview.api import MissingExtra, NothingReadable, QueryCancelled, QueryError, SqlEngine, open
    from timelineview.api.extras import require
    from timelineview.commands.skipped_captures import say_skipped_captures
    from timelineview.commands.terminal_lines import TerminalLines

    terminal = TerminalLines(sys.stderr.isatty(), "query")  # the load's progress, as stats shows it
    try:
        # the query engine before the run: a missing extra is said before a long load, and a Ctrl+C during the
        # load cannot land inside the engine's import (a half-imported extension aborts the interpreter's exit)
        require("duckdb")
        session = open(paths, cache=not args.no_cache, min_gap_us=args.min_gap_us, progress=terminal.progress,
                       note=terminal.note)
        if not terminal.enabled:  # else said by ``note`` already
            for unread in session.unreadable:
                print(f"{PROG}: {terminal_safe(unread.card)}: not read ({terminal_safe(unread.why)})", file=sys.stderr)
        engine = SqlEngine(session)
        say_skipped_captures(PROG, paths)
    except MissingExtra as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (NothingReadable, FileNotFoundError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return EXIT_NOTHING_READABLE
    outcome: dict = {}

    form = "csv" if args.csv else "json" if args.json else "text"

    def run() -> None:
        try:
            columns, batches = engine.batches(sql)
            _write(columns, batches, form)
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which says what it was
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="query", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(WAIT_S)
    except KeyboardInterrupt:
        # again until the query ends: an interrupt that comes before DuckDB has begun the query (the tables
        # still being built) finds nothing to stop, and the query would then run on
        while worker.is_alive():
            engine.interrupt()
            worker.join(INTERRUPT_AGAIN_S)
        print(f"{PROG}: interrupted", file=sys.stderr)
        # DuckDB's threads may still unwind the interrupted query, and the interpreter's teardown under them
        # aborts the process: end it here, with nothing left to write
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)
    error = outcome.get("error")
    if isinstance(error, QueryError):
        print(f"{PROG}: {error}", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(error, QueryCancelled):
        return EXIT_INTERRUPTED
    if error is not None:
        raise error
    return EXIT_OK


def plain(value):
    """A cell as JSON or CSV can hold it (DuckDB gives decimals for sums of integers, dates, lists)."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (datetime.date, datetime.time, datetime.timedelta)):
        return str(value)
    return value


def _write(columns: list[str], batches: Iterable[list[tuple]], form: str) -> None:
    """Print the rows as they come, a batch at a time (CSV, JSON), or the first ``SHOWN_ROWS`` as a text table
    with how many there were in all."""
    if form == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        for rows in batches:
            writer.writerows([[plain(v) for v in row] for row in rows])
    elif form == "json":
        _write_json(columns, batches)
    else:
        from timelineview.analysis.text_table import format_table
        from timelineview.analysis.vocabulary.number_text import format_number

        shown: list[list] = []
        total = 0
        for rows in batches:
            total += len(rows)
            shown.extend([plain(v) for v in row] for row in rows[:max(0, SHOWN_ROWS - len(shown))])
        print(format_table(columns, shown))
        # the footer's counts through the table's one formatter: digits grouped as in the cells above
        left_out = f"; the first {format_number(len(shown))} shown, {format_number(total - len(shown))} left out " \
                   "(--csv or --json print them all)" if total > len(shown) else ""
        print(f"({format_number(total)} row{'s' if total != 1 else ''}{left_out})")


def _write_json(columns: list[str], batches: Iterable[list[tuple]]) -> None:
    """A JSON list of objects, written an object at a time."""
    out = sys.stdout.buffer
    first = True
    for rows in batches:
        for row in rows:
            item = orjson.dumps(dict(zip(columns, (plain(v) for v in row), strict=True)), default=str,
                                option=orjson.OPT_INDENT_2)
            out.write(b"[\n  " if first else b",\n  ")
            out.write(item.replace(b"\n", b"\n  "))
            first = False
    out.write(b"[]\n" if first else b"\n]\n")
