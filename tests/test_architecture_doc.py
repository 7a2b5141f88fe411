"""docs/architecture.md's worked examples run as written: a primitive defined by one `define`
call differentiates, jits and vmaps, and the toy transform is the tested one (so the page
cannot drift from the code)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

import tf8
import tf8.numpy as tnp
from tf8.ops.primitive import unregister_primitive

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_toy_transform_on_the_page_is_the_tested_one():
    (source,) = [b for b in _blocks() if "class Counting" in b]
    tested = (Path(__file__).parent / "ad" / "test_toy_transform.py").read_text()
    for line in source.splitlines():
        assert line.strip() in tested, f"the page's line is not in the test: {line!r}"


def test_the_worked_example_defines_a_working_primitive():
    (source,) = [b for b in _blocks() if "def cube" in b]
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
