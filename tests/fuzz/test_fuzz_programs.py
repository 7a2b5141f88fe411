"""Differential fuzzing: random programs agree however tf8 evaluates them.

Each hypothesis example draws a base shape and a seed and runs a batch of random programs
(hypothesis shrinks the shape; the programs' structure comes from the seed, which is cheap).
Under the CI profile that is 15 examples x 40 = 600 programs (about 10 s on the 2-core test
machine); under `TF8_HYPOTHESIS_PROFILE=long`, 400 x 60 = 24 000. Every DASK_EVERY-th
program also runs on the Dask engine, its inputs cut into chunks (`fuzz_dask`).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from fuzz_dask import HAS_DASK
from fuzz_evaluate import COUNTS, HAS_NUMBA, evaluate
from fuzz_programs import random_program
from hypothesis import given
from hypothesis import strategies as st

LONG = os.environ.get("TF8_HYPOTHESIS_PROFILE") == "long"
PROGRAMS_PER_EXAMPLE = 60 if LONG else 40
NUMBA_EVERY = 10  # numba compiles are slow: every tenth smooth program runs there too
DASK_EVERY = 1  # a dask graph built and computed: ~8 ms a program

base_shapes = st.lists(st.sampled_from([0, 1, 2, 3, 4]), min_size=0, max_size=3).map(tuple)


@given(base=base_shapes, seed=st.integers(0, 2**32 - 1))
def test_random_programs_agree_every_way(base, seed):
    rng = np.random.default_rng(seed)
    for n in range(PROGRAMS_PER_EXAMPLE):
        program = random_program(rng, base)
        on_dask = HAS_DASK and n % DASK_EVERY == 0
        chunks = np.random.default_rng([seed, n]) if on_dask else None
        evaluate(program, HAS_NUMBA and program.smooth and n % NUMBA_EVERY == 0, chunks)


def test_the_fuzzer_ran_its_programs():
    # runs after the property above (file order): the CI profile must evaluate >= 500
    if COUNTS["programs"] == 0:
        pytest.skip("run alone: the fuzz test above did not run in this session")
    on_dask = ", ".join(f"{COUNTS[f'dask {k}']} {k}" for k in ("chunked", "one chunk", "refused"))
    print(f"fuzz: {COUNTS['programs']} programs, {COUNTS['numba']} also on numba; dask: {on_dask}")
    assert COUNTS["programs"] >= 500
    if HAS_DASK:  # most run on chunked inputs; the refused are control flow, mostly
        assert COUNTS["dask chunked"] >= COUNTS["programs"] // DASK_EVERY * 3 // 4
