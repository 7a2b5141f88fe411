"""checkpoint / remat: same values and derivatives as without it, fewer kept intermediates."""

import tracemalloc

import numpy as np
import pytest

import tf8
import tf8.lax as lax
import tf8.numpy as tnp

POLICIES = [
    None,
    tf8.checkpoint_policies.nothing_saveable,
    tf8.checkpoint_policies.everything_saveable,
    tf8.checkpoint_policies.dots_saveable,
    tf8.checkpoint_policies.dots_with_no_batch_dims_saveable,
]


def _layer(w, h):
    return tnp.tanh(w @ h) * 1.5 + tnp.sin(h)


def _loss(wrap):
    def loss(w, h):
        for _ in range(3):
            h = wrap(_layer)(w, h)
        return tnp.sum(h**2)

    return loss


def _args(seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(4, 4)) * 0.5, rng.normal(size=4)


def test_remat_is_checkpoint():
    assert tf8.remat is tf8.checkpoint


@pytest.mark.parametrize("policy", POLICIES)
def test_values_and_gradients_match_the_plain_function(policy):
    w, h = _args()
    plain, ckpt = _loss(lambda f: f), _loss(lambda f: tf8.checkpoint(f, policy=policy))
    np.testing.assert_allclose(ckpt(w, h), plain(w, h), rtol=1e-12)
    for transform in (tf8.grad, lambda f, argnums: tf8.jit(tf8.grad(f, argnums))):
        got = transform(ckpt, (0, 1))(w, h)
        ref = tf8.grad(plain, (0, 1))(w, h)
        for g, r in zip(got, ref):
            np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("policy", [None, tf8.checkpoint_policies.dots_saveable])
def test_check_grads_order_two(policy):
    tf8.check_grads(_loss(lambda f: tf8.checkpoint(f, policy=policy)), _args(1), order=2)


def test_jit_and_vmap():
    w, h = _args(2)
    hs = np.stack([h, 2 * h, -h])
    f = tf8.checkpoint(_layer)
    np.testing.assert_allclose(tf8.jit(f)(w, h), _layer(w, h), rtol=1e-12)
    batched = tf8.vmap(f, in_axes=(None, 0))(w, hs)
    np.testing.assert_allclose(batched, np.stack([_layer(w, x) for x in hs]), rtol=1e-12)
    per_example = tf8.jit(tf8.vmap(tf8.grad(_loss(tf8.checkpoint)), in_axes=(None, 0)))(w, hs)
    ref = np.stack([tf8.grad(_loss(lambda f: f))(w, x) for x in hs])
    np.testing.assert_allclose(per_example, ref, rtol=1e-10)


def test_nesting_with_scan():
    w, h = _args(3)
    xs = np.random.default_rng(4).normal(size=(5, 4))

    def inner(w, h):  # checkpoint inside the scan body
        def body(c, x):
            return tf8.checkpoint(lambda c, x: tnp.tanh(w @ c + x))(c, x), tnp.sum(c)

        c, ys = lax.scan(body, h, xs)
        return tnp.sum(c) + tnp.sum(ys)

    def outer(w, h):  # a scan inside the checkpoint
        def run(w, h):
            return lax.scan(lambda c, x: (tnp.tanh(w @ c + x), None), h, xs)[0]

        return tnp.sum(tf8.checkpoint(run)(w, h) ** 2)

    def ref_inner(w, h):
        c, total = h, 0.0
        for x in xs:
            total = total + tnp.sum(c)
            c = tnp.tanh(w @ c + x)
        return tnp.sum(c) + total

    def ref_outer(w, h):
        for x in xs:
            h = tnp.tanh(w @ h + x)
        return tnp.sum(h**2)

    for got, ref in ((inner, ref_inner), (outer, ref_outer)):
        for g, r in zip(tf8.grad(got, (0, 1))(w, h), tf8.grad(ref, (0, 1))(w, h)):
            np.testing.assert_allclose(g, r, rtol=1e-10)
        tf8.check_grads(got, (w, h), order=2)


def test_static_argnums_pytrees_and_kwargs():
    def f(params, n, scale=1.0):
        x = params["x"]
        for _ in range(n):  # n is a Python int: static
            x = tnp.sin(x) * scale
        return {"y": x, "z": tnp.sum(x)}

    params = {"x": np.linspace(0, 1, 5)}
    g = tf8.checkpoint(f, static_argnums=1)
    out = g(params, 3, scale=2.0)
    np.testing.assert_allclose(out["y"], f(params, 3, 2.0)["y"])
    got = tf8.grad(lambda p: g(p, 3, scale=2.0)["z"])(params)
    ref = tf8.grad(lambda p: f(p, 3, 2.0)["z"])(params)
    np.testing.assert_allclose(got["x"], ref["x"], rtol=1e-12)


def test_policy_saves_dots_and_jit_prunes_them_without_grad():
    w, h = _args()
    f = tf8.checkpoint(_layer, policy=tf8.checkpoint_policies.dots_saveable)
    assert "hidden=0" in tf8.make_program(f)(w, h).pretty()  # nothing reads the saved dot
    grad_text = tf8.make_program(tf8.grad(lambda w, h: tnp.sum(f(w, h))))(w, h).pretty()
    assert "checkpoint[hidden=1]" in grad_text


def _sines(x):
    for _ in range(10):
        x = tnp.sin(x)
    return x


def _peak(fun, x):
    fun(x)  # warm caches (programs, plans) first
    tracemalloc.start()
    try:
        fun(x)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_eager_grad_keeps_no_intermediate_of_a_checkpointed_body():
    """20 layers of ten 10⁵-element intermediates: grad's peak memory falls to a fraction."""

    def loss(wrap):
        def f(x):
            for _ in range(20):
                x = wrap(_sines)(x)
            return tnp.sum(x)

        return tf8.grad(f)

    x = np.linspace(0.0, 1.0, 100_000)
    plain, ckpt = _peak(loss(lambda f: f), x), _peak(loss(tf8.checkpoint), x)
    assert ckpt <= 0.4 * plain, (ckpt, plain)
    np.testing.assert_allclose(loss(tf8.checkpoint)(x), loss(lambda f: f)(x), rtol=1e-12)


def test_a_policy_is_called_with_each_op_and_its_input_avals():
    """tf8's policy signature is policy(op, *input_avals) -> bool (JAX passes the primitive
    and its parameters); an op carries its own parameters."""
    w, h = _args()
    seen = []

    def policy(op, *avals):
        seen.append((op.name, [a.shape for a in avals]))
        return op.name == "dot_general"

    g = tf8.grad(lambda w: tnp.sum(tf8.checkpoint(_layer, policy=policy)(w, h)))(w)
    np.testing.assert_allclose(g, tf8.grad(lambda w: tnp.sum(_layer(w, h)))(w), rtol=1e-12)
    assert ("dot_general", [(4, 4), (4,)]) in seen  # w @ h: a matrix and a vector


def test_prevent_cse_is_accepted_and_changes_nothing():
    w, h = _args()

    def ops(**options):
        loss = lambda w: tnp.sum(tf8.checkpoint(_layer, **options)(w, h))  # noqa: E731
        text = tf8.make_program(tf8.grad(loss))(w).pretty()
        return [line for line in text.splitlines()[1:] if "# input" not in line]

    assert ops(prevent_cse=False) == ops(prevent_cse=True) == ops()
