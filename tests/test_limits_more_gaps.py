"""``taskik.limits.limit.as_slice``: a contiguous increasing run of indices becomes the slice
that indexes the same entries, anything else an integer index array."""

from __future__ import annotations

import numpy as np
import pytest

from taskik.limits.limit import as_slice


@pytest.mark.parametrize(
    ("indices", "expected"),
    [([0, 1, 2], slice(0, 3)), ([2, 3, 4], slice(2, 5)), ([5], slice(5, 6)), ((7, 8), slice(7, 9))],
)
def test_a_contiguous_increasing_run_is_a_slice(indices, expected):
    for given in (np.array(indices), list(indices)):
        out = as_slice(given)
        assert isinstance(out, slice) and out == expected


@pytest.mark.parametrize("indices", [[0, 2, 3], [3, 2, 1], [1, 1], [4, 3]])
def test_other_indices_stay_an_integer_array(indices):
    out = as_slice(indices)
    assert isinstance(out, np.ndarray) and out.dtype.kind == "i"
    assert out.tolist() == indices


def test_no_indices_are_an_empty_integer_index():
    out = as_slice([])
    assert isinstance(out, np.ndarray) and out.dtype.kind == "i" and len(out) == 0
    assert np.arange(4.0)[out].shape == (0,)


def test_the_slice_and_the_array_index_the_same_entries():
    x = np.arange(10.0) ** 2
    for indices in ([3, 4, 5, 6], [0, 5, 9], [9]):
        assert np.array_equal(x[as_slice(np.array(indices))], x[indices])
