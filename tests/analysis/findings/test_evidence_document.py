"""Evidence spans are ns on the card's clock in every document, and one kept by an earlier version (µs after the
card's start) reads as the same instants."""

from __future__ import annotations

from timelineview.analysis.findings import Evidence

ORIGIN_NS = 1_736_412_474_000_746_306  # a card's start on its clock: past 2^53, where a float µs would round


def test_a_span_reads_back_as_written():
    span = Evidence("rank 1", ORIGIN_NS + 12_550_229_123, ORIGIN_NS + 32_983_419_001, "Steps")
    doc = span.document()
    assert doc == {"card": "rank 1", "start_ns": ORIGIN_NS + 12_550_229_123, "end_ns": ORIGIN_NS + 32_983_419_001,
                   "lane": "Steps"}
    assert Evidence.from_document(doc, 0) == span  # the card's start is not needed: the instants are absolute


def test_a_span_kept_in_microseconds_after_the_cards_start_reads_as_the_same_instants():
    kept = {"card": "rank 0", "start_us": 30_029.308, "end_us": 30_135.738, "name": "cann::trans_TransData_0"}
    assert Evidence.from_document(kept, ORIGIN_NS) == Evidence(
        "rank 0", ORIGIN_NS + 30_029_308, ORIGIN_NS + 30_135_738, None, "cann::trans_TransData_0")
