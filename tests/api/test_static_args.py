"""jit's static arguments key the cache by what they bake into the trace, not by `==`."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tf8
from tf8.errors import TracingError


def test_signed_zeros_are_different_static_values() -> None:
    # 0.0 == -0.0, but x * -0.0 is -0.0 for positive x: a shared trace returned +0.0.
    traces = []
    f = tf8.jit(lambda x, s: (traces.append(s), x * s)[1], static_argnums=1)
    assert not np.signbit(f(np.array([3.0]), 0.0)).any()
    assert np.signbit(f(np.array([3.0]), -0.0)).all()
    assert np.signbit(f(np.array([3.0]), complex(-0.0, 0.0)).real).all()
    assert np.signbit(f(np.array([3.0]), (-0.0,)[0])).all()  # a cache hit keeps the sign
    assert len(traces) == 3


def test_a_nan_static_value_hits_the_cache() -> None:
    traces = []
    f = tf8.jit(lambda x, s: (traces.append(s), x + s)[1], static_argnames="s")
    for _ in range(3):
        assert np.isnan(f(np.ones(2), s=float("nan"))).all()  # a fresh nan object each call
    assert len(traces) == 1


def test_static_tuples_compare_their_items_by_type_and_bits() -> None:
    traces = []
    f = tf8.jit(lambda x, ws: (traces.append(ws), x * ws[0] + ws[1])[1], static_argnums=1)
    f(np.ones(1), (1, 0.0))
    f(np.ones(1), (1.0, 0.0))
    f(np.ones(1), (1, -0.0))
    f(np.ones(1), (1, 0.0))
    assert traces == [(1, 0.0), (1.0, 0.0), (1, -0.0)]
    assert math.copysign(1.0, traces[2][1]) == -1.0


def test_unhashable_static_values_are_still_reported() -> None:
    f = tf8.jit(lambda x, ws: x * ws[0], static_argnums=1)
    with pytest.raises(TracingError, match="static argument 1 .* unhashable type list"):
        f(np.ones(1), [1.0])
    with pytest.raises(TracingError, match="unhashable type tuple"):
        f(np.ones(1), ([1.0],))
