"""The dot_general kernel's fast paths (matrix and vector products handed to BLAS) give what
the general transpose-and-matmul path and einsum give, for every 1-D/2-D dimension number."""

from __future__ import annotations

import numpy as np
import pytest

from tf8.ops.definition import definition
from tf8.ops.primitive import Primitive

LETTERS = "abcd"


def _einsum(x, y, lc, rc):
    xs, ys = list(LETTERS[: x.ndim]), list(LETTERS[x.ndim : x.ndim + y.ndim])
    for i, j in zip(lc, rc):
        ys[j] = xs[i]
    out = [c for i, c in enumerate(xs) if i not in lc] + [
        c for j, c in enumerate(ys) if j not in rc
    ]
    return np.einsum(f"{''.join(xs)},{''.join(ys)}->{''.join(out)}", x, y)


CASES = [
    ((3, 4), (4, 5), (1,), (0,)),
    ((3, 4), (4,), (1,), (0,)),
    ((4,), (4, 5), (0,), (0,)),
    ((4,), (4,), (0,), (0,)),
    ((4, 3), (4,), (0,), (0,)),
    ((4, 3), (4, 5), (0,), (0,)),
    ((3, 4), (5, 4), (1,), (1,)),
    ((4,), (5, 4), (0,), (1,)),
    ((3,), (5,), (), ()),
    ((3, 4), (5,), (), ()),
    ((3, 4), (4, 3), (0, 1), (1, 0)),
]


@pytest.mark.parametrize("xs, ys, lc, rc", CASES)
def test_dot_general_kernel_matches_einsum(xs, ys, lc, rc):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(xs), rng.standard_normal(ys)
    op = Primitive("dot_general", 2, contracting=(lc, rc), batch=((), ()))
    got = definition(op).kernel(op, x, y)
    expected = _einsum(x, y, lc, rc)
    assert np.shape(got) == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
