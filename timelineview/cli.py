"""``timelineview stats PATH... [--json] [--min-gap-us X]``: the analysis without a window."""

from __future__ import annotations

import argparse
import sys
import threading

import orjson

from timelineview.analysis.summary import format_text, stats_document
from timelineview.analysis.summary_session import SummarySession, is_summary_folder
from timelineview.model import LoadCancelled, load
from timelineview.model.load.loader import shutdown_pool


def _progress_printer(enabled: bool):
    last = [-1]

    def progress(done: int, total: int) -> None:
        if not enabled:
            return
        pct = int(100 * done / max(total, 1))
        if pct != last[0]:
            last[0] = pct
            print(f"\rloading… {pct:3d}% of {total / 1e6:,.1f} MB", end="", file=sys.stderr, flush=True)
            if done >= total:
                print(file=sys.stderr)

    return progress


def stats_main(argv: list[str]) -> int:
    """Entry point of the ``stats`` subcommand; returns the exit code."""
    parser = argparse.ArgumentParser(prog="timelineview stats",
                                     description="Per-card and per-step statistics of Ascend timelines.")
    parser.add_argument("paths", nargs="+", help="trace files or folders (one card per rank)")
    parser.add_argument("--json", action="store_true",
                        help="print the statistics as one JSON document (its fields: docs/metrics.md)")
    parser.add_argument("--min-gap-us", type=float, default=1.0, help="idle AI Core gap threshold (µs)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if len(args.paths) == 1 and is_summary_folder(args.paths[0]):  # metrics.md §10: no trace is read
        return _print(SummarySession(args.paths[0]).stats_document(), args.json)
    cancel = threading.Event()
    try:
        stores = load(args.paths, progress=_progress_printer(not args.quiet and sys.stderr.isatty()),
                      cancel=cancel)
    except KeyboardInterrupt:
        cancel.set()
        return 130
    except LoadCancelled:
        return 130
    finally:
        shutdown_pool()
    _print(stats_document(stores, min_gap_ns=int(round(args.min_gap_us * 1000))), args.json)
    for store in stores:
        if store.report.error or store.report.truncated or store.report.dropped_events:
            print(f"{store.card}: {store.report.summary().splitlines()[0]}", file=sys.stderr)
    readable = any(len(s.slices) or s.report.counts_by_ph for s in stores)
    return 0 if readable else 1


def _print(doc: dict, as_json: bool) -> int:
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))
        sys.stdout.buffer.write(b"\n")
    else:
        print(format_text(doc))
    return 0


def main() -> None:  # ``python -m timelineview.cli``
    sys.exit(stats_main(sys.argv[1:]))


if __name__ == "__main__":
    main()
