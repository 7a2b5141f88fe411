"""These tests build programs by hand from concrete tensors: they record ops as a graph (as
jit's trace does) instead of computing them op by op, so the compiler and runtime see them."""

import pytest

import tf8


@pytest.fixture(autouse=True)
def _record_graphs():
    with tf8.recording():
        yield
