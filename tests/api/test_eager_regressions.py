"""Regressions from an adversarial review of op-by-op dispatch, the value tables, the bindings
merge and the plan caches: each test failed before its fix."""

from __future__ import annotations

import array
import gc
import threading
import time
import tracemalloc

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp


def _retained_mb(fn):
    gc.collect()
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        keep = fn()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del keep
    return (after - before) / 1e6


# 1. Memory: the eager plan cache (_PLANS) and the shared-primitive cache (_MADE) keep every
#    `constant` op, i.e. two full copies of every numpy array ever lifted eagerly.
def test_eager_constants_are_not_kept_alive_by_plan_caches():
    def work():
        x = tf8.tensor(np.ones((500, 500)))
        for _ in range(10):
            t = tnp.asarray(np.random.rand(500, 500))  # 2 MB each
            y = x + np.random.rand(500, 500)
            del t, y
        return None

    assert _retained_mb(work) < 10  # tf8 retains ~80 MB (2 x 2 MB x 20 arrays)


# 2. Wrong gradient: the per-transform value table is keyed by structural keys, and two
#    tf8.tensor(..., name="a") with different data share a key, so the JVP reads the wrong value.
def test_named_leaves_with_different_data_do_not_share_values_under_grad():
    def f(x):
        s1 = tnp.sin(tf8.tensor(np.array(1.0), name="a"))
        tnp.sin(tf8.tensor(np.array(5.0), name="a"))  # unused, same structural key
        return x * s1

    np.testing.assert_allclose(tf8.jit(tf8.grad(f))(np.array(3.0)), np.sin(1.0))  # passes
    np.testing.assert_allclose(tf8.grad(f)(np.array(3.0)), np.sin(1.0))  # tf8: sin(5)


# 3. Spurious DuplicateBinding: merge_binding_dicts grows a derived dict in place, so `m`'s
#    bindings pick up leaf "a"=1 from an unrelated op (n = m * a1); m * a2 then "conflicts".
def test_inplace_bindings_growth_makes_no_spurious_duplicate_binding_under_grad():
    def f(x):
        m = x * tf8.tensor(np.array(2.0), name="b")
        _ = m * tf8.tensor(np.array(1.0), name="a")  # n, discarded
        return m * tf8.tensor(np.array(5.0), name="a")

    np.testing.assert_allclose(tf8.jit(tf8.grad(f))(np.array(3.0)), 10.0)  # passes
    np.testing.assert_allclose(tf8.grad(f)(np.array(3.0)), 10.0)  # DuplicateBinding


def test_inplace_bindings_growth_makes_no_spurious_duplicate_binding_when_recording():
    with tf8.recording():
        m = tf8.tensor(np.array(2.0), name="b") + tf8.tensor(np.array(3.0), name="c")
        _ = m + tf8.tensor(np.array(1.0), name="a")
        o = m * tf8.tensor(np.array(5.0), name="a")
    out = tf8.Runtime().prepare(tf8.GraphCompiler().compile(o)).run()
    np.testing.assert_allclose(out[0], 25.0)


# 4. Silent wrong program: looking at a recorded value (print/float/np.asarray) inside
#    tf8.recording() memoises it and cuts it to a leaf (_memoise checks in_transform() only),
#    so the compiled program no longer depends on `w` there and a bindings override is ignored.
def test_printing_inside_recording_does_not_cut_the_graph(capsys):
    with tf8.recording():
        w = tf8.tensor(np.array(2.0), name="w")
        y = w * 3
        print(y)
        z = y + w
    prog = tf8.Runtime().prepare(tf8.GraphCompiler().compile(z))
    np.testing.assert_allclose(prog.run(bindings={"w": np.array(10.0)})[0], 40.0)  # tf8: 16


# 5. Honest concretization refuses stop_gradient'ed values (JAX allows float(stop_gradient(x))),
#    although the error message itself recommends stop_gradient; custom_jvp bodies (traced on
#    stop_gradient'ed inputs) can no longer call float() (worked before today, works in JAX).
def test_float_of_stop_gradient_under_grad():
    g = tf8.grad(lambda x: x * float(tf8.stop_gradient(x)))(np.array(0.7))
    np.testing.assert_allclose(g, 0.7)  # JAX: 0.7


def test_custom_jvp_body_may_concretize_its_inputs():
    @tf8.custom_jvp
    def sq(x):
        return x * float(x)

    @sq.defjvp
    def _(p, t):
        return sq(p[0]), 2 * p[0] * t[0]

    np.testing.assert_allclose(tf8.grad(sq)(np.array(3.0)), 6.0)  # JAX: 6.0


# 6. print()/repr()/str() of a value inside grad raises TracerArrayConversionError (JAX prints
#    the tracer): repr goes through np.asarray, which the concretization check refuses.
def test_repr_of_a_differentiated_value_does_not_raise():
    def f(x):
        repr(x)
        str(x * 2)
        return x * x

    np.testing.assert_allclose(tf8.grad(f)(np.array(3.0)), 6.0)


