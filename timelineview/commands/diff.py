"""``timelineview diff BASE NEW [--json]``: what changed between two runs (docs/metrics.md §9)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import orjson

from timelineview.analysis.diff.link_diff import LinkDelta
from timelineview.analysis.diff.run_diff import MEMORY_KEYS, RunDiff, diff_runs
from timelineview.analysis.findings.marks import diff_marks
from timelineview.analysis.session import AnalysisSession
from timelineview.analysis.summaries.card_summary import read_manifest
from timelineview.analysis.summaries.summary_session import (
    UnreadableSummary,
    looks_like_summary,
    read_checked_index,
)
from timelineview.analysis.text_table import format_table
from timelineview.analysis.vocabulary import declared, header, label, quantity
from timelineview.analysis.vocabulary.number_text import format_in_unit
from timelineview.analysis.vocabulary.quantity import COUNT, MICROSECONDS
from timelineview.commands.cache_option import add_cache_option, cache_wanted
from timelineview.commands.exit_codes import (
    EPILOG,
    EXIT_NOTHING_READABLE,
    EXIT_OK,
    nothing_readable_reason,
    run_guarded,
)
from timelineview.commands.skipped_captures import say_skipped_captures
from timelineview.commands.terminal_lines import TerminalLines
from timelineview.model.summary.guarded_files import checked_name
from timelineview.terminal_text import terminal_safe

TOP_CHANGES = 15  # operators and collectives in the readable output


def _load(path: str, label: str, cache: bool, terminal: TerminalLines):
    from timelineview.model import load

    stores = load([path], cache=cache, progress=terminal.progress, note=terminal.note)
    say_skipped_captures(f"timelineview diff ({label} run)", [path])
    if not any(len(s.slices) for s in stores):  # a comparison is of slices
        # the reason names the card (the path's name) and its file: the path once
        raise _NothingReadable(f"timelineview diff: nothing readable in the {label} run: "
                               f"{nothing_readable_reason(stores)}")
    return stores


def _summary_folders(paths: list[str]) -> str:
    """Why runs given as summary folders cannot be compared, in one line ("" when none is one): a
    comparison reads the traces, and each summary says which traces it summarises."""
    summaries = [p for p in paths if looks_like_summary(p)]
    if not summaries:
        return ""
    by_source: dict[str | None, list[str]] = {}
    for folder in summaries:
        try:
            source = summary_source(read_checked_index(folder), Path(folder))
        except UnreadableSummary as exc:
            return f"timelineview diff: {exc}"
        by_source.setdefault(source, []).append(folder)
    one = len(summaries) == 1
    named = one or len(by_source) == 1  # the folders named before the colon (else after it, each once)
    where = []
    for source, folders in by_source.items():
        who = "it" if one else "both" if len(folders) > 1 else folders[0]
        if source is None:
            where.append(f"{who} {'do' if who == 'both' else 'does'} not say where the traces are")
        else:
            away = "" if Path(source).exists() else ", not on this machine"
            where.append(f"{who} {'summarise' if who == 'both' else 'summarises'} {source}{away}")
    if not named:
        what = "both runs are summary folders"
    else:
        what = f"{summaries[0]} is a summary folder" if one else f"{' and '.join(summaries)} are summary folders"
    return f"timelineview diff: {what}, and comparing runs reads the traces: {'; '.join(where)}"


def summary_source(index: dict, folder: Path) -> str | None:
    """Where a summary's traces are: the folder ``summarize`` read (its index), else the folder holding every
    card's ``sources`` (their manifests); None when neither says."""
    if index.get("source"):
        return str(index["source"])
    files = []
    for entry in index.get("cards", []):
        try:
            manifest = read_manifest(folder / checked_name(entry["dir"], "card folder"))
        except (KeyError, TypeError, ValueError):  # a folder name that leaves the summary is a ValueError
            continue
        if manifest is not None:
            files += [str(s) for s in manifest.get("sources") or []]
    try:
        return os.path.commonpath(files) if files else None
    except ValueError:  # absolute and relative together
        return files[0]


class _NothingReadable(Exception):
    """A run holds no slice to compare (exit 1, the message on stderr)."""


# each table's columns: (key, the vocabulary's label)
CARD_COLUMNS = tuple((k, label(k)) for k in ("compute_us", "communication_us", "pure_communication_us", "free_us",
                                             "idle_gap_total_us"))
