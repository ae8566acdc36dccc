"""A load's progress in words: a database's rows as rows (300 000 rows read was "0 of 0 MB"), files under
10 MB with a decimal, a database whose rows are being counted said to be counting them."""

from __future__ import annotations

from timelineview.viewstate.load_progress import BYTES, ROWS, CardRead, progress_words


def test_database_rows_are_never_megabytes():
    cards = [CardRead(120_000, 300_000, ROWS), CardRead(0, 250_000, ROWS)]
    assert progress_words(cards, 1) == "120 000 of 550 000 rows read · 1 reading now"


def test_small_files_keep_a_decimal_and_large_ones_whole_mb():
    assert progress_words([CardRead(300_000, 700_000, BYTES)], 0) == "0.3 of 0.7 MB read"
    assert progress_words([CardRead(120_400_000, 340_000_000, BYTES)], 1) == "120 of 340 MB read · 1 reading now"


def test_files_and_databases_are_said_apart_and_an_unsized_database_is_counting():
    cards = [CardRead(2_000_000, 4_000_000, BYTES), CardRead(10, 40, ROWS), CardRead(0, 1, ROWS)]
    assert progress_words(cards, 2) == "2.0 of 4.0 MB read · 10 of 40 rows read · 1 counting its rows · 2 reading now"
    assert progress_words([CardRead(0, 0, BYTES)], 0) == ""  # nothing known yet: nothing said
