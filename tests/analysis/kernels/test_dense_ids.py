"""distinct_inverse / first_positions against numpy's unique, on dense and on sparse value ranges."""

import numpy as np
import pytest

from timelineview.analysis.kernels.dense_ids import distinct_inverse, first_positions


@pytest.mark.parametrize("high", [50, 10**12])  # a presence table, and the sort it falls back to
def test_same_as_numpy_unique(high):
    values = np.random.default_rng(4).integers(-3, high, 5000)
    uniq, inverse = distinct_inverse(values)
    expected, index, expected_inverse = np.unique(values, return_index=True, return_inverse=True)
    assert np.array_equal(uniq, expected) and np.array_equal(inverse, expected_inverse.reshape(-1))
    assert np.array_equal(first_positions(inverse, len(uniq)), index)


def test_empty():
    uniq, inverse = distinct_inverse(np.zeros(0, np.int32))
    assert len(uniq) == 0 and len(inverse) == 0