MEMORY_COLUMNS = tuple((k, label(k)) for k in ("memory_peak_allocated_mb", "memory_peak_reserved_mb"))
COMM_COLUMNS = tuple((k, label(k)) for k in ("transit_us", "wait_us", "synchronization_us", "idle_us"))
TOTAL_KEYS = ("base_total_us", "new_total_us", "delta_us", "base_count", "new_count")  # an operator's figures
NAME_KEYS = (*TOTAL_KEYS, "status")  # an operator's row after its name
LINK_COLUMNS = ("bandwidth_gbps", "transit_us", "bandwidth_cost_us", "bytes")


def _fmt(value, unit: str = MICROSECONDS) -> str:
    return format_in_unit(value, unit)


def _change(base, new, unit: str = MICROSECONDS) -> str:
    """``base → new (+delta)``, or "—" where a run has no value (the text surface's one number format)."""
    if base is None or new is None:
        return f"{_fmt(base, unit)} → {_fmt(new, unit)}"
    return f"{_fmt(base, unit)} → {_fmt(new, unit)} ({format_in_unit(new - base, unit, sign=True)})"


def _unit(key: str) -> str:
    return quantity(key).unit if declared(key) else MICROSECONDS


def _phase_title(key: str) -> str:
    return label(key) if declared(key) else key


def _pair_label(base: str, new: str) -> str:
    """A matched card or link: its name, or "<base> vs <new>" when the runs name it differently."""
    return base if new == base else f"{base} vs {new}"


def _link_change(link: LinkDelta, key: str) -> str:
    """``_change`` of one ``LinkTotals`` field of ``link`` ("—" on the side of the run without the link)."""
    return _change(getattr(link.base, key, None), getattr(link.new, key, None), _unit(key))


def _link_rows(links: list[LinkDelta]) -> list[list]:
    return [[_pair_label(x.key, x.new_key), _link_change(x, "bandwidth_gbps"), _link_change(x, "transit_us"),
             _fmt(x.bandwidth_cost_us), _link_change(x, "bytes")] for x in links]


FRAMEWORK_COLUMNS = ["operator", "input shapes", "base", "new", "delta", "ratio", "base n", "new n"]


def _framework_table(diff: RunDiff) -> str:
    """The framework operators whose device time changed most, by name and input shapes, or by name where the
    shapes differ between the runs (metrics.md §13)."""
    rows = [[r.name, r.shapes_text(compact=True) or "-", _fmt(r.base_device_us), _fmt(r.new_device_us),
             _fmt(r.delta_us), "-" if r.ratio is None else f"{r.ratio:.2f}", r.base_count, r.new_count]
            for r in diff.framework_operators[:TOP_CHANGES]]
    return ("Framework operators: in both runs, then in one, each by |Δ device time| (µs of the work each "
            "launched, over the matched cards)\n" + format_table(FRAMEWORK_COLUMNS, rows))


BREAKDOWN_COLUMNS = ["", "computation", "communication", "free", "host launch overhead"]


def _breakdown_table(diff: RunDiff) -> str:
    """The mean step of both runs broken down as msprof-analyze's compare does (metrics.md §13)."""
    bd = diff.step_breakdown
    rows = [[side, *(_fmt(v) for v in values.values())]
            for side, values in (("base", bd.base.document()), ("new", bd.new.document()), ("delta", bd.delta))]
    return ("Step breakdown, mean step (µs; communication not hidden by computation; host launch overhead: the "
            "free time the device waited for a launch)\n" + format_table(BREAKDOWN_COLUMNS, rows))


