"""`lax.reduce_window` and its primitives: values against a Python loop over every window
(strides, padding, base and window dilation, 1-D to 4-D), derivatives against finite
differences to second order, ties as JAX breaks them, vmap against a loop, jit on every
installed engine, and the errors for bad windows."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import tf8
import tf8.lax as lax
from tf8.errors import DTypeError, ParameterError, ShapeError, TreeStructureError
from tf8.lax.core import apply1

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))
from window_cases import (  # noqa: E402
    gather_reference,
    identity,
    reduce_reference,
    scatter_reference,
)

RNG = np.random.default_rng(0)
MONOIDS = {"sum": (lax.add, 0.0, np.add), "max": (lax.max, -np.inf, np.maximum),
           "min": (lax.min, np.inf, np.minimum)}  # fmt: skip

# (shape, window, strides, padding, base_dilation, window_dilation)
CONFIGS = [
    ((7,), (3,), (1,), "VALID", None, None),
    ((7,), (2,), (2,), "SAME", None, None),
    ((7,), (3,), (2,), "SAME_LOWER", None, None),
    ((6,), (2,), (1,), ((-1, 2),), None, None),
    ((5,), (2,), (3,), ((1, 1),), (2,), (2,)),
    ((5,), (7,), (1,), "VALID", None, None),  # no window fits: an empty result
    ((4, 5), (2, 2), (2, 2), "VALID", None, None),
    ((4, 5), (3, 2), (1, 2), "SAME", None, (2, 1)),
    ((4, 5), (2, 3), (2, 1), ((1, 0), (2, 1)), (1, 2), None),
    ((3, 4, 5), (1, 2, 3), (1, 2, 1), ((0, 0), (1, 1), (0, 2)), (2, 1, 1), (1, 1, 2)),
    ((2, 3, 6, 6), (1, 1, 2, 2), (1, 1, 2, 2), "VALID", None, None),
    ((2, 3, 5, 6), (1, 1, 3, 3), (1, 1, 1, 2), "SAME", None, None),
    ((2, 2, 4, 3), (2, 1, 2, 2), (1, 1, 1, 1), ((0, 1), (0, 0), (1, 1), (1, 0)), (1, 1, 2, 1),
     (1, 1, 1, 2)),
]  # fmt: skip


def _params(shape, window, strides, padding, base, rates):
    """The primitive's parameters for a config (JAX's padding names resolved)."""
    n = len(shape)
    strides = strides or (1,) * n
    base, rates = base or (1,) * n, rates or (1,) * n
    if isinstance(padding, str):
        spans = [(w - 1) * r + 1 for w, r in zip(window, rates)]
        padding = lax.padtype_to_pads(shape, spans, strides, padding)
    return {
        "window_dimensions": tuple(window),
        "window_strides": tuple(strides),
        "padding": tuple(tuple(p) for p in padding),
        "base_dilation": tuple(base),
        "window_dilation": tuple(rates),
    }


def _call(kind, x, config):
    computation, init, _ = MONOIDS[kind]
    _, window, strides, padding, base, rates = config
    return lax.reduce_window(x, init, computation, window, strides, padding, base, rates)


def _distinct(shape, seed=0):
    """Values without ties (a max-pool is smooth there), spaced 0.37 apart."""
    size = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(size) * 0.37 - size * 0.18).reshape(shape)


# --- values -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}")
def test_monoids_match_a_loop_over_windows(kind, config):
    x = RNG.integers(-5, 6, config[0]).astype(np.float64)  # whole numbers: ties are common
    _, init, fn = MONOIDS[kind]
    expected = reduce_reference(x, _params(*config), fn, init)
    got = _call(kind, x, config)
    np.testing.assert_array_equal(np.asarray(got), expected)
    jitted = tf8.jit(lambda v: _call(kind, v, config))(x)
    np.testing.assert_array_equal(np.asarray(jitted), expected)
    assert got.shape == lax.reduce_window_shape_tuple(config[0], *_params(*config).values())


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.int64])
def test_dtypes_are_kept(dtype):
    x = RNG.integers(0, 9, (4, 6)).astype(dtype)
    params = _params((4, 6), (2, 3), (1, 2), "SAME", None, None)
    for kind in ("sum", "max", "min"):
        out = apply1(f"reduce_window_{kind}", [tf8.tensor(x)], **params)
        fn = {"sum": np.add, "max": np.maximum, "min": np.minimum}[kind]
        expected = reduce_reference(x, params, fn, identity(np.dtype(dtype), kind))
        assert out.dtype == dtype
        np.testing.assert_array_equal(np.asarray(out), expected)


def test_bool_max_and_min_are_or_and_and():
    x = np.array([[True, False, False], [False, False, True]])
    got_max = lax.reduce_window(x, False, lax.max, (1, 2), (1, 1), "VALID")
    got_min = lax.reduce_window(x, True, lax.min, (2, 1), (1, 1), "VALID")
    assert got_max.dtype == np.bool_
    np.testing.assert_array_equal(np.asarray(got_max), [[True, False], [False, True]])
    np.testing.assert_array_equal(np.asarray(got_min), [[False, False, False]])


def test_nan_propagates_through_max_and_padding_holds_the_identity():
    x = np.array([1.0, np.nan, 3.0, 0.0, -1.0])
    out = np.asarray(lax.reduce_window(x, -np.inf, lax.max, (2,), (2,), ((1, 1),)))
    np.testing.assert_array_equal(out, [1.0, np.nan, 0.0])


def test_general_computations_fold_from_the_initial_value():
    x = RNG.uniform(0.5, 1.5, (5, 4))
    config = ((5, 4), (2, 3), (1, 1), ((1, 0), (0, 1)), (2, 1), None)
    params = _params(*config)
    got = lax.reduce_window(x, 1.0, lax.mul, *(v for v in config[1:]))
    np.testing.assert_allclose(np.asarray(got), reduce_reference(x, params, np.multiply, 1.0))
    # lax.add with an init that is not its identity: XLA adds it once per window and fills
    # the padding with it
    got = lax.reduce_window(x, 2.0, lax.add, *(v for v in config[1:]))
    np.testing.assert_allclose(np.asarray(got), reduce_reference(x, params, np.add, 2.0))
    logaddexp = lambda a, b: tf8.numpy.logaddexp(a, b)  # noqa: E731
    got = lax.reduce_window(x, -np.inf, logaddexp, (2, 2), (1, 1), "VALID")
    ref = reduce_reference(
        x, _params((5, 4), (2, 2), None, "VALID", None, None), np.logaddexp, -np.inf
    )
    np.testing.assert_allclose(np.asarray(got), ref)


def test_pytree_operands_reduce_together():
    x, y = RNG.uniform(-1, 1, (6,)), RNG.uniform(0.5, 2, (6,))

    def both(a, b):
        return {"s": a["s"] + b["s"], "p": a["p"] * b["p"]}

    out = lax.reduce_window({"s": x, "p": y}, {"s": 0.0, "p": 1.0}, both, (3,), (1,), "VALID")
    params = _params((6,), (3,), None, "VALID", None, None)
    np.testing.assert_allclose(np.asarray(out["s"]), reduce_reference(x, params, np.add, 0.0))
    np.testing.assert_allclose(np.asarray(out["p"]), reduce_reference(y, params, np.multiply, 1.0))


def test_monoid_only_with_the_identity():
    """JAX's test: lax.max with -inf is the primitive; any other init is a fold."""
    program = tf8.make_program(lambda v: lax.reduce_window(v, -np.inf, lax.max, (2,)))(np.ones(4))
    assert "reduce_window_max" in program.pretty()
    program = tf8.make_program(lambda v: lax.reduce_window(v, 5.0, lax.max, (2,)))(np.ones(4))
    assert "reduce_window_max" not in program.pretty() and "maximum" in program.pretty()
    np.testing.assert_array_equal(
        np.asarray(lax.reduce_window(np.arange(4.0), 1.5, lax.max, (2,))), [1.5, 2.0, 3.0]
    )


