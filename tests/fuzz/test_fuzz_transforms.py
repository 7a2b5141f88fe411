"""Differential fuzzing of the transforms on random differentiable programs.

Each random program (float64, smooth on its inputs: no kinks, no domain edges; einsum, fft,
sort, linalg, cond, scan and while_loop included) passes `tf8.check_grads` in forward and
reverse mode (forward only with a while_loop, as JAX), and its `vmap` over a batch of 3 equals
a Python loop over the batch. Under the CI profile: 15 examples x 8 programs = 120 programs.
"""

from __future__ import annotations

import os

import numpy as np
from fuzz_evaluate import assert_same
from fuzz_programs import random_program
from hypothesis import given
from hypothesis import strategies as st

import tf8
import tf8.numpy as tnp

PROGRAMS_PER_EXAMPLE = 12 if os.environ.get("TF8_HYPOTHESIS_PROFILE") == "long" else 8
base_shapes = st.lists(st.sampled_from([0, 1, 2, 3]), min_size=0, max_size=2).map(tuple)


def _scalar(program):
    """The program's outputs summed with fixed weights into one scalar."""

    def f(*args):
        outs = program.fun(*args)
        return sum(tnp.sum(o * (k + 1.5)) for k, o in enumerate(outs))

    return f


@given(base=base_shapes, seed=st.integers(0, 2**32 - 1))
def test_random_programs_pass_check_grads(base, seed):
    rng = np.random.default_rng(seed)
    for _ in range(PROGRAMS_PER_EXAMPLE):
        program = random_program(rng, base, differentiable=True)
        modes = ("fwd",) if program.forward_only else ("fwd", "rev")
        if not np.isfinite(_scalar(program)(*program.inputs)):
            continue  # a mean over an empty axis is NaN, and so is its derivative
        try:
            tf8.check_grads(_scalar(program), program.inputs, order=1, modes=modes)
        except AssertionError as exc:
            raise AssertionError(f"{program.describe()}: {exc}") from None


@given(base=base_shapes, seed=st.integers(0, 2**32 - 1))
def test_random_programs_vmap_equals_a_loop(base, seed):
    rng = np.random.default_rng(seed)
    for _ in range(PROGRAMS_PER_EXAMPLE):
        program = random_program(rng, base, differentiable=True)
        batch = [np.stack([a, a * 0.5 - 0.25, -a]) for a in program.inputs]
        batched = tf8.vmap(program.fun)(*batch)
        for n in range(3):
            expected = tf8.jit(program.fun)(*[b[n] for b in batch])
            got = [np.asarray(o)[n] for o in batched]
            assert_same(expected, got, f"vmap row {n} [{program.describe()}]", exact=False)
