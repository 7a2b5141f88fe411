"""jit's JAX API details (issue 15): methods under partial(jit, static_argnums=0), the
accepted-but-inert donate_argnums / donate_argnames / keep_unused / inline, and lower()."""

import functools

import numpy as np
import pytest

import tf8
from tf8.errors import TracingError


class Scaler:
    """A hashable object whose jitted method has `self` static (JAX's documented pattern)."""

    def __init__(self, k):
        self.k = k

    def __hash__(self):
        return hash(self.k)

    def __eq__(self, other):
        return isinstance(other, Scaler) and other.k == self.k

    @functools.partial(tf8.jit, static_argnums=0)
    def apply(self, x):
        return x * self.k


def test_jitted_method_with_static_self():
    before = Scaler.apply.trace_count
    np.testing.assert_array_equal(Scaler(3.0).apply(np.ones(2)), [3.0, 3.0])
    np.testing.assert_array_equal(Scaler(3.0).apply(np.ones(2)), [3.0, 3.0])  # equal self: hit
    np.testing.assert_array_equal(Scaler(4.0).apply(np.ones(2)), [4.0, 4.0])
    assert Scaler.apply.trace_count == before + 2
    assert isinstance(Scaler.apply, tf8.jit(lambda x: x).__class__)  # through the class: itself


def test_a_jitted_method_read_from_an_instance_lowers_and_reports_with_it():
    s = Scaler(5.0)
    graph = s.apply.lower(np.ones(3))  # lowers apply(s, x): self is argument 0
    assert graph is Scaler.apply.lower(s, np.ones(3))
    np.testing.assert_array_equal(s.apply(np.ones(3)), [5.0, 5.0, 5.0])
    assert s.apply.trace_count == Scaler.apply.trace_count  # other attributes: the function's
    assert "bound" in repr(s.apply)


def test_jitted_method_without_static_self_names_the_argument():
    class Plain:
        @tf8.jit
        def apply(self, x):
            return x

    with pytest.raises(TracingError, match="argument 0 of .*apply.*mark the argument static"):
        Plain().apply(np.ones(2))


@pytest.mark.parametrize(
    "options",
    [
        {"donate_argnums": 0},
        {"donate_argnums": (0, 1)},
        {"donate_argnames": "y"},
        {"keep_unused": True},
        {"inline": True},
    ],
)
def test_jax_options_are_accepted_and_change_nothing(options):
    x, y = np.ones(3), np.arange(3.0)
    f = tf8.jit(lambda x, y: x * 2 + y, **options)
    np.testing.assert_array_equal(f(x, y), x * 2 + y)
    np.testing.assert_array_equal(x, np.ones(3))  # a "donated" input is still valid
    decorated = tf8.jit(**options)(lambda x, y: x - y)
    np.testing.assert_array_equal(decorated(x, y), x - y)


def test_jax_option_typos_and_bad_values_are_errors():
    with pytest.raises(TypeError, match="donat_argnums"):
        tf8.jit(lambda x: x, donat_argnums=0)
    with pytest.raises(TypeError, match="donate_argnums must be ints"):
        tf8.jit(lambda x: x, donate_argnums="x")


def test_lower_is_jax_lower():
    f = tf8.jit(lambda x: (x**2).sum())
    program = f.lower(np.ones(4))
    assert "reduce_sum" in program.pretty()
    assert program.fingerprint == tf8.make_program(lambda x: (x**2).sum())(np.ones(4)).fingerprint


def test_keep_unused_is_accepted_and_unused_inputs_are_still_pruned():
    """A deliberate difference (README): the program keeps only what its outputs read, with
    keep_unused=True too; the call still takes the unused argument."""
    f = tf8.jit(lambda x, unused: x * 2.0, keep_unused=True)
    assert len(f.lower(np.ones(2), np.ones(3)).placeholders) == 1
    np.testing.assert_array_equal(f(np.ones(2), np.ones(3)), [2.0, 2.0])