# --- derivatives ------------------------------------------------------------------------------


def _smooth_cases():
    """(kind, config) pairs whose every window holds an element: a window of only padding
    has a -inf maximum, where finite differences mean nothing."""
    for config in CONFIGS[::2]:
        windows = reduce_reference(np.zeros(config[0]), _params(*config), np.maximum, -np.inf)
        for kind in ("sum", "max", "min"):
            if kind == "sum" or (windows.size and np.isfinite(windows).all()):
                yield kind, config


@pytest.mark.parametrize("kind, config", list(_smooth_cases()), ids=str)
def test_derivatives_to_second_order(kind, config):
    x = _distinct(config[0])
    tf8.check_grads(lambda v: _call(kind, v, config) * 1.0, (x,), order=2, modes=("fwd", "rev"))


def test_max_pool_derivatives_with_every_dilation_and_padding():
    x = _distinct((3, 5))

    def f(v):
        pads = ((1, 0), (0, 1))
        return lax.reduce_window(v, -np.inf, lax.max, (2, 2), (1, 2), pads, (1, 1), (2, 1))

    tf8.check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    g = lambda v: lax.reduce_window(v, np.inf, lax.min, (2, 2), (2, 2), "VALID", (2, 1), (1, 1))  # noqa: E731
    tf8.check_grads(g, (x,), order=2, modes=("fwd", "rev"))


