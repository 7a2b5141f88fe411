"""vmap's API: in_axes/out_axes/axis_size as JAX, nesting with grad/jit/vmap (against loops),
the programs it builds, batched Jacobians, and the errors it raises."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import (
    AxesSpecError,
    BatchAxisError,
    BatchSizeError,
    ConcretizationError,
    RaggedBatchError,
    UnbatchedOutputError,
    UnsupportedOperationError,
)
from tf8.lax.core import apply1

RNG = np.random.default_rng(0)
W = RNG.normal(size=(3, 4))
XS = RNG.normal(size=(5, 4))


def loss(x):
    return tnp.sum(tnp.tanh(W @ x) ** 2)


def loss_np_grad(x):
    h = np.tanh(W @ x)
    return W.T @ (2 * h * (1 - h**2))


# --- in_axes / out_axes ----------------------------------------------------------------------


def test_in_axes_pytree_prefix_kwargs_and_out_axes():
    def f(pair, scale, *, shift):
        a, b = pair
        return {"sum": a + b * scale + shift, "first": a}

    a, b = RNG.normal(size=(2, 3)), RNG.normal(size=(3, 2))
    shift = RNG.normal(size=(2, 3))
    out = tf8.vmap(f, in_axes=((0, 1), None), out_axes={"sum": 1, "first": 0})(
        (a, b), 2.0, shift=shift
    )
    np.testing.assert_allclose(out["sum"], (a + b.T * 2.0 + shift).T)
    np.testing.assert_allclose(out["first"], a)


def test_negative_axes_and_unbatched_outputs():
    xs = RNG.normal(size=(3, 4))
    out, const = tf8.vmap(lambda x: (x * 2, tnp.ones(2)), in_axes=-1, out_axes=(-1, None))(xs)
    np.testing.assert_allclose(out, xs * 2)
    np.testing.assert_allclose(const, np.ones(2))
    # an output that does not depend on the batch is broadcast along it
    np.testing.assert_allclose(tf8.vmap(lambda x: W)(xs), np.broadcast_to(W, (3, 3, 4)))


def test_axis_size_with_nothing_mapped():
    out = tf8.vmap(lambda x: x + 1, in_axes=None, axis_size=3)(np.ones(2))
    np.testing.assert_allclose(out, np.full((3, 2), 2.0))


# --- nesting against loops -----------------------------------------------------------------------


def _per_row_grads():
    return np.stack([loss_np_grad(x) for x in XS])


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_vmap_of_grad(jit):
    f = tf8.vmap(tf8.grad(loss))
    f = tf8.jit(f) if jit else f
    np.testing.assert_allclose(f(XS), _per_row_grads(), rtol=1e-10)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_grad_of_vmap(jit):
    f = tf8.grad(lambda xs: tnp.sum(tf8.vmap(loss)(xs)))
    f = tf8.jit(f) if jit else f
    np.testing.assert_allclose(f(XS), _per_row_grads(), rtol=1e-10)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_vmap_of_vmap(jit):
    grid = RNG.normal(size=(2, 5, 4))
    f = tf8.vmap(tf8.vmap(loss), in_axes=0)
    f = tf8.jit(f) if jit else f
    expected = np.array([[np.sum(np.tanh(W @ x) ** 2) for x in row] for row in grid])
    np.testing.assert_allclose(f(grid), expected, rtol=1e-10)
    g = tf8.vmap(tf8.vmap(tf8.grad(loss), in_axes=1), in_axes=0)
    expected = np.array([[loss_np_grad(grid[i, j]) for j in range(5)] for i in range(2)])
    np.testing.assert_allclose(g(grid.transpose(0, 2, 1)), expected, rtol=1e-10)


def test_vmap_inside_jit_and_jit_inside_vmap():
    inner = tf8.jit(loss)
    np.testing.assert_allclose(
        tf8.vmap(inner)(XS), [np.sum(np.tanh(W @ x) ** 2) for x in XS], rtol=1e-12
    )
    np.testing.assert_allclose(tf8.vmap(tf8.jit(tf8.grad(loss)))(XS), _per_row_grads())


def test_vmap_of_jvp_and_vjp():
    ts = RNG.normal(size=XS.shape)
    _, tangents = tf8.vmap(lambda x, t: tf8.jvp(loss, (x,), (t,)))(XS, ts)
    np.testing.assert_allclose(tangents, np.einsum("bi,bi->b", _per_row_grads(), ts))
    cts = tf8.vmap(lambda x: tf8.vjp(loss, x)[1](1.0)[0])(XS)
    np.testing.assert_allclose(cts, _per_row_grads())


def test_results_are_computed_arrays_at_top_level_and_traced_inside_transforms():
    top = tf8.vmap(loss)(XS)
    assert isinstance(top, tf8.Array) and top.is_concrete
    seen = []
    tf8.jit(lambda xs: seen.append(tf8.vmap(loss)(xs)) or xs)(XS)
    assert isinstance(seen[0], tf8.TracedTensor)


# --- the program --------------------------------------------------------------------------------


def _op_names(compiled) -> list[str]:
    return [getattr(i.op, "name", type(i.op).__name__) for i in compiled.program.instructions]


def test_matrix_times_batched_vector_is_one_dot_general_and_no_broadcast():
    names = _op_names(tf8.make_program(tf8.vmap(lambda x: W @ x))(XS))
    assert names.count("dot_general") == 1
    assert "broadcast_in_dim" not in names


def test_batched_jacobians_are_one_program_whatever_the_size():
    def f(x):
        return tnp.sin(x) * tnp.sum(x**2)

    def count(n, jac):
        return len(_op_names(tf8.make_program(jac(f))(np.linspace(0.1, 1, n))))

    for jac in (tf8.jacfwd, tf8.jacrev):
        assert count(3, jac) == count(12, jac)
    x = np.linspace(0.1, 1, 4)
    expected = np.diag(np.cos(x) * np.sum(x**2)) + np.outer(np.sin(x), 2 * x)
    np.testing.assert_allclose(tf8.jacfwd(f)(x), expected)
    np.testing.assert_allclose(tf8.jacrev(f)(x), expected)


# --- errors -------------------------------------------------------------------------------------


def test_sizes_that_disagree():
    sizes = r"(?s)argument x .*\(size 5\).*argument y .*\(size 3\)"
    with pytest.raises(BatchSizeError, match=sizes):
        tf8.vmap(lambda x, y: x)(XS, np.ones(3))
    with pytest.raises(BatchSizeError, match="axis_size=4"):
        tf8.vmap(loss, axis_size=4)(XS)


def test_axis_out_of_range():
    with pytest.raises(BatchAxisError, match=r"in_axes 2 .*argument x of shape \(5, 4\)"):
        tf8.vmap(loss, in_axes=2)(XS)
    with pytest.raises(BatchAxisError, match="out_axes 3"):
        tf8.vmap(lambda x: x, out_axes=3)(XS)


def test_in_axes_that_do_not_fit_the_arguments():
    with pytest.raises(AxesSpecError, match="2 entries but .* 1 positional"):
        tf8.vmap(loss, in_axes=(0, None))(XS)
    with pytest.raises(AxesSpecError, match="prefix"):
        tf8.vmap(lambda p: p[0], in_axes=((0, 0, 0),))((XS, XS))
    with pytest.raises(AxesSpecError, match="'a'"):
        tf8.vmap(loss, in_axes="a")


def test_out_axes_none_on_a_batched_output():
    with pytest.raises(UnbatchedOutputError, match=r"output 0 .*depends on the mapped axis"):
        tf8.vmap(lambda x: x * 2, out_axes=None)(XS)


def test_nothing_mapped_needs_axis_size():
    with pytest.raises(BatchSizeError, match="axis_size"):
        tf8.vmap(loss, in_axes=None)(XS[0])


def test_python_control_flow_on_a_batched_value():
    def f(x):
        return x if x.sum() > 0 else -x

    with pytest.raises(ConcretizationError, match=r"vmap\(f\)"):
        tf8.vmap(f)(XS)


def test_axis_name_is_refused():
    with pytest.raises(UnsupportedOperationError, match="axis_name"):
        tf8.vmap(loss, axis_name="batch")


def test_truncating_to_a_batched_size_is_ragged():
    def f(x, n):
        return apply1("dynamic_truncate", [tf8.tensor(x), tf8.tensor(n)], axis=0)

    sizes = np.array([1, 2, 3])
    with pytest.raises(RaggedBatchError, match="ragged"):
        tf8.vmap(f, in_axes=(None, 0))(np.arange(4.0), sizes)
