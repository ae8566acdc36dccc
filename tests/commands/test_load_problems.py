"""What ``stats`` says about a damaged file: on stderr one line per card with the counts of each kind of
problem and the first places, the file named once; in the text output a few of its warnings and how many
more (``--json`` keeps them all)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest

from timelineview import cli
from timelineview.commands.exit_codes import EXIT_OK
from timelineview.model.store.report import FIRST_PLACES, LISTED_WARNINGS
from timelineview.synthetic import CardSpec, generate_card

STRAY_EVERY = 100  # a stray '"' before every 100th event, as in the walk-through's file
DAMAGED = (1234, 3456)  # events whose closing brace is cut: each is dropped


class Damaged(NamedTuple):
    path: Path
    strays: list[int]  # byte offsets of the stray quotes
    damaged: list[int]  # byte offsets of the events cut short


@pytest.fixture(scope="module")
def damaged(tmp_path_factory) -> Damaged:
    """A generated card written back event by event, with stray quotes between events and two events cut."""
    folder = tmp_path_factory.mktemp("damaged")
    generate_card(folder / "clean.json", CardSpec(steps=3), "msprof")
    events = json.loads((folder / "clean.json").read_text())
    out, strays, cut = bytearray(b"["), [], []
    for i, event in enumerate(events):
        if i:
            out += b", "
        if i % STRAY_EVERY == STRAY_EVERY // 2:
            strays.append(len(out))
            out += b'"'
        text = json.dumps(event).encode()
        if i in DAMAGED:
            cut.append(len(out))
            text = text[:-1]
        out += text
    out += b"]"
    path = folder / "c0_stray.json"
    path.write_bytes(bytes(out))
    return Damaged(path, strays, cut)


def test_stderr_counts_the_problems_and_names_the_first_places_once(damaged, capsys):
    assert cli.stats_main([str(damaged.path), "--quiet", "--json"]) == EXIT_OK
    out = capsys.readouterr()
    [line] = [x for x in out.err.splitlines() if x.strip()]
    card = damaged.path.name
    total = len(damaged.strays) + len(damaged.damaged)
    first = sorted(damaged.strays + damaged.damaged)[:FIRST_PLACES]
    assert line.startswith(f"{card}: {total} problems: {len(damaged.damaged)} events dropped (unreadable"), line
    assert f"stray bytes skipped at {len(damaged.strays)} places" in line, line
    assert line.endswith(f"; first at bytes {', '.join(map(str, first))}"), line
    assert line.count(card) == 1 and str(damaged.path.parent) not in line  # the file named once
    # --json is the whole report still: every warning, each with its file
    [doc_card] = json.loads(out.out)["cards"]
    warnings = doc_card["load"]["warnings"]
    assert len(warnings) == total and all(w.startswith(f"{damaged.path} @ byte ") for w in warnings)


def test_the_text_output_lists_a_few_warnings_and_counts_the_rest(damaged, capsys):
    assert cli.stats_main([str(damaged.path), "--quiet"]) == EXIT_OK
    text = capsys.readouterr().out
    lines = text.splitlines()
    head = lines.index(f"  {damaged.path.name}: {damaged.path}")  # the Files section names the file
    listed = lines[head + 1:head + 2 + LISTED_WARNINGS]
    total = len(damaged.strays) + len(damaged.damaged)
    assert listed[0] == f"    {len(damaged.damaged)} event(s) dropped"
    offsets = sorted(damaged.strays + damaged.damaged)[:LISTED_WARNINGS]
    for warning, offset in zip(listed[1:], offsets, strict=True):
        assert warning.startswith(f"    warning at byte {offset}: "), warning
    assert lines[head + 2 + LISTED_WARNINGS] == \
        f"    … and {total - LISTED_WARNINGS} more warnings (stats --json lists them all)"
    assert text.count("warning at byte") == LISTED_WARNINGS
    assert text.count(str(damaged.path)) == 1


def test_a_card_of_several_files_names_each_file_once():
    """A card of per-iteration files: the places are grouped by file, each named once; a scan's count of
    the places it did not keep is said, not taken for more problems."""
    from timelineview.model.store.report import LoadReport

    report = LoadReport()
    a, b = "/run/rank0/part_0.json", "/run/rank0/part_1.json"
    report.drop("unreadable bytes (damaged event)", a, 700, 3)
    report.warn(f"{a} @ byte 700: unreadable bytes 700..790")  # the same place as the drop: one problem
    report.warn(f"{a} @ byte 90: stray bytes 90..91 between events: b'\"'")
    report.warn(f"{b} @ byte 40: stray ']' between events")
    report.warn(f"{b} @ byte 9000: … and 4 more damaged stretch(es)")
    line = report.overview("rank 0")
    assert line == ("3 problems: 1 event dropped (unreadable bytes (damaged event)), stray bytes skipped at 1 place, "
                    "stray ']' skipped at 1 place (4 more damaged stretch(es) not itemised); "
                    f"at {a} bytes 90, 700; {b} byte 40")
    assert line.count(a) == line.count(b) == 1