def test_general_computation_derivatives_to_second_order():
    x = RNG.uniform(0.5, 1.5, (4, 5))
    f = lambda v: lax.reduce_window(v, 1.0, lax.mul, (2, 2), (1, 2), ((1, 0), (0, 1)))  # noqa: E731
    tf8.check_grads(f, (x,), order=2, modes=("fwd", "rev"))


def test_ties_go_to_the_first_element_as_in_jax():
    """Recorded from jax 0.10.2: a window of equal maxima sends its cotangent (and takes its
    tangent) from the first; a window of -inf only: the VJP picks its first element (padding
    included), the JVP gives 0 (its choice starts from the identity)."""
    f = lambda v: lax.reduce_window(v, -np.inf, lax.max, (3,), (1,), "VALID")  # noqa: E731
    x = np.array([1.0, 1.0, 1.0, 2.0, 2.0, 0.0])
    _, pullback = tf8.vjp(f, x)
    np.testing.assert_array_equal(np.asarray(pullback(np.array([1.0, 10, 100, 1000]))[0]),
                                  [1.0, 0, 0, 1110, 0, 0])  # fmt: skip
    _, tangent = tf8.jvp(f, (x,), (np.arange(1.0, 7.0),))
    np.testing.assert_array_equal(np.asarray(tangent), [1.0, 4, 4, 4])
    g = lambda v: lax.reduce_window(v, np.inf, lax.min, (3,), (1,), "VALID")  # noqa: E731
    np.testing.assert_array_equal(np.asarray(tf8.vjp(g, x)[1](np.array([1.0, 10, 100, 1000]))[0]),
                                  [1.0, 10, 100, 0, 0, 1000])  # fmt: skip
    h = lambda v: lax.reduce_window(v, -np.inf, lax.max, (2,), (1,), ((1, 1),))  # noqa: E731
    y = np.array([-np.inf, -np.inf, 3.0])
    np.testing.assert_array_equal(np.asarray(tf8.vjp(h, y)[1](np.array([1.0, 10, 100, 1000]))[0]),
                                  [10.0, 0, 1100])  # fmt: skip
    np.testing.assert_array_equal(np.asarray(tf8.jvp(h, (y,), (np.array([1.0, 2, 3]),))[1]),
                                  [0.0, 0, 3, 3])  # fmt: skip
    z = np.array([1.0, np.nan, 3.0, 0.0])  # a NaN is passed by the next element
    np.testing.assert_array_equal(
        np.asarray(tf8.vjp(f, z)[1](np.array([1.0, 10]))[0]), [0, 0, 11, 0]
    )
    np.testing.assert_array_equal(np.asarray(tf8.jvp(f, (z,), (np.arange(1.0, 5.0),))[1]), [3, 3])


