"""The forward tape follows values in a table of its own (not in the tensors) and drops the
values only the table still holds whenever it doubles: a long jvp keeps the memory of what the
code can still use, with every tangent it needs."""

from __future__ import annotations

import numpy as np

import tf8
import tf8.numpy as tnp
from tf8.ad import forward


def test_a_long_jvp_keeps_its_table_small_and_its_tangents_right(monkeypatch):
    sizes = []
    prune = forward.ForwardTape.prune

    def watched(self):
        prune(self)
        sizes.append(len(self.nodes))

    monkeypatch.setattr(forward.ForwardTape, "prune", watched)
    steps, a = 6000, 0.9995

    def f(x):
        for _ in range(steps):
            x = tnp.sin(x) * 0.0 + x * a  # three followed values per step
        return x

    x, t = np.array([1.0, 2.0]), np.array([1.0, -1.0])
    value, tangent = tf8.jvp(f, (x,), (t,))
    np.testing.assert_allclose(value, x * a**steps, rtol=1e-10)
    np.testing.assert_allclose(tangent, t * a**steps, rtol=1e-10)
    assert sizes and max(sizes) < 10  # each prune leaves what the loop still holds


def test_a_value_the_code_still_holds_keeps_its_tangent():
    tape = forward.ForwardTape()
    held = tf8.tensor(np.ones(3))
    tape.follow(held, "x", "its tangent")
    tape.follow(tf8.tensor(np.ones(2)), "y", "dropped")  # nothing else holds it
    tape.prune()
    assert list(tape.nodes.values()) == [(held, "x", "its tangent")]
