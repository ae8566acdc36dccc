"""distinct_inverse / first_positions against numpy's unique, on dense and on sparse value ranges, read whole and
a few values at a time; turn_distinct_in_place against a plain Python mapping."""

import numpy as np
import pytest

from timelineview.analysis.kernels import dense_ids
from timelineview.analysis.kernels.dense_ids import distinct_inverse, first_positions, turn_distinct_in_place


@pytest.mark.parametrize("chunk", [dense_ids.CHUNK, 333])
@pytest.mark.parametrize("inverse_dtype", [np.int64, np.int32])
@pytest.mark.parametrize("high", [50, 10**12])  # a presence table, and the sort it falls back to
def test_same_as_numpy_unique(high, inverse_dtype, chunk, monkeypatch):
    monkeypatch.setattr(dense_ids, "CHUNK", chunk)
    values = np.random.default_rng(4).integers(-3, high, 5000)
    uniq, inverse = distinct_inverse(values, inverse_dtype)
    expected, index, expected_inverse = np.unique(values, return_index=True, return_inverse=True)
    assert np.array_equal(uniq, expected) and np.array_equal(inverse, expected_inverse.reshape(-1))
    assert inverse.dtype == inverse_dtype
    assert np.array_equal(first_positions(inverse, len(uniq)), index)


def test_empty():
    uniq, inverse = distinct_inverse(np.zeros(0, np.int32))
    assert len(uniq) == 0 and len(inverse) == 0


@pytest.mark.parametrize("chunk", [dense_ids.CHUNK, 333])
@pytest.mark.parametrize("high", [50, 2**31 - 1])  # a lookup table, and the sort it falls back to
def test_turn_in_place_calls_each_distinct_value_once_in_ascending_order(high, chunk, monkeypatch):
    monkeypatch.setattr(dense_ids, "CHUNK", chunk)
    values = np.random.default_rng(5).integers(-1, high, 5000).astype(np.int32)
    original = values.tolist()
    called = []

    def turn(value: int) -> int:
        called.append(value)
        return len(called) * 10

    turn_distinct_in_place(values, turn)
    assert called == sorted(set(original))
    mapping = {v: 10 * (k + 1) for k, v in enumerate(called)}
    assert values.tolist() == [mapping[v] for v in original]