@pytest.mark.parametrize("select_prim", ["ge", "le"])
def test_selecting_rows_match_loops_and_transpose_each_other(select_prim):
    x = RNG.integers(-3, 4, (5, 6)).astype(np.float64)  # ties
    params = {
        "select_prim": select_prim,
        **_params((5, 6), (2, 3), (2, 1), ((1, 0), (1, 2)), (1, 2), (2, 1)),
    }
    t = RNG.standard_normal(x.shape)
    gathered = apply1("select_and_gather_add", [tf8.tensor(t), tf8.tensor(x)], **params)
    np.testing.assert_array_equal(np.asarray(gathered), gather_reference(t, x, params))
    s = RNG.standard_normal(gathered.shape)
    scattered = apply1("select_and_scatter_add", [tf8.tensor(s), tf8.tensor(x)], **params)
    np.testing.assert_allclose(np.asarray(scattered), scatter_reference(s, x, params))
    # without ties (and identities) the two are transposes: <scatter(s), t> == <s, gather(t)>
    x = _distinct(x.shape)
    gathered = apply1("select_and_gather_add", [tf8.tensor(t), tf8.tensor(x)], **params)
    scattered = apply1("select_and_scatter_add", [tf8.tensor(s), tf8.tensor(x)], **params)
    assert np.vdot(np.asarray(scattered), t) == pytest.approx(np.vdot(s, np.asarray(gathered)))


@pytest.mark.parametrize("seed", range(6))
def test_selecting_rows_follow_xla_with_nan_and_infinities(seed):
    """NaN and -inf values (the walk, not the first-equal shortcut): the gather skips padding
    and holes and starts from -inf; the scatter visits them from the first element."""
    rng = np.random.default_rng(seed)
    shape = (4, 5)
    x = rng.choice([np.nan, -np.inf, np.inf, 0.0, 1.0, 1.0, 2.0], size=shape)
    dims = tuple(int(v) for v in rng.integers(1, 4, 2))
    pads = tuple((int(a), int(b)) for a, b in rng.integers(0, 2, (2, 2)))
    base = tuple(int(v) for v in rng.integers(1, 3, 2))
    params = {
        "select_prim": ["ge", "le"][seed % 2],
        **_params(shape, dims, (1, 2), pads, base, None),
    }
    t = rng.standard_normal(shape)
    gathered = apply1("select_and_gather_add", [tf8.tensor(t), tf8.tensor(x)], **params)
    np.testing.assert_array_equal(np.asarray(gathered), gather_reference(t, x, params))
    s = rng.standard_normal(gathered.shape)
    scattered = apply1("select_and_scatter_add", [tf8.tensor(s), tf8.tensor(x)], **params)
    np.testing.assert_allclose(np.asarray(scattered), scatter_reference(s, x, params))


def test_infinite_tangents_and_cotangents_stay_where_they_are_chosen():
    f = lambda v: lax.reduce_window(v, -np.inf, lax.max, (2,), (2,), "VALID")  # noqa: E731
    x = np.array([0.0, 1.0, 3.0, 2.0])
    (grad,) = tf8.vjp(f, x)[1](np.array([np.inf, 1.0]))
    np.testing.assert_array_equal(np.asarray(grad), [0.0, np.inf, 1.0, 0.0])
    _, tangent = tf8.jvp(f, (x,), (np.array([np.nan, 1.0, 2.0, np.inf]),))
    np.testing.assert_array_equal(np.asarray(tangent), [1.0, 2.0])
    g = lambda v: lax.reduce_window(v, -np.inf, lax.max, (2,), (1,), ((0, 1),))  # noqa: E731
    _, tangent = tf8.jvp(g, (np.array([np.nan]),), (np.array([1.0]),))  # JAX: the NaN's
    np.testing.assert_array_equal(np.asarray(tangent), [1.0])


