"""Control ops as programs: closed sub-programs interned, program size independent of trip
count, printed nested, each body prepared once (eager loops compile no program per step)."""

import numpy as np

import tf8
import tf8.lax as lax
import tf8.numpy as tnp
from tf8 import api


def _rnn(c0, xs):
    return lax.scan(lambda c, x: (tnp.tanh(c * 0.5 + x), c.sum()), c0, xs)


def test_program_size_does_not_grow_with_the_trip_count():
    small = tf8.jit(_rnn).lower(np.ones(3), np.ones((10, 3)))
    large = tf8.jit(_rnn).lower(np.ones(3), np.ones((10_000, 3)))
    assert len(small.program.instructions) == len(large.program.instructions)
    # one loop: c.sum() reads no later iteration, so it runs after it, over every c at once
    ops = [inst.op.name for inst in large.program.instructions]
    assert ops.count("scan") == 1 and ops[-1] == "reduce_sum"
    grads = [
        tf8.jit(tf8.grad(lambda c, xs: _rnn(c, xs)[1].sum())).lower(np.ones(3), np.ones((n, 3)))
        for n in (10, 10_000)
    ]
    assert len(grads[0].program.instructions) == len(grads[1].program.instructions)


def test_two_traces_of_one_body_are_one_sub_program():
    a = tf8.jit(_rnn).lower(np.ones(3), np.ones((5, 3)))
    b = tf8.jit(lambda c, xs: _rnn(c, xs)).lower(np.ones(3), np.ones((5, 3)))
    assert a.fingerprint == b.fingerprint
    ia, ib = a.program.instructions[0], b.program.instructions[0]
    assert ia.op == ib.op and ia.op.payload[0] is ib.op.payload[0]


def test_pretty_prints_sub_programs_nested():
    text = tf8.jit(_rnn).lower(np.ones(3), np.ones((5, 3))).pretty()
    assert "scan[consts=0, carry=1, length=5, reverse=False]" in text
    assert "tanh" in text and "      return" in text


def test_eager_loops_prepare_each_body_once():
    c, xs = np.ones(3), np.random.rand(50, 3)
    _rnn(c, xs)  # warm: the body is compiled and prepared here
    misses = api.default_runtime.cache_stats.misses
    for _ in range(3):
        carry, ys = _rnn(c, xs)
    np.asarray(carry)
    assert api.default_runtime.cache_stats.misses == misses
    ref = c
    for x in xs:
        ref = np.tanh(ref * 0.5 + x)
    np.testing.assert_allclose(np.asarray(carry), ref)


def test_scan_unroll_is_accepted_and_ignored():
    """A deliberate difference (README): a loop is one op over one sub-program whatever the
    trip count, so `unroll` leaves the program as it is."""
    step = lambda c, x: (tnp.tanh(c * 0.5 + x), c.sum())  # noqa: E731
    plain = tf8.jit(lambda c, xs: lax.scan(step, c, xs)).lower(np.ones(3), np.ones((6, 3)))
    for unroll in (2, True):
        jitted = tf8.jit(lambda c, xs, u=unroll: lax.scan(step, c, xs, unroll=u))
        assert jitted.lower(np.ones(3), np.ones((6, 3))).fingerprint == plain.fingerprint
    eager = lax.scan(step, np.ones(3), np.ones((6, 3)), unroll=3)
    np.testing.assert_array_equal(eager[0], _rnn(np.ones(3), np.ones((6, 3)))[0])
