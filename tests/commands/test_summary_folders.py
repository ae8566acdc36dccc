"""The command line given summary folders (metrics.md §10): ``diff`` says that comparing runs reads their
traces and where a summary's traces are; ``stats`` on a damaged index says what the window says; a
screenshot honours ``--view timeline`` and ``--range`` on the first card by rank, drawn from its pyramid."""

from __future__ import annotations

import shutil

import orjson
import pytest

from tests.views.summary.conftest import summaries, traces  # noqa: F401 - the generated summaries, as fixtures
from timelineview import app, cli
from timelineview.commands import diff
from timelineview.commands.exit_codes import EXIT_NOTHING_READABLE, EXIT_OK
from timelineview.viewstate.timeline.pyramid_frame import span_ns

NS_PER_US = 1000


def _line(capsys) -> str:
    [line] = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    return line


def _copy(folder, tmp_path, name: str):
    out = tmp_path / name
    shutil.copytree(folder, out)
    return out


def _edit_index(folder, change) -> None:
    index = orjson.loads((folder / "index.json").read_bytes())
    change(index)
    (folder / "index.json").write_bytes(orjson.dumps(index))


def test_diff_of_two_summaries_says_which_traces_they_summarise(summaries, capsys):  # noqa: F811
    base, new = summaries.whole, summaries.one_failed
    assert diff.diff_main([str(base), str(new)]) == EXIT_NOTHING_READABLE  # nothing loaded: exit 1, with why
    line = _line(capsys)
    assert line.startswith("timelineview diff: both runs are summary folders, and comparing runs reads the "
                           "traces: "), line
    assert f"{base} summarises {summaries.traces.resolve()}" in line
    assert f"{new} summarises {summaries.traces_one_failed.resolve()}" in line
    for path in (base, new, summaries.traces.resolve(), summaries.traces_one_failed.resolve()):
        assert line.count(str(path)) == 1, (path, line)


def test_diff_of_a_summary_and_traces(summaries, tmp_path, capsys):  # noqa: F811
    assert diff.diff_main([str(summaries.whole), str(summaries.traces)]) == EXIT_NOTHING_READABLE
    line = _line(capsys)
    source = summaries.traces.resolve()
    assert line == (f"timelineview diff: {summaries.whole} is a summary folder, and comparing runs reads the traces: "
                    f"it summarises {source}")
    # two summaries of one run: that run named once
    again = _copy(summaries.whole, tmp_path, "again")
    assert diff.diff_main([str(summaries.whole), str(again)]) == EXIT_NOTHING_READABLE
    line = _line(capsys)
    assert line.endswith(f"both summarise {source}") and line.count(str(source)) == 1, line


def test_without_the_index_source_the_card_manifests_say(summaries, tmp_path, capsys):  # noqa: F811
    """An index that does not say what it summarised: the folder holding every card's trace files."""
    folder = _copy(summaries.whole, tmp_path, "older")
    _edit_index(folder, lambda index: index.pop("source"))
    gone = tmp_path / "gone"
    moved = _copy(summaries.whole, tmp_path, "moved")  # a summary of traces that are not on this machine
    _edit_index(moved, lambda index: index.update(source=str(gone)))
    assert diff.diff_main([str(folder), str(moved)]) == EXIT_NOTHING_READABLE
    line = _line(capsys)
    assert f"{folder} summarises {summaries.traces.resolve()};" in line, line
    assert line.endswith(f"{moved} summarises {gone}, not on this machine"), line


def test_stats_on_a_damaged_index_says_what_the_window_says(summaries, tmp_path, capsys):  # noqa: F811
    from timelineview.views.jobs.job import JobContext, JobFailed
    from timelineview.views.jobs.summary_job import read_summary

    folder = _copy(summaries.whole, tmp_path, "cut")
    (folder / "index.json").write_bytes((summaries.whole / "index.json").read_bytes()[:57])
    assert cli.stats_main([str(folder), "--quiet"]) == EXIT_NOTHING_READABLE
    line = _line(capsys)
    reason = f"{folder} is not a readable summary folder (its index.json: JSONDecodeError: "
    assert line.startswith(f"timelineview stats: {reason}") and "no trace files found" not in line, line
    with pytest.raises(JobFailed) as told:
        read_summary(JobContext(lambda kind, payload: None), folder)
    assert told.value.text == line.removeprefix("timelineview stats: ") + "."  # one text, for both


