"""A sample of the page reader's fuzz (``page_fuzz_campaign``): 40 mutated databases, each read by SQLite,
the page reader and the load's path in worker processes; the reader never gives a value SQLite does not,
and no read dies or hangs."""

from __future__ import annotations

from tests.model.database.page_fuzz_campaign import QUICK_INPUTS, run, table


def test_the_quick_fuzz_finds_no_mismatch_crash_or_hang(tmp_path):
    outcomes = run(QUICK_INPUTS, seed=1, work=tmp_path)
    counts = table(outcomes)
    bad = [o for o in outcomes if o.verdict in ("mismatch", "crash", "hang")]
    assert counts["inputs"] == QUICK_INPUTS
    assert bad == []
    assert counts["agreed"] > 0  # the page reader did read values (and SQLite gave the same)
