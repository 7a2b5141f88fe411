"""The numba engine's indexed code generator (nests.py, indexing.py): structural ops as
index arithmetic, reductions along axes and small contractions as loops, all fused into
one compiled function, checked against the numpy engine (and numpy itself).

Each test compiles one function (numba: ~0.3-1 s), into a fresh cache directory.
"""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.lax as lax
import tf8.numpy as tnp
from tf8.api import runtime_for

pytest.importorskip("numba", reason="the numba engine needs its extra: pip install numba")

from tf8.runtime.engines.numba import TOLERANCE  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TF8_CACHE_DIR", str(tmp_path))


def _compiled(f, *args):
    """f jitted on the numba engine and on numpy, run twice (the second run compiles);
    returns (numba's result, numpy's, the prepared program on numba)."""
    jitted, reference = tf8.jit(f, engine="numba"), tf8.jit(f, engine="numpy")
    jitted(*args)
    got = jitted(*args)
    prepared = runtime_for("numba").prepare(jitted.lower(*args))
    return got, reference(*args), prepared


def _structural(x, y):
    """Every structural op the indexed generator knows, with awkward parameters."""
    a = lax.pad(tnp.sin(x), 0.5, [(1, -1, 1), (-2, 3, 0), (0, 0, 2)])  # interior, crop, grow
    b = lax.reshape(lax.transpose(a, (2, 0, 1)), (a.shape[2] * a.shape[0], a.shape[1]))
    strided = lax.slice(b, (1, 0), (b.shape[0], 5), (2, 1))
    c = lax.concatenate([lax.rev(b, (0,)), b * 2.0, strided], 0)
    d = c + lax.broadcasted_iota(np.float64, c.shape, 1)
    e = lax.reduce_max(lax.reshape(d, (d.shape[0], 1, d.shape[1])), (2,))  # along one axis
    column = lax.reshape(x[:, :, 0], (2, 3, 2))[..., :1]
    batched = lax.broadcast_in_dim(e[:3, 0], (2, 3, 4), (1,)) * column
    f = lax.dot_general(y, batched, (((1,), (1,)), ((0,), (0,))))
    return tnp.sum(d * d, axis=0), e, f


def test_structural_ops_compile_into_one_function_and_agree_with_numpy():
    x = np.random.default_rng(0).standard_normal((3, 4, 2))
    y = np.random.default_rng(1).standard_normal((2, 3))
    got, expected, prepared = _compiled(_structural, x, y)
    program = prepared.program
    placed = {inst.name: inst.engine for inst in program.instructions if inst.engine != "numba"}
    # everything but the constants (and the transfer of the program's results) is on numba
    assert set(placed) <= {"constant", "transfer"}, prepared.pretty()
    (region,) = prepared.prepared.guest_regions
    assert "loop nest(s)" in region.description, region.description
    for value, reference in zip(got, expected):
        assert value.shape == reference.shape and value.dtype == reference.dtype
        np.testing.assert_allclose(value, reference, rtol=TOLERANCE["float64"], atol=1e-12)


def test_rosenbrock_hessian_is_one_function_of_few_nests():
    def rosenbrock(v):
        return tnp.sum(100.0 * (v[1:] - v[:-1] ** 2) ** 2 + (1.0 - v[:-1]) ** 2)

    x = np.random.default_rng(0).uniform(-1.0, 1.0, 12)
    got, expected, prepared = _compiled(tf8.hessian(rosenbrock), x)
    (region,) = prepared.prepared.guest_regions
    nests = int(region.description.split("one function, ")[1].split(" loop nest")[0])
    assert nests <= 6, region.description
    # the closed form: 2 + 1200 x_i^2 - 400 x_{i+1} (+200 from the next term), -400 x_i off
    n = len(x)
    closed = np.zeros((n, n))
    for i in range(n - 1):
        closed[i, i] += 1200 * x[i] ** 2 - 400 * x[i + 1] + 2
        closed[i + 1, i + 1] += 200
        closed[i, i + 1] = closed[i + 1, i] = -400 * x[i]
    np.testing.assert_allclose(got, closed, rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(got, expected, rtol=TOLERANCE["float64"], atol=1e-9)


def test_reductions_along_axes_propagate_nan_and_only_small_contractions_are_loops():
    def f(x, w, a, b):
        small = (x[0] @ w) * 2.0 + 1.0
        return lax.reduce_max(x * 2.0, (0, 2)), tnp.sum(tnp.exp(x), axis=1), small, a @ b

    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((3, 4, 5)), rng.standard_normal((5, 6))
    a, b = rng.standard_normal((40, 300)), rng.standard_normal((300, 40))
    x[1, 2, 3] = np.nan
    got, expected, prepared = _compiled(f, x, w, a, b)
    contractions = [i.engine for i in prepared.program.instructions if i.name == "dot_general"]
    assert sorted(contractions) == ["numba", "numpy"], prepared.pretty()  # a @ b: BLAS
    assert "reduce_max" in {i.name for i in prepared.program.instructions if i.engine == "numba"}
    assert np.isnan(got[0][2]) and not np.isnan(got[0][[0, 1, 3]]).any()
    for value, reference in zip(got, expected):
        np.testing.assert_allclose(value, reference, rtol=TOLERANCE["float64"])


def test_nested_maximum_and_clamp_of_expressions_stay_linear_in_source_size(monkeypatch):
    """Their scalar code repeats operands: an expression operand is computed into a name
    first, or eight nested maximums and clamps would repeat the innermost expression 27**4
    times (checked before compiling, so a regression fails fast)."""
    from tf8.runtime.engines.numba import cache

    load = cache.load

    def bounded(source, warm):
        assert len(source) < 20_000, f"{len(source)} characters of generated source"
        return load(source, warm)

    monkeypatch.setattr(cache, "load", bounded)

    def f(x, y):
        acc = x
        for _ in range(4):
            acc = tnp.maximum(acc * 1.1 - y[:, None], -1.0)
            acc = lax.clamp(-2.0, acc * 0.5 + 0.1, 2.0)
        return acc

    x = np.random.default_rng(4).standard_normal((5, 7))
    y = np.random.default_rng(5).standard_normal(5)
    got, expected, prepared = _compiled(f, x, y)
    (region,) = prepared.prepared.guest_regions
    assert "loop nest(s)" in region.description, region.description
    np.testing.assert_allclose(got, expected, rtol=TOLERANCE["float64"])
