"""`tf8.Array`: the one type of every value the API hands back, as `jax.Array` (DESIGN §3, §7)."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import InPlaceAssignmentError

X = np.linspace(0.1, 0.9, 4)


def _f(x):
    return tnp.sum(tnp.sin(x) * x)


ENTRY_POINTS = {
    "eager": lambda: tnp.sin(X),
    "jit": lambda: tf8.jit(tnp.sin)(X),
    "jit scalar": lambda: tf8.jit(_f)(X),
    "grad": lambda: tf8.grad(_f)(X),
    "value_and_grad": lambda: tf8.value_and_grad(_f)(X)[0],
    "jvp": lambda: tf8.jvp(tnp.sin, (X,), (X,))[1],
    "vjp": lambda: tf8.vjp(tnp.sin, X)[1](X)[0],
    "vmap": lambda: tf8.vmap(tnp.sin)(X),
    "jacfwd": lambda: tf8.jacfwd(tnp.sin)(X),
    "jacrev": lambda: tf8.jacrev(tnp.sin)(X),
    "hessian": lambda: tf8.hessian(_f)(X),
    "linearize": lambda: tf8.linearize(tnp.sin, X)[1](X),
    "random": lambda: tf8.random.normal(tf8.random.PRNGKey(0), (3,)),
    "jit(grad)": lambda: tf8.jit(tf8.grad(_f))(X),
    "grad of jit": lambda: tf8.grad(tf8.jit(_f))(X),
}


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_every_entry_point_hands_back_an_array(name):
    value = ENTRY_POINTS[name]()
    assert isinstance(value, tf8.Array), f"{name} returned {type(value).__name__}"
    with pytest.raises(InPlaceAssignmentError):
        value[()] = 0.0  # immutable, as JAX's
    assert not np.asarray(value).flags.writeable  # a free, read-only view


def test_zero_d_results_are_arrays_that_format_and_convert_like_numbers():
    loss = tf8.jit(_f)(X)
    expected = float(np.sum(np.sin(X) * X))
    assert loss.shape == () and isinstance(loss, tf8.Array)
    assert f"{loss:.6f}" == f"{expected:.6f}"
    assert float(loss) == pytest.approx(expected) and loss.item() == pytest.approx(expected)
    assert isinstance(loss.tolist(), float)
    with pytest.raises(tf8.errors.ConversionError):
        f"{tnp.ones(2):.3f}"  # noqa: B018 - numbers formats need a 0-d array, as numpy's


def test_traced_values_are_arrays_too():
    seen = []

    def f(x):
        seen.append(isinstance(x, tf8.Array))
        return x * 2.0

    tf8.jit(f)(X)
    tf8.grad(lambda x: tnp.sum(f(x)))(X)
    tf8.vmap(f)(X)
    assert seen == [True, True, True]


def test_placement_methods_are_jax_cpu_answers():
    x = tf8.jit(tnp.sin)(X)
    assert x.block_until_ready() is x
    assert x.devices() == {tf8.devices()[0]} and x.device == tf8.devices()[0]
    assert x.device.platform == "cpu" and repr(x.device) == "CpuDevice(id=0)"
    assert x.sharding.device_set == {x.device} and x.sharding.is_fully_replicated
    assert x.is_fully_addressable and not x.is_deleted()
    assert x.nbytes == 4 * 8 and x.itemsize == 8
    assert tf8.default_backend() == "cpu" and tf8.device_count() == 1


def test_numpy_code_receives_arrays_through_its_protocols():
    x = tf8.grad(_f)(X)
    expected = np.sin(X) + X * np.cos(X)
    np.testing.assert_allclose(x, expected, rtol=1e-12)
    assert isinstance(np.sin(x), tf8.Array)  # numpy's ufuncs dispatch to tf8
    np.testing.assert_allclose(np.asarray(x) * 2, 2 * expected, rtol=1e-12)
    assert np.asarray(x) is np.asarray(x)  # no copy


def test_jit_outputs_feed_jit_again_on_the_fast_path_and_keep_weak_types():
    step = tf8.jit(lambda w, g: w - 0.1 * g)
    w = step(X, X)
    for _ in range(3):
        w = step(w, X)
    np.testing.assert_allclose(w, X - 0.4 * X, rtol=1e-12)
    # one trace: an Array argument is keyed as the numpy array it holds; the first call with
    # an Array makes its own cache entry, and the two after it hit
    assert step.trace_count == 1 and step.cache_info()["hits"] == 2
    half = tf8.jit(lambda s: s * 0.5)(2.0)
    assert half.weak_type and repr(half) == "Array(1., dtype=float64, weak_type=True)"
    assert tf8.jit(lambda a, s: a + s)(X.astype(np.float32), half).dtype == np.float32


def test_device_put_and_get_round_trip_pytrees():
    tree = {"w": np.ones((2, 2)), "b": [1.0, 2]}
    put = tf8.device_put(tree)
    assert all(isinstance(leaf, tf8.Array) for leaf in tf8.tree.tree_leaves(put))
    assert put["b"][0].weak_type  # a Python scalar stays weak, as in JAX
    got = tf8.device_get(put)
    assert type(got["w"]) is np.ndarray and got["b"][1] == 2
    assert tf8.block_until_ready(put) is put
