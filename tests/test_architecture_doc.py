"""docs/architecture.md's worked example runs as written: a primitive defined by one `define`
call differentiates, jits and vmaps (so the page cannot drift from the code)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

import tf8
import tf8.numpy as tnp
from tf8.ops.primitive import unregister_primitive

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def test_the_worked_example_defines_a_working_primitive():
    (source,) = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    scope: dict = {}
    exec(compile(source, str(DOC), "exec"), scope)
    try:
        cube = scope["cube"]
        x = np.linspace(-1.0, 2.0, 5)
        np.testing.assert_allclose(np.asarray(cube(tf8.tensor(x))), x * x * x)
        loss = lambda v: tnp.sum(cube(v))  # noqa: E731
        np.testing.assert_allclose(tf8.grad(loss)(x), 3 * x**2)
        np.testing.assert_allclose(tf8.jit(tf8.grad(loss))(x), 3 * x**2)
        np.testing.assert_allclose(
            tf8.vmap(tf8.grad(loss))(np.stack([x, -x])), 3 * np.stack([x, -x]) ** 2
        )
    finally:
        unregister_primitive("cube")