# 7. Stale kernel: _PLANS is keyed by the op (Primitive equality is by name and params), and
#    unregister_primitive does not clear it, so a re-registered primitive runs the old kernel
#    eagerly (jit uses the new one).
def test_reregistered_primitive_runs_its_new_kernel_eagerly():
    from tf8.lax.core import apply1
    from tf8.ops.catalog import Category, DTypePolicy, Row
    from tf8.ops.definition import define
    from tf8.ops.primitive import register_primitive, unregister_primitive

    def reg(kernel):
        register_primitive(
            define(
                Row("review_toy", Category.ANALYTIC, DTypePolicy.SAME_FLOAT, 1, 1, doc="toy"),
                kernel=kernel,
            )
        )

    reg(lambda op, x: x * 2)
    try:
        apply1("review_toy", [tf8.tensor(np.ones(2))])
        unregister_primitive("review_toy")
        reg(lambda op, x: x * 3)
        jit_out = tf8.jit(lambda x: apply1("review_toy", [x]))(np.ones(2))
        eager_out = np.asarray(apply1("review_toy", [tf8.tensor(np.ones(2))]))
        np.testing.assert_allclose(jit_out, 3.0)
        np.testing.assert_allclose(eager_out, 3.0)  # tf8: 2.0 (old kernel)
    finally:
        unregister_primitive("review_toy")


# 8. Memory held too long: vjp's closure (and linearize's) keeps the whole per-transform value
#    table, i.e. every intermediate of the forward pass, not just residuals: 40 x 8 MB here,
#    where JAX (and tf8 before today) keep ~8 MB.
def test_vjp_closure_does_not_keep_every_intermediate():
    big = np.random.rand(1_000_000)

    def f(x):
        y = tf8.tensor(big)
        for _ in range(20):
            y = tnp.sin(y) + 1.0
        return x * tnp.sum(y)

    def work():
        return tf8.vjp(f, np.array(2.0))

    assert _retained_mb(work) < 50  # tf8: ~330 MB


# 9. Race: TracedTensor.key makes a concrete value's leaf lazily without a lock; two threads
#    tracing with one shared eager value can each make a key, and the loser's graph has a leaf
#    whose binding was overwritten (ConcretizationError "unbound placeholder"). Seen once in
#    12 000 unpatched grads with 4 threads; made deterministic here by slowing the key's creation.
def test_lazy_key_creation_is_thread_safe(monkeypatch):
    import tf8.lax.core as core
    import tf8.traced as traced

    c = tf8.tensor(np.array([1.0, 2.0])) * 3.0  # eager: no key yet
    real_key, real_merge = traced.ValueKey, core.merge_bindings
    delay = {"A": 0.2, "B": 0.3}  # both threads see c._key None; B's key is made last

    class SlowValueKey:
        @staticmethod
        def input(leaf):
            if leaf.kind == "cut":
                time.sleep(delay.get(threading.current_thread().name, 0))
            return real_key.input(leaf)

    def slow_merge(inputs):
        if threading.current_thread().name == "A":
            time.sleep(0.3)  # A reads c._bindings after B replaced them
        return real_merge(inputs)

    monkeypatch.setattr(traced, "ValueKey", SlowValueKey)
    monkeypatch.setattr(core, "merge_bindings", slow_merge)
    errors = []

    def worker():
        try:
            g = tf8.grad(lambda x: tnp.sum(x * c))(np.array([1.0, 1.0]))
            np.testing.assert_allclose(g, [3.0, 6.0])
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    a = threading.Thread(target=worker, name="A")
    b = threading.Thread(target=worker, name="B")
    a.start()
    time.sleep(0.05)
    b.start()
    a.join()
    b.join()
    assert not errors, errors


# 10. tf8.tensor keeps aliasing a foreign writable buffer (array.array, memoryview): it copies
#     only when concrete_array returned the very object passed in. README: "tf8.tensor copies a
#     writeable input, as jnp.asarray does".
@pytest.mark.parametrize("kind", ["array.array", "memoryview"])
def test_tensor_copies_a_writeable_foreign_buffer(kind):
    if kind == "array.array":
        buf = array.array("d", [1.0, 2.0, 3.0])
        t = tf8.tensor(buf)
        buf[0] = 100.0
    else:
        raw = bytearray(np.arange(3.0).tobytes())
        t = tf8.tensor(memoryview(raw).cast("d"))
        raw[0:8] = np.float64(100.0).tobytes()
    assert np.asarray(t)[0] != 100.0


# --- Older than today's changes (also fail on d3a98b7), listed as differences from JAX ------
A32 = np.array([1.0, 2.0], np.float32)


