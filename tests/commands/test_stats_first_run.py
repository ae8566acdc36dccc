"""``stats`` on a first run (the compiled scanner not in numba's cache): on a terminal it says once, before
the progress, what the window's status line says, and that the compile outlives the command. The compile
itself is stood in for, as in tests/model/load/test_first_run.py. Each run reads the trace (``--no-cache``): a
card the cache serves needs no decode and starts no compile."""

from __future__ import annotations

import sys

import pytest

from timelineview import cli
from timelineview.commands.exit_codes import EXIT_OK
from timelineview.model.load import loader
from timelineview.model.load.chunked import decode_pool, decode_run
from timelineview.synthetic import CardSpec, generate_card


@pytest.fixture
def cold_scanner(monkeypatch):
    """Nothing in numba's cache; the load decodes with the typed path and starts the (stand-in) compile."""
    started: list[bool] = []
    for module in (decode_pool, decode_run):
        monkeypatch.setattr(module, "scanner_available", lambda: True)
        monkeypatch.setattr(module, "scanner_is_warm", lambda: False)
    monkeypatch.setattr(decode_pool, "scanner_cached", lambda: False)
    monkeypatch.setattr(loader, "compile_in_background", lambda: started.append(True) or True)
    monkeypatch.setattr(decode_run, "SCANNER_WORTH_BYTES", 1 << 10)  # the small file counts as a large one
    return started


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("first_run") / "t.json"
    generate_card(path, CardSpec(steps=2), "msprof")
    return path


def _on_a_terminal(monkeypatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)


def test_a_first_run_on_a_terminal_says_the_compile_goes_on_after_stats(trace, cold_scanner, capsys, monkeypatch):
    _on_a_terminal(monkeypatch)
    try:
        assert cli.stats_main([str(trace), "--json", "--no-cache"]) == EXIT_OK
    finally:
        loader.shutdown_pool()
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.strip()]
    note = loader.COMPILING_NOTE + cli.COMPILE_GOES_ON
    assert cold_scanner == [True]
    assert lines.count(note) == 1  # once, on a line of its own (the progress line is ended before it)
    assert "after stats exits" in note and "background" in note
    assert all(x.startswith("loading…") for x in lines if x != note)
    assert lines[-1].startswith("loading… 100%")


def test_quiet_or_not_a_terminal_says_nothing(trace, cold_scanner, capsys, monkeypatch):
    try:
        assert cli.stats_main([str(trace), "--json", "--no-cache"]) == EXIT_OK  # stderr is captured: not a terminal
        _on_a_terminal(monkeypatch)
        assert cli.stats_main([str(trace), "--json", "--quiet", "--no-cache"]) == EXIT_OK
    finally:
        loader.shutdown_pool()
    assert cold_scanner == [True, True]  # the compile was started both times (the note is only what is said)
    assert capsys.readouterr().err.strip() == ""


def test_a_warm_scanner_says_nothing_of_a_compile(trace, capsys, monkeypatch):
    _on_a_terminal(monkeypatch)
    for module in (decode_pool, decode_run):
        monkeypatch.setattr(module, "scanner_available", lambda: True)
    monkeypatch.setattr(decode_pool, "scanner_cached", lambda: True)  # cached: no compile after the load
    monkeypatch.setattr(loader, "compile_in_background", lambda: pytest.fail("a compile with the scanner cached"))
    monkeypatch.setattr(decode_run, "SCANNER_WORTH_BYTES", 1 << 10)
    try:
        assert cli.stats_main([str(trace), "--json", "--no-cache"]) == EXIT_OK
    finally:
        loader.shutdown_pool()
    err = capsys.readouterr().err
    assert "loading…" in err and "compile" not in err