def test_sum_transpose_matches_the_dense_matrix():
    """The sum's VJP against the transpose of its matrix, built column by column."""
    config = ((5, 4), (2, 3), (2, 1), ((1, -1), (2, 0)), (2, 1), (1, 2))
    f = lambda v: _call("sum", v, config)  # noqa: E731
    out_size = f(np.zeros((5, 4))).size
    columns = [np.asarray(f(e.reshape(5, 4))).ravel() for e in np.eye(20)]
    matrix = np.stack(columns, axis=1)  # (out, in)
    ct = RNG.standard_normal(f(np.zeros((5, 4))).shape)
    (got,) = tf8.vjp(f, np.zeros((5, 4)))[1](ct)
    np.testing.assert_allclose(np.asarray(got).ravel(), matrix.T @ ct.ravel(), atol=1e-12)
    assert matrix.shape == (out_size, 20)


# --- vmap and jit -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sum", "max", "mul"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_vmap_matches_a_loop(kind, axis):
    xs = np.moveaxis(_distinct((3, 4, 5)), 0, axis)

    def f(v):
        if kind == "mul":
            return lax.reduce_window(v, 1.0, lax.mul, (2, 2), (1, 2), "SAME")
        return lax.reduce_window(v, *MONOIDS[kind][1::-1], (2, 2), (1, 2), "SAME")

    got = tf8.vmap(f, in_axes=axis)(xs)
    expected = np.stack([np.asarray(f(np.take(xs, i, axis))) for i in range(3)])
    np.testing.assert_allclose(np.asarray(got), expected)
    grads = tf8.vmap(tf8.grad(lambda v: (f(v) ** 2).sum()), in_axes=axis)(xs)
    loop = [
        np.asarray(tf8.grad(lambda v: (f(v) ** 2).sum())(np.take(xs, i, axis))) for i in range(3)
    ]
    np.testing.assert_allclose(np.asarray(grads), np.stack(loop), rtol=1e-12)


def test_vmap_of_the_selecting_rows_with_one_operand_batched():
    x = _distinct((4, 5))
    ts = RNG.standard_normal((3, 4, 5))
    params = {"select_prim": "ge", **_params((4, 5), (2, 2), (1, 2), "SAME", None, None)}

    def gather(t):
        return apply1("select_and_gather_add", [t, tf8.tensor(x)], **params)

    got = tf8.vmap(gather)(ts)
    np.testing.assert_allclose(
        np.asarray(got), np.stack([gather_reference(t, x, params) for t in ts])
    )
    sources = RNG.standard_normal((2, *gather(tf8.tensor(ts[0])).shape))
    xs = np.stack([x, -x])

    def scatter(x_):
        return apply1("select_and_scatter_add", [tf8.tensor(sources[0]), x_], **params)

    got = tf8.vmap(scatter)(xs)
    np.testing.assert_allclose(
        np.asarray(got), np.stack([scatter_reference(sources[0], v, params) for v in xs])
    )


def _engines():
    from tf8.runtime.engines import ENGINES

    return [n for n, spec in ENGINES.items() if not spec[2] or importlib.util.find_spec(spec[2])]


@pytest.mark.parametrize("engine", _engines())
def test_jit_on_every_engine_matches_eager(engine):
    x = _distinct((2, 3, 6, 7))
    ct = RNG.standard_normal((2, 3, 3, 4))

    def loss(v):
        pooled = lax.reduce_window(v, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "SAME")
        summed = lax.reduce_window(
            tf8.numpy.tanh(v), 0.0, lax.add, (1, 1, 3, 3), (1, 1, 2, 2), "SAME"
        )
        return tf8.numpy.sum((pooled + summed) * ct)

    eager_value, eager_grad = tf8.value_and_grad(loss)(x)
    jitted = tf8.jit(tf8.value_and_grad(loss), engine=engine)
    for _ in range(2):  # the lean tier, then the optimised one
        value, grad = jitted(x)
        np.testing.assert_allclose(np.asarray(value), np.asarray(eager_value), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(grad), np.asarray(eager_grad), rtol=1e-12, atol=1e-14)


