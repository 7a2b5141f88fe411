"""Random elementwise programs for the property tests of passes, codegen and regions.

A program is drawn as data (a list of steps), then traced with tf8.numpy on placeholders of
one shape, so the same draw can be compiled and run under different runtimes.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import tf8
import tf8.numpy as tnp
from tf8 import GraphCompiler, Runtime

CONSTANTS = (0.0, -0.0, 1.0, 2.0, 0.5, -3.0)

UNARY = {
    "neg": lambda a: -a,
    "exp": tnp.exp,
    "tanh": tnp.tanh,
    "sin": tnp.sin,
    "abs": tnp.abs,
    "sqrt": tnp.sqrt,
    "log1p": tnp.log1p,
    "square": lambda a: a * a,
    "transpose": lambda a: a.T if a.ndim == 2 and a.shape[0] == a.shape[1] else -a,
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "maximum": tnp.maximum,
    "minimum": tnp.minimum,
}
WITH_CONSTANT = {
    "add_c": lambda a, c: a + c,
    "sub_c": lambda a, c: a - c,
    "mul_c": lambda a, c: a * c,
    "c_mul": lambda a, c: c * a,
    "div_c": lambda a, c: a / c,
    "pow_c": lambda a, c: a**c,
    "select_c": lambda a, c, b: tnp.where(a > c, a, b),
}
OPS = (*UNARY, *BINARY, *WITH_CONSTANT)

steps = st.lists(
    st.tuples(
        st.sampled_from(OPS),
        st.integers(0, 1000),
        st.integers(0, 1000),
        st.sampled_from(CONSTANTS),
    ),
    min_size=1,
    max_size=14,
)


def trace(spec, shape, n_inputs=2, reduce=False):
    """Placeholders and the outputs of the drawn program: its last value, one earlier value
    (so some intermediates escape) and, when `reduce`, a sum of the last value."""
    inputs = [tf8.placeholder(shape, "float64") for _ in range(n_inputs)]
    values = list(inputs)
    for name, i, j, c in spec:
        a, b = values[i % len(values)], values[j % len(values)]
        if name in UNARY:
            values.append(UNARY[name](a))
        elif name in BINARY:
            values.append(BINARY[name](a, b))
        elif name == "select_c":
            values.append(WITH_CONSTANT[name](a, c, b))
        else:
            values.append(WITH_CONSTANT[name](a, c))
    outputs = [values[-1], values[len(values) // 2] * 1.0]
    if reduce:
        outputs.append(tnp.sum(values[-1]))
    return inputs, outputs


def data(shape, n_inputs, seed=0):
    """Normal data with a few special values (signed zeros, infinities, NaN) mixed in."""
    rng = np.random.default_rng(seed)
    arrays = []
    for _ in range(n_inputs):
        a = rng.normal(size=shape)
        flat = a.reshape(-1)
        flat[rng.integers(0, flat.size, 4)] = [-0.0, 0.0, np.inf, np.nan]
        arrays.append(a)
    return arrays


def run_all(spec, shape, runtimes, n_inputs=2, reduce=False, seed=0):
    """The drawn program's outputs under each runtime (placeholders fed in input order)."""
    inputs, outputs = trace(spec, shape, n_inputs, reduce)
    compiled = GraphCompiler().compile(*outputs)
    arrays = dict(zip((t.key for t in inputs), data(shape, n_inputs, seed)))
    feed = [arrays[key] for key in compiled.placeholders]
    copies = [a.copy() for a in feed]
    results = []
    for runtime in runtimes:
        with np.errstate(all="raise"):  # the runtime itself must silence IEEE warnings
            results.append(runtime.prepare(compiled).run(*feed))
    for original, copy in zip(feed, copies):
        assert original.tobytes() == copy.tobytes(), "a run wrote into its input"
    return results, feed


def plain_runtime() -> Runtime:
    """No passes, no regions: the op-by-op reference."""
    return Runtime(passes=(), regions=False)
