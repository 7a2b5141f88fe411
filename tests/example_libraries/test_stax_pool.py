"""stax's pooling layers (`MaxPool`, `SumPool`, `AvgPool`): outputs against numpy loops over
the spatial windows (NHWC and other specs, VALID and SAME), AvgPool's SAME divisor, init_fun's
shapes against apply_fun's (and JAX's for a -1 batch), gradients, and a small convnet-like
stack under jit and vmap."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import random
from tf8.errors import ParameterError
from tf8.example_libraries import stax

RNG = np.random.default_rng(3)


def _pool_reference(x, window, strides, padding, reduce, spec="NHWC"):
    """`reduce` over each spatial window of `x` (a loop), and how many inputs each held."""
    n_axis, c_axis = spec.index("N"), spec.index("C")
    spatial = [i for i in range(x.ndim) if i not in (n_axis, c_axis)]
    x = np.moveaxis(x, (n_axis, c_axis), (0, x.ndim - 1))  # N, spatial..., C
    sizes = x.shape[1:-1]
    strides = strides or (1,) * len(window)
    if padding == "SAME":
        outs = [-(-n // s) for n, s in zip(sizes, strides)]
        lows = [
            max((o - 1) * s + w - n, 0) // 2 for o, s, w, n in zip(outs, strides, window, sizes)
        ]
    else:
        outs = [(n - w) // s + 1 for n, w, s in zip(sizes, window, strides)]
        lows = [0] * len(sizes)
    out = np.zeros((x.shape[0], *outs, x.shape[-1]))
    counts = np.zeros(outs)
    for o in itertools.product(*map(range, outs)):
        ranges = []
        for oi, s, w, lo, n in zip(o, strides, window, lows, sizes):
            start = oi * s - lo
            ranges.append(slice(max(start, 0), min(start + w, n)))
        block = x[(slice(None), *ranges, slice(None))]
        out[(slice(None), *o, slice(None))] = reduce(block, axis=tuple(range(1, x.ndim - 1)))
        counts[o] = np.prod([r.stop - r.start for r in ranges])
    back = (0, x.ndim - 1)
    return np.moveaxis(out, back, (n_axis, c_axis)), counts, spatial


CONFIGS = [
    ((2, 2), (2, 2), "VALID", "NHWC"),
    ((3, 3), None, "SAME", "NHWC"),
    ((3, 2), (2, 1), "SAME", "NHWC"),
    ((2, 3), (1, 2), "VALID", "NCHW"),
    ((3,), (2,), "SAME", "NWC"),
]


@pytest.mark.parametrize("window, strides, padding, spec", CONFIGS)
def test_layers_match_loops_over_the_windows(window, strides, padding, spec):
    shape = {"NHWC": (2, 7, 6, 3), "NCHW": (2, 3, 7, 6), "NWC": (2, 9, 4)}[spec]
    x = RNG.standard_normal(shape)
    given = None if spec.startswith("N") and spec.endswith("C") else spec
    expected_max, counts, spatial = _pool_reference(x, window, strides, padding, np.max, spec)
    expected_sum, _, _ = _pool_reference(x, window, strides, padding, np.sum, spec)
    divisor = np.expand_dims(counts, (spec.index("N"), spec.index("C")))
    for layer, expected in (
        (stax.MaxPool, expected_max),
        (stax.SumPool, expected_sum),
        (stax.AvgPool, expected_sum / divisor),
    ):
        init_fun, apply_fun = layer(window, strides, padding, spec=given)
        out_shape, params = init_fun(random.PRNGKey(0), shape)
        out = apply_fun(params, x)
        assert params == () and out_shape == out.shape == expected.shape
        np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-12, err_msg=layer.__name__)
    assert spatial  # the loop pooled some axes


def test_avg_pool_same_divides_by_the_elements_each_window_holds():
    x = np.ones((1, 3, 3, 1))
    _, apply_fun = stax.AvgPool((2, 2), padding="SAME")
    np.testing.assert_allclose(np.asarray(apply_fun((), x)), np.ones((1, 3, 3, 1)))
    _, sum_fun = stax.SumPool((2, 2), padding="SAME")
    expected = [[4, 4, 2], [4, 4, 2], [2, 2, 1]]  # windows cut by the (0, 1) padding
    np.testing.assert_allclose(np.asarray(sum_fun((), x))[0, :, :, 0], expected)


def test_init_fun_with_an_unknown_batch_matches_jax():
    """JAX's shape rule floors a -1 batch to 0 (max(0, (d - 1) // 1 + 1)): kept as JAX's."""
    for layer in (stax.MaxPool, stax.AvgPool):
        init_fun, _ = layer((2, 2), (2, 2), "SAME")
        assert init_fun(random.PRNGKey(0), (-1, 28, 28, 3)) == ((0, 14, 14, 3), ())
    init_fun, _ = stax.MaxPool((2, 2), (2, 2), spec="NCHW")
    assert init_fun(random.PRNGKey(0), (-1, 3, 28, 28)) == ((0, 3, 14, 14), ())


def test_pool_gradients_to_second_order():
    x = (RNG.permutation(2 * 5 * 6 * 2) * 0.1).reshape(2, 5, 6, 2)  # no ties
    for layer in (stax.MaxPool, stax.AvgPool, stax.SumPool):
        _, apply_fun = layer((2, 2), (2, 1), "SAME")
        tf8.check_grads(lambda v, f=apply_fun: f((), v), (x,), order=2, modes=("fwd", "rev"))


def test_a_small_convnet_like_stack_under_jit_and_vmap():
    init_fun, apply_fun = stax.serial(
        stax.Dense(4), stax.Relu, stax.MaxPool((2, 2), (2, 2)), stax.Flatten, stax.Dense(3)
    )
    out_shape, params = init_fun(random.PRNGKey(1), (5, 6, 6, 2))
    x = RNG.standard_normal((5, 6, 6, 2))
    eager = apply_fun(params, x)
    assert out_shape == eager.shape == (5, 3)
    np.testing.assert_allclose(np.asarray(tf8.jit(apply_fun)(params, x)), np.asarray(eager))

    def loss(p, v):
        return tnp.sum(apply_fun(p, v) ** 2)

    grads = tf8.jit(tf8.grad(loss))(params, x)
    eager_grads = tf8.grad(loss)(params, x)
    for g, e in zip(tf8.tree.leaves(grads), tf8.tree.leaves(eager_grads)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-12, atol=1e-14)
    one = lambda v: apply_fun(params, v[None])[0]  # noqa: E731
    batched = tf8.vmap(one)(x)
    np.testing.assert_allclose(np.asarray(batched), np.asarray(eager), rtol=1e-12)


def test_bad_layer_settings_raise_tf8_errors():
    with pytest.raises(ParameterError, match="strides"):
        stax.MaxPool((2, 2), strides=(2,))
    with pytest.raises(ParameterError, match="spec"):
        stax.AvgPool((2, 2), spec="HWXY")
    _, apply_fun = stax.MaxPool((2, 2))
    with pytest.raises(tf8.errors.ShapeError, match="window_dimensions"):
        apply_fun((), np.ones((4, 4)))  # a 2-d input for a 2-d window over NHWC