def test_stats_on_a_summary_without_a_summarised_card(summaries, tmp_path, capsys):  # noqa: F811
    folder = _copy(summaries.whole, tmp_path, "none")
    _edit_index(folder, lambda index: [c.update(status="failed") for c in index["cards"]])
    assert cli.stats_main([str(folder), "--json"]) == EXIT_NOTHING_READABLE
    cards = len(orjson.loads((folder / "index.json").read_bytes())["cards"])
    assert _line(capsys) == (f"timelineview stats: the summary {folder} holds no card that was summarised "
                             f"({cards} failed)")


# ---------------------------------------------------------------------------------------------- screenshots
@pytest.fixture
def rendered(monkeypatch):
    """What the window shows when ``--screenshot`` renders it."""
    from timelineview.views import screenshot

    seen: dict = {}
    real = screenshot.render_window

    def render(win, out, size, range_us=None):
        overview = win.cluster.overview
        tabs = win.cluster.tabs
        on_timeline = tabs.currentIndex() == 0
        seen.update(comparison=tabs.currentWidget() is win.cluster.view,
                    pyramid=on_timeline and overview.showing_pyramid and overview.card is not None,
                    card=overview.card and overview.card.card,
                    window=(win.timeline.ctx.viewport.t0, win.timeline.ctx.viewport.t1),  # the card's start: 0
                    span=span_ns(overview.pyramid) if overview.pyramid else None,
                    trace_cards=[c.title for c in win.timeline.cards if c.coverage_source is None], range_us=range_us,
                    timeline_window=(win.timeline.ctx.viewport.t0, win.timeline.ctx.viewport.t1))
        return real(win, out, size, range_us)

    monkeypatch.setattr(screenshot, "render_window", render)
    return seen


def _shoot(folder, tmp_path, *options) -> int:
    args = app.parse_args([str(folder), "--screenshot", str(tmp_path / "shot.png"), "--size", "1200x700", *options])
    return app._screenshot(args, (1200, 700))


def _first_by_rank(folder) -> str:
    cards = [c for c in orjson.loads((folder / "index.json").read_bytes())["cards"] if c["status"] == "ok"]
    return min(cards, key=lambda c: c["rank"])["card"]


def test_screenshot_view_timeline_of_a_summary_draws_the_first_card(qapp, summaries, tmp_path, rendered, capsys):  # noqa: F811
    assert _shoot(summaries.whole, tmp_path, "--view", "timeline") == EXIT_OK
    assert rendered["pyramid"] and not rendered["comparison"]
    assert rendered["card"] == _first_by_rank(summaries.whole)
    (t0, t1), span = rendered["window"], rendered["span"]
    assert t0 <= 0 and span <= t1 and t1 - t0 < 1.1 * span, (t0, t1, span)  # the whole card (with a margin)
    assert not rendered["trace_cards"]
    assert capsys.readouterr().err.count("ignored") == 0


def test_screenshot_range_of_a_summary_is_on_the_cards_pyramid(qapp, summaries, tmp_path, rendered):  # noqa: F811
    t0_us, t1_us = 2000.0, 6000.0  # wider than the pyramid's buckets: the pyramid shows it
    assert _shoot(summaries.whole, tmp_path, "--range", str(t0_us), str(t1_us)) == EXIT_OK
    assert rendered["pyramid"] and rendered["card"] == _first_by_rank(summaries.whole)
    assert rendered["window"] == (t0_us * NS_PER_US, t1_us * NS_PER_US)
    assert rendered["range_us"] is None  # not applied a second time to the (empty) timeline


def test_screenshot_range_finer_than_the_pyramid_shows_the_cards_trace(qapp, summaries, tmp_path, rendered):  # noqa: F811
    t0_us, t1_us = 2000.0, 2010.0  # 10 µs: finer than the pyramid, so the trace is loaded, as zooming does
    assert _shoot(summaries.whole, tmp_path, "--view", "timeline", "--range", str(t0_us), str(t1_us)) == EXIT_OK
    assert not rendered["pyramid"] and len(rendered["trace_cards"]) == 1
    t0, t1 = rendered["timeline_window"]
    assert t1 - t0 == pytest.approx((t1_us - t0_us) * NS_PER_US, abs=1)


def test_screenshot_range_on_a_summary_comparison_says_it_is_ignored(qapp, summaries, tmp_path, rendered, capsys):  # noqa: F811
    assert _shoot(summaries.whole, tmp_path, "--view", "cluster", "--range", "1", "2") == EXIT_OK
    assert rendered["comparison"] and not rendered["pyramid"]
    [line] = [x for x in capsys.readouterr().err.splitlines() if "--range" in x]
    assert "summary folder" in line and "ignored" in line
    # without --view or --range a summary still opens on its comparison
    assert _shoot(summaries.whole, tmp_path) == EXIT_OK
    assert rendered["comparison"] and not rendered["pyramid"]