def format_text(diff: RunDiff) -> str:
    """Readable tables: the cards whose own compute or step interval changed beyond the others' (verdicts),
    then per card (in the diff's order: by that change) its step phases, whole-card metrics and
    communication totals; the operators, collectives and links whose time changed most; then what
    differs in shape."""
    parts = []
    marks = diff_marks(diff)
    if marks:
        parts.append("Cards whose own compute or step interval changed beyond the other cards'\n"
                     + "\n".join(f"  {m.item}: {m.reason}" for m in marks))
    if diff.cards:
        phases = tuple((k, _phase_title(k)) for k in diff.phase_keys)
        tables = [("Step phases, mean per step (µs): base → new (delta); cards by the change of their own "
                   "compute and step interval, largest first", phases),
                  ("Whole card, whole run (µs): base → new (delta)", CARD_COLUMNS)]
        if any(c.base.get("transit_us") is not None or c.new.get("transit_us") is not None for c in diff.cards):
            tables.append(("Communication per card, whole run (µs): base → new (delta)", COMM_COLUMNS))
        if any(c.base.get(k) is not None or c.new.get(k) is not None for c in diff.cards for k in MEMORY_KEYS):
            tables.append(("Device memory per card, peaks (MB): base → new (delta)", MEMORY_COLUMNS))
        for title, columns in tables:
            rows = [[_pair_label(c.card, c.new_card),
                     *(_change(c.base.get(k), c.new.get(k), _unit(k)) for k, _ in columns)] for c in diff.cards]
            parts.append(title + "\n" + format_table(["card", *(t for _, t in columns)], rows))
    # by op type and by (op type, input shapes) first: node names change between graph builds, op types do not
    named = (("Op types", diff.op_types), ("Op types by input shapes", diff.op_shapes),
             ("Operators", diff.operators), ("Communication", diff.communication))
    for title, rows in named:
        if not rows and title.startswith("Op types"):
            continue  # cards without kernel descriptions (summaries written before them)
        changed = [r for r in rows if r.changed][:TOP_CHANGES]
        if not changed:
            parts.append(f"{title}: no change.")
            continue
        table = [[_delta_name(r), _fmt(r.base_total_us), _fmt(r.new_total_us), _fmt(r.delta_us),
                  _fmt(r.base_count, COUNT), _fmt(r.new_count, COUNT), r.status] for r in changed]
        parts.append(f"{title}, largest changes first (total µs over the matched cards)\n"
                     + format_table(["name", *(label(k) for k in NAME_KEYS)], table))
    if diff.links:
        changed = [x for x in diff.links if x.changed][:TOP_CHANGES]
        if changed:
            parts.append("Links, largest change first (cost: transit the change of bandwidth adds at the base "
                         "run's bytes, µs)\n" + format_table(["link", *(header(k) for k in LINK_COLUMNS)],
                                                             _link_rows(changed)))
        else:
            parts.append("Links: no change.")
    if diff.step_breakdown is not None:
        parts.append(_breakdown_table(diff))
    if diff.framework_operators:
        parts.append(_framework_table(diff))
    if diff.notes:
        parts.append("Differences in shape\n" + "\n".join(f"  {n}" for n in diff.notes))
    return "\n\n".join(parts) + "\n"


def _delta_name(row) -> str:
    """A row's name; an (op type, input shapes) row's op type with its shapes."""
    return row.name if row.shapes is None else f"{row.name} [{row.shapes or 'no shapes'}]"


def diff_main(argv: list[str]) -> int:
    """Entry point of the ``diff`` subcommand; returns the exit code (``commands.exit_codes``)."""
    parser = argparse.ArgumentParser(
        prog="timelineview diff", epilog=EPILOG,
        description="What changed between a baseline run and a new one: per card (matched by rank, else in "
                    "rank order) the step phases, metrics and communication totals, the card whose own compute "
                    "or step interval changed most first, then the operators, collectives and links that changed most.")
    parser.add_argument("base", help="the baseline run: a trace file or a folder (one card per rank)")
    parser.add_argument("new", help="the new run, the same way")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_cache_option(parser)
    args = parser.parse_args(argv)
    return run_guarded("timelineview diff", lambda: _diff(args))


def _diff(args: argparse.Namespace) -> int:
    reason = _summary_folders([args.base, args.new])
    if reason:  # nothing is loaded: exit 1 with the reason, as for a run with nothing readable
        print(terminal_safe(reason), file=sys.stderr)
        return EXIT_NOTHING_READABLE
    terminal = TerminalLines(not args.quiet and sys.stderr.isatty(), "diff")
    try:
        base = AnalysisSession(_load(args.base, "base", cache_wanted(args), terminal))
        new = AnalysisSession(_load(args.new, "new", cache_wanted(args), terminal))
    except _NothingReadable as exc:
        print(terminal_safe(exc), file=sys.stderr)
        return EXIT_NOTHING_READABLE
    finally:
        from timelineview.model.load.loader import shutdown_pool

        shutdown_pool()
    diff = diff_runs(base, new)
    if not diff.cards:  # nothing to compare: say why (the notes say what differs), as for nothing readable
        print(terminal_safe(f"timelineview diff: no card of one run matches a card of the other: "
                            f"{'; '.join(diff.notes) or 'the runs hold no cards in common'}"), file=sys.stderr)
        return EXIT_NOTHING_READABLE
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(diff.document(), option=orjson.OPT_INDENT_2))
        sys.stdout.buffer.write(b"\n")
    else:
        sys.stdout.write(terminal_safe(format_text(diff), lines=True))
    return EXIT_OK
