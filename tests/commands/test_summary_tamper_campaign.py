"""A spread sample of the tampering campaign (``tests/commands/summary_tamper_campaign.py``): each tampered
copy of a real summary, read by ``timelineview stats DIR --json`` in its own process under a timeout, ends
without a hang, a traceback, exit 3, or numbers changed without a word."""

from __future__ import annotations

import collections

from tests.commands import summary_tamper_campaign as campaign
from tests.views.summary.conftest import summaries, traces  # noqa: F401 - the generated summaries, as fixtures

SAMPLE = 6  # each stats process takes about 0.5-1 s; the whole campaign (~1 500) is the script, run as a benchmark


def test_a_sample_of_the_campaign_breaks_no_rule(summaries, tmp_path):  # noqa: F811
    everything = campaign.mutations(summaries.whole, summaries.one_failed)
    assert len(everything) >= 1000
    assert {"truncated", "bytes flipped", "FIFO", "symlink out", "paths redirected", "huge", "wrong dtypes/layout",
            "mixed runs", "JSON fields"} <= {m.family for m in everything}
    outcomes = campaign.campaign(summaries.whole, summaries.one_failed, tmp_path, jobs=2, limit=SAMPLE)
    assert len(outcomes) == SAMPLE
    bad = [o for o in outcomes if o.verdict.startswith("VIOLATION")]
    assert not bad, bad
    verdicts = collections.Counter(o.verdict for o in outcomes)
    assert verdicts["exit 0, the card reported not read, the others printed"] > 0  # the sample reaches the cards


def test_the_verdicts_by_hand():
    base = b'{"cards": []}'
    assert campaign.verdict(None, b"", "", base) == "VIOLATION: hang (timeout)"
    assert campaign.verdict(3, b"", "timelineview stats: internal error: X", base).startswith("VIOLATION: exit 3")
    assert campaign.verdict(1, b"", "Traceback (most recent call last):\n", base) == "VIOLATION: traceback"
    assert campaign.verdict(0, b'{"cards": [1]}', "", base) == "VIOLATION: output changed without a word"
    assert campaign.verdict(0, b'{"cards": [1]}', "", base, forged=True) == "exit 0, forged values read as written"
    assert campaign.verdict(0, b'{"cards": [1]}', "rank 3: summary not read: x", base) == \
        "exit 0, the card reported not read, the others printed"
    assert campaign.verdict(1, b"", "timelineview stats: incomplete summary (x)", base) == \
        "exit 1, the reason on stderr"
    assert campaign.verdict(-9, b"", "", base) == "VIOLATION: killed by signal 9"
