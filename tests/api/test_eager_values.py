"""What an eager value promises, now that ops no longer pay for it one by one.

- A value is read-only when it leaves tf8 (`np.asarray`), as JAX arrays are; `np.array`
  gives a writeable copy that shares nothing with the value.
- No numpy floating-point warning or error escapes an eager op, whatever numpy's error state
  and the warning filters say (IEEE results are values, as in JAX), in any thread.
"""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp


def _eager(x):
    t = tf8.tensor(x)
    return t * t + t  # the one-aval fast path (after its first call makes the plan)


@pytest.mark.parametrize("calls", [1, 3])
def test_an_exported_value_is_read_only_and_np_array_copies(calls):
    x = np.arange(4.0)
    for _ in range(calls):
        y = _eager(x)
    exported = np.asarray(y)
    assert not exported.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        exported[0] = 7.0
    copy = np.array(y)
    assert copy.flags.writeable and not np.shares_memory(copy, exported)
    copy[0] = 7.0
    np.testing.assert_array_equal(np.asarray(y), x * x + x)
    assert np.asarray(y, dtype=np.float32).dtype == np.float32  # another dtype: a copy
    assert not np.asarray(y).flags.writeable


def test_a_value_captured_by_jit_is_not_aliased_by_its_output():
    c = tf8.tensor(np.arange(3.0)) * 2.0
    out = tf8.jit(lambda x: c)(np.zeros(3))
    assert isinstance(out, tf8.Array)
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(out)[0] = 99.0  # an Array's numpy view is read-only, shared or not
    np.testing.assert_array_equal(np.asarray(c), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(tf8.jit(lambda x: c + x)(np.zeros(3))), [0, 2, 4])


def test_tensor_copies_its_input_so_later_writes_do_not_leak_in():
    x = np.arange(3.0)
    t = tf8.tensor(x)
    x[0] = 5.0
    assert float(t[0]) == 0.0


_SPECIAL = np.array([1.0, 0.0, -1.0, np.inf, np.nan, 1e308])


def _program(xp, t, zero, x: np.ndarray) -> list:
    return [
        t / zero,  # divide by zero, invalid (0/0)
        t * t,  # overflow
        t - t,  # inf - inf
        xp.log(t - 1.0),  # log of negatives and zero
        xp.sqrt(-t),
        xp.sum(t * 1e308),
        xp.sum(t * t, axis=0, keepdims=True),
        t @ t,
        t / 0.0,
        x / zero,  # a numpy array and a tensor
    ]


def _every_fast_path(x: np.ndarray) -> list:
    return _program(tnp, tf8.tensor(x), tf8.tensor(np.zeros_like(x)), x)


def _expected(x: np.ndarray) -> list:
    with np.errstate(all="ignore"):
        return _program(np, x, np.zeros_like(x), x)


def _check(results: list, x: np.ndarray) -> None:
    for got, want in zip(results, _expected(x)):
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("mode", ["raise", "warn", "call", "ignore"])
def test_no_floating_point_warning_or_error_escapes_an_eager_op(mode):
    calls = []
    _every_fast_path(_SPECIAL)  # first calls make the plans the fast paths then use
    old_call = np.seterrcall(lambda kind, flag: calls.append(kind))
    old = np.seterr(all=mode)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for _ in range(2):
                _check(_every_fast_path(_SPECIAL), _SPECIAL)
    finally:
        np.seterr(**old)
        np.seterrcall(old_call)
    assert calls == []


def test_warnings_stay_off_in_threads_that_compute_at_once():
    big = np.tile(_SPECIAL, 20_000)  # large: numpy releases the GIL, threads overlap
    _every_fast_path(big)

    def work(_: int) -> int:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for _ in range(5):
                _check(_every_fast_path(big), big)
        return 5

    with ThreadPoolExecutor(3) as pool:  # a thread's warning or mismatch raises here
        assert list(pool.map(work, range(3))) == [5, 5, 5]


def test_the_users_error_state_is_left_as_it_was():
    before = np.geterr()
    with np.errstate(divide="raise"):
        _every_fast_path(_SPECIAL)
        assert np.geterr()["divide"] == "raise"
        with pytest.raises(FloatingPointError):
            np.float64(1.0) / np.zeros(1)
    assert np.geterr() == before