def test_a_numpy_array_with_a_python_scalar_computes_at_once():
    # found by the conformance corpus: the fast path read `._value` of the numpy array
    a = np.linspace(0.5, 1.0, 4).astype(np.float32)
    found = tnp.add(a, 2.0)
    assert found.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(found), a + np.float32(2.0))
    np.testing.assert_array_equal(np.asarray(tnp.multiply(2.0, a)), 2.0 * a)


def test_a_float_function_of_a_python_scalar_stays_weakly_typed():
    # JAX (x64): exp(2.0) is a weak float64, so exp(2.0) * a32 stays float32, eagerly and
    # under jit (found by the conformance corpus; #28's first case)
    a = np.ones(3, np.float32)
    assert tnp.exp(2.0)._weak and tnp.sin(2)._weak and tnp.sin(2).dtype == np.float64
    assert (tnp.exp(2.0) * a).dtype == np.float32
    assert tf8.jit(lambda v: tnp.exp(2.0) * v)(a).dtype == np.float32
    np.testing.assert_allclose(np.asarray(tnp.exp(2.0) * a), np.exp(2.0) * a, rtol=1e-6)


def test_the_imaginary_part_of_a_real_array_is_zeros():
    # found by the conformance corpus: x * 0 gave NaN at infinities and -0.0 at negatives
    x = np.array([np.inf, -np.inf, np.nan, -2.0, 3.0])
    for found in (tnp.imag(x), tf8.jit(tnp.imag)(x)):
        value = np.asarray(found)
        assert value.dtype == x.dtype and not np.signbit(value).any()
        np.testing.assert_array_equal(value, np.zeros(5))
    assert tnp.imag(2.0)._weak


@pytest.mark.parametrize("name, sign", [("isposinf", 1.0), ("isneginf", -1.0)])
def test_isposinf_and_isneginf_as_numpy_and_jax(name, sign):
    x = np.array([1.0, np.inf, -np.inf, np.nan, 0.0])
    fn = getattr(tnp, name)
    for found in (fn(x), tf8.jit(fn)(x), fn(x.astype(np.float32))):
        np.testing.assert_array_equal(np.asarray(found), x == sign * np.inf)
    np.testing.assert_array_equal(np.asarray(fn(np.array([1, 2]))), [False, False])
    with pytest.raises(tf8.errors.DTypeError, match=name):
        fn(np.array([1j]))


def test_a_lax_binary_op_broadcasts_a_rank_0_operand_as_jax_does():
    # #28: jit(lambda x, s: lax.min(x, s))(x, 2.0) raised a shape error (s is a traced 0-d
    # value there); JAX's lax broadcasts rank-0 operands, and dtypes must still agree
    x = np.arange(3.0)
    expected = np.minimum(x, 2.0)
    np.testing.assert_array_equal(tf8.jit(lambda x, s: tf8.lax.min(x, s))(x, 2.0), expected)
    np.testing.assert_array_equal(tf8.jit(lambda x, s: tf8.lax.min(s, x))(x, 2.0), expected)
    np.testing.assert_array_equal(np.asarray(tf8.lax.min(x, np.float64(2.0))), expected)
    np.testing.assert_allclose(tf8.grad(lambda s: tf8.lax.min(x, s).sum())(1.5), 1.0)
    # a weakly typed value takes the other operand's dtype when nothing is lost (JAX 0.10's lax
    # refuses; README's deliberate differences), and a float into an int array is refused
    out = tf8.jit(lambda x, s: tf8.lax.min(x, s))(x.astype(np.float32), 2.0)
    assert out.dtype == np.float32
    with pytest.raises(tf8.errors.DTypeError):
        tf8.jit(lambda x, s: tf8.lax.min(x, s))(np.arange(3), 2.0)


def test_lax_rem_truncates_as_jax_and_fmod_is_numpys():
    # #28: lax.rem floored (rem(1.5, -1.0) was -0.5); JAX's truncates (0.5), as C's fmod
    x, y = np.array([1.5, -1.5, 7.0, -7.0]), np.array([-1.0, 1.0, 3.0, 3.0])
    for found in (tf8.lax.rem(x, y), tf8.jit(tf8.lax.rem)(x, y), tnp.fmod(x, y)):
        np.testing.assert_array_equal(np.asarray(found), np.fmod(x, y))
    np.testing.assert_array_equal(np.asarray(tnp.remainder(x, y)), np.remainder(x, y))
    np.testing.assert_array_equal(np.asarray(tnp.fmod(np.array([7, -7]), 3)), [1, -1])
    # d/dy fmod(x, y) = -trunc(x / y)
    np.testing.assert_allclose(tf8.grad(lambda v: tnp.fmod(x, v).sum())(y), -np.trunc(x / y))
    with pytest.raises(tf8.errors.DTypeError, match="rem: dtype bool"):
        tf8.lax.rem(np.ones(2, bool), np.ones(2, bool))
