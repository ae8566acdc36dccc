"""The one number format of the surfaces a person reads: digits grouped in threes with a space, three decimals
(none for what is counted), no exponent, no -0."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.text_table import format_cell
from timelineview.analysis.vocabulary.number_text import format_in_unit, format_number


@pytest.mark.parametrize(("value", "text"), [
    (2169.6015625, "2 169.602"), (1188.0, "1 188.000"), (153888.4, "153 888.400"), (0.5, "0.500"),
    (1736412474001000.0, "1 736 412 474 001 000.000"), (12345678, "12 345 678"), (np.int64(4096), "4 096"),
    (-0.0001, "0.000"), (-1234.5, "-1 234.500"), (None, "—"), (float("nan"), "—"), (True, "True"),
])
def test_format_number(value, text):
    assert format_number(value) == text


def test_a_change_is_signed_and_units_set_the_decimals():
    assert format_number(1500.25, sign=True) == "+1 500.250" and format_number(-2.0, sign=True) == "-2.000"
    assert format_in_unit(1234.5, "µs") == "1 234.500" and format_in_unit(1234, "bytes") == "1 234"
    assert format_in_unit(19.18041, "GB/s") == "19.180"


def test_the_text_tables_print_through_it():
    assert [format_cell(v) for v in (2169.6015625, 12345, None, "rank 0")] == ["2 169.602", "12 345", "-", "rank 0"]
