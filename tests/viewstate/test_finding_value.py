"""A finding's value in the unit of its metric: sizes as sizes, durations without an exponent."""

from __future__ import annotations

import pytest

from timelineview.viewstate.tabs.finding_value import finding_value_text


@pytest.mark.parametrize(("metric", "value", "reference", "expected"), [
    # a 49.1 MB block against the rule's 10 % of a 73.1 MB peak (7.31 MB), not "4906 % against 731 %"
    ("allocation_mb", 49.1, 7.31, "49.1 MB against 7.31 MB"),
    ("peak_reserved_mb", 2169.6, 1188.0, "2.12 GB against 1.16 GB"),  # / 1024: 2.119, 1.160
    ("step_interval_us", 6_040_000.0, 2_000.0, "6.04 s against 2 ms"),  # not "6.04e+03 ms"
    ("step_time_us", 18_100.0, 15_200.0, "18.1 ms against 15.2 ms"),
    ("tail_us", 850.0, 12.5, "850 µs against 12.5 µs"),
    ("bandwidth_gbps", 4.2, 12.0, "4.2 GB/s against 12 GB/s"),
    ("share_of_compute", 0.41, 0.2, "41 % against 20 %"),
    ("odd_size_share", 0.004, 0.1, "0.4 % against 10 %"),
])
def test_value_in_the_unit_of_its_metric(metric, value, reference, expected):
    assert finding_value_text(metric, value, reference) == expected
