"""``timelineview summarize PATH --out DIR [--scheduler ADDRESS] [--workers N] [--min-gap-us X]``."""

from __future__ import annotations

import argparse
import sys


def summarize_main(argv: list[str]) -> int:
    """Entry point of the ``summarize`` subcommand; returns the exit code (1 when no card was summarised)."""
    parser = argparse.ArgumentParser(
        prog="timelineview summarize",
        description="Summarise every card of a folder on a Dask cluster; open DIR in the "
                    "viewer or run `timelineview stats DIR --json` on it.")
    parser.add_argument("path", help="trace file or folder (one card per rank)")
    parser.add_argument("--out", required=True, help="summary folder (created; cards unchanged since are kept)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="a running Dask scheduler, e.g. tcp://head:8786 (default: a local cluster)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the local cluster")
    parser.add_argument("--min-gap-us", type=float, default=1.0, help="idle AI Core gap threshold (µs)")
    args = parser.parse_args(argv)
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("timelineview summarize needs Dask: pip install 'timelineview[scale]'", file=sys.stderr)
        return 2
    from timelineview.distributed.summarize import SummaryBusy, summarize

    try:
        index = summarize(args.path, args.out, args.scheduler, max(1, args.workers),
                          min_gap_ns=int(round(args.min_gap_us * 1000)))
    except SummaryBusy as exc:
        print(f"timelineview summarize: {exc}", file=sys.stderr)
        return 1
    cards = index["cards"]
    ok = sum(c["status"] == "ok" for c in cards)
    print(f"{ok} of {len(cards)} card(s) summarised in {index['seconds']:.1f} s into {args.out}; "
          f"{len(index['slow_cards'])} slow card flag(s), {len(index['slow_links'])} slow link(s), "
          f"{len(index['findings'])} finding(s)", file=sys.stderr)
    return 0 if ok else 1


def main() -> None:  # ``python -m timelineview.distributed.cli``
    sys.exit(summarize_main(sys.argv[1:]))


if __name__ == "__main__":
    main()