def test_dask_runs_blockwise_along_the_unwindowed_axes():
    da = pytest.importorskip("dask.array")
    import dask

    x = _distinct((4, 3, 6, 6))
    lazy = da.from_array(x, chunks=(2, 3, 3, 6))  # chunked along the batch and a pooled axis
    f = tf8.jit(
        lambda v: lax.reduce_window(v, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    )
    out = f(lazy)
    assert isinstance(out, da.Array) and out.chunks[0] == (2, 2)
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_array_equal(out.compute(), np.asarray(f(x)))


# --- errors -----------------------------------------------------------------------------------


ADD, MUL = (0.0, lax.add), (1.0, lax.mul)
BAD = [
    (ADD, {"window_dimensions": (2,)}, ShapeError, r"window_dimensions \(2,\).*rank 2"),
    (ADD, {"window_strides": (1,)}, ShapeError, "window_strides"),
    (ADD, {"window_dimensions": (0, 2)}, ParameterError, "window_dimensions must be positive"),
    (ADD, {"window_strides": (1, 0)}, ParameterError, "window_strides"),
    (ADD, {"window_dimensions": (2.5, 2)}, ParameterError, "integers"),
    (ADD, {"padding": ((1, 1),)}, ShapeError, "padding"),
    (ADD, {"padding": "FULL"}, ParameterError, "padding"),
    (ADD, {"base_dilation": (0, 1)}, ParameterError, "base_dilation"),
    ((np.zeros(2), lax.mul), {}, ShapeError, "scalars"),
    ((np.float32(1), lax.mul), {}, DTypeError, "float32.*float64"),
    ((0.0, lambda a, b: (a, b)), {}, TreeStructureError, "structure"),
]


@pytest.mark.parametrize("init_and_computation, keywords, error, match", BAD)
def test_bad_windows_raise_tf8_errors_naming_the_problem(
    init_and_computation, keywords, error, match
):
    keywords = {"window_dimensions": (2, 2), **keywords}
    with pytest.raises(error, match=match):
        lax.reduce_window(np.ones((3, 4)), *init_and_computation, **keywords)


def test_bad_operands_raise_tf8_errors():
    x = np.ones((3, 4))
    with pytest.raises(TreeStructureError, match="structure"):
        lax.reduce_window((x, x), 0.0, lax.add, (2, 2))
    with pytest.raises(DTypeError, match="reduce_window_sum.*bool"):
        lax.reduce_window(x > 0, False, lax.add, (2, 2))
    with pytest.raises(ShapeError, match="one shape"):
        lax.reduce_window((x, x[:2]), (0.0, 1.0), lambda a, b: a, (2, 2))


def test_primitive_checks_its_parameters_and_shapes():
    x = tf8.tensor(np.ones((3, 4)))
    params = _params((3, 4), (2, 2), None, "VALID", None, None)
    with pytest.raises(ShapeError, match="reduce_window_max.*window_strides"):
        apply1("reduce_window_max", [x], **{**params, "window_strides": (1,)})
    with pytest.raises(ParameterError, match="select_prim"):
        apply1("select_and_gather_add", [x, x], select_prim="gt", **params)
    with pytest.raises(ShapeError, match="select_and_scatter_add.*source"):
        apply1("select_and_scatter_add", [x, x], select_prim="ge", **params)
    with pytest.raises(DTypeError, match="select_and_gather_add"):
        apply1(
            "select_and_gather_add",
            [x, tf8.tensor(np.ones((3, 4), np.int32))],
            select_prim="ge",
            **params,
        )
    n = tf8.placeholder(("n", 4), np.float64)
    with pytest.raises(ShapeError, match="symbolic"):
        apply1("reduce_window_sum", [n], **params)
    batch_only = _params((3, 4), (1, 2), None, "VALID", None, None)
    assert apply1("reduce_window_sum", [n], **batch_only).shape[1] == 3  # the batch axis stays n