_INDICES = [
    slice(None, 3),
    slice(-2, None),
    slice(None, None, -1),
    slice(1, 10, 3),
    slice(10, 1, -2),
    slice(-100, 100),
    slice(7, 3),
    2,
    -1,
    (1, slice(2, 5)),
    (slice(None), -3),
    (slice(None, None, -2), slice(1, None, 4)),
    (4, 11),
    (),
]


@pytest.mark.parametrize("index", _INDICES, ids=repr)
def test_eager_basic_indexing_is_numpys_and_the_traced_paths(index):
    a = np.arange(60.0).reshape(5, 12)
    t = tf8.tensor(a)
    got = t[index]
    assert got.shape == a[index].shape and got.dtype == a.dtype
    np.testing.assert_array_equal(np.asarray(got), a[index])
    np.testing.assert_array_equal(tf8.jit(lambda v: v[index])(a), a[index])
    weights = np.random.default_rng(1).standard_normal(a[index].shape)
    grad = tf8.grad(lambda v: tnp.sum(v[index] * weights))(a)  # a taped value: general path
    expected = np.zeros_like(a)
    expected[index] = weights
    np.testing.assert_array_equal(grad, expected)


def test_eager_indexing_errors_are_tf8s(strict_indexing):
    t = tf8.tensor(np.zeros((5, 12)))
    with pytest.raises(tf8.errors.IndexingError, match="out of bounds"):
        t[5]
    with pytest.raises(tf8.errors.IndexingError, match="too many indices"):
        t[1, 2, 3]


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "true_divide"])
def test_a_numpy_array_and_a_tensor_of_one_shape_compute_at_once(op, count_evaluations):
    x = np.linspace(1.0, 2.0, 12).reshape(3, 4)
    t = tf8.tensor(x[::-1].copy())
    fn = getattr(tnp, op)
    for left, right in ((x, t), (t, x)):
        got = fn(left, right)
        want = getattr(np, op)(np.asarray(left), np.asarray(right))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(getattr(np, op)(x, t)), getattr(np, op)(x, x[::-1]))
    assert count_evaluations == []
    grad = tf8.grad(lambda v: tnp.sum(fn(x, v)))(np.asarray(t))  # on a tape: the derivative
    eps = 1e-6
    numeric = (
        np.sum(getattr(np, op)(x, np.asarray(t) + eps))
        - np.sum(getattr(np, op)(x, np.asarray(t) - eps))
    ) / (2 * eps)
    assert np.sum(grad) == pytest.approx(numeric, rel=1e-6)


def _exports(c):
    """Results of transforms whose outputs are (views of) an existing tensor's value."""
    x = np.ones(3)
    w = c * 1.0

    def with_cond(v):
        h = tf8.lax.cond(True, lambda u: u * 2.0, lambda u: u, v)  # the graph path
        return tnp.sum(h * w), w

    return {
        "vmap identity": tf8.vmap(lambda r: r)(c),
        "vmap reshape": tf8.vmap(lambda r: r.reshape(1))(c),
        "vmap unbatched out": tf8.vmap(lambda a, b: b, in_axes=(0, None), out_axes=None)(c, c),
        "grad aux (graph path)": tf8.grad(with_cond, has_aux=True)(x)[1],
        "linearize primal": tf8.linearize(lambda v: v, c)[0],
        "linear_transpose": tf8.linear_transpose(lambda v: v, c)(c)[0],
    }


@pytest.mark.parametrize("case", list(_exports(tf8.tensor(np.arange(3.0)))))
def test_transform_results_never_alias_a_tensor_writeably(case):
    c = tf8.tensor(np.arange(3.0)) * 2.0
    captured = tf8.jit(lambda a: a + c)
    out = _exports(c)[case]
    assert isinstance(out, tf8.Array)
    view = np.asarray(out)  # free, and read-only whether or not it shares c's memory
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        view[...] = 100.0
    np.testing.assert_array_equal(np.asarray(c), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(captured(np.zeros(3)), [0.0, 2.0, 4.0])


def test_np_asarray_with_copy_false_and_another_dtype_refuses_as_numpy_does():
    t = tf8.tensor(np.arange(3.0))
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        np.asarray(t, dtype=np.float32, copy=False)
    assert np.asarray(t, dtype=np.float32).dtype == np.float32
    copied = np.asarray(t, copy=True)
    assert copied.flags.writeable and not np.shares_memory(copied, np.asarray(t))
