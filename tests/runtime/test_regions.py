"""Elementwise regions: planned on large same-shape runs, bit-for-bit equal to op-by-op."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_passes_programs import plain_runtime, run_all, steps

import tf8
import tf8.numpy as tnp
from tf8 import GraphCompiler, Runtime
from tf8.lax.core import apply1
from tf8.ops.primitives import PRIMITIVES
from tf8.runtime.engines.numpy import regions

N = 5 * regions.BLOCK + 1234  # several blocks and a ragged tail
assert N >= regions.MIN_ELEMENTS


def prepare(*outputs, **options):
    return Runtime(**options).prepare(GraphCompiler().compile(*outputs))


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def chain(x):
    acc = x
    for _ in range(20):
        acc = acc * x + x
    return tnp.sum(acc)


def test_the_bandwidth_chain_is_one_region_ended_by_its_reduction():
    x = tf8.placeholder((N,), "float64")
    prepared = prepare(chain(x))
    (region,) = prepared.prepared.regions
    assert (region.ops, region.shape, region.reduction) == (40, (N,), True)
    assert "elementwise regions" in prepared.pretty()
    a = np.random.default_rng(0).uniform(0, 0.5, N)
    expected = a
    for _ in range(20):
        expected = expected * a + a
    assert same_bits(prepared.run(a)[0], np.sum(expected))
    assert same_bits(prepared.run(a)[0], prepare(chain(x), regions=False).run(a)[0])


def test_small_arrays_run_op_by_op():
    x = tf8.placeholder((regions.MIN_ELEMENTS - 1,), "float64")
    assert prepare(chain(x)).prepared.regions == []
    n = tf8.placeholder(("n",), "float64")
    assert prepare(chain(n)).prepared.regions == [], "symbolic sizes run op by op"


def _operands(name, dtype, rng):
    kind = np.dtype(dtype).kind
    if kind == "b":
        return [rng.random(N) < 0.5 for _ in range(2)]
    if kind == "i":
        return [rng.integers(-50, 50, N).astype(dtype) for _ in range(2)]
    if kind == "u":
        return [rng.integers(0, 100, N).astype(dtype) for _ in range(2)]
    parts = [rng.normal(size=N) * 3 for _ in range(4)]
    if kind == "c":
        return [(parts[0] + 1j * parts[1]).astype(dtype), (parts[2] + 1j * parts[3]).astype(dtype)]
    return [parts[0].astype(dtype), np.abs(parts[1]).astype(dtype) + 0.5]


def _apply(name, a, b):
    """The catalog primitive `name` itself on traced operands."""
    if name == "compare":
        return apply1("compare", [a, b], direction="lt")
    if name == "clamp":
        return apply1("clamp", [tnp.minimum(a, b), a, tnp.maximum(a, b)])
    return apply1(name, [a, b][: PRIMITIVES[name].row.min_arity])


def _program(name, dtype):
    """The op between two others in one region, or None when the catalog refuses the dtype."""
    x = tf8.placeholder((N,), dtype)
    y = tf8.placeholder((N,), dtype)
    try:
        with np.errstate(all="ignore"):
            _apply(name, x, y)
    except (TypeError, ValueError):
        return None
    first = tnp.maximum(x, y) if dtype == "bool" else x
    out = _apply(name, first, y)
    out = tnp.logical_not(out) if out.dtype == np.bool_ else out + out
    return x, y, GraphCompiler().compile(out)


def _forms_region(name, dtype):
    built = _program(name, dtype)
    return built is not None and bool(Runtime().prepare(built[2]).prepared.regions)


# Only the (op, dtype) pairs the catalog admits and that run as ufuncs (the others are
# kernel calls, which regions leave alone by design).
CASES = [
    (name, dtype)
    for name in sorted(n for n, d in PRIMITIVES.items() if d.fusion.ufunc)
    for dtype in (
        "bool",
        "uint8",
        "uint32",
        "int32",
        "int64",
        "float32",
        "float64",
        "complex64",
        "complex128",
    )
    if _forms_region(name, dtype)
]


def test_most_ufunc_ops_form_regions():
    assert len(CASES) > 60


@pytest.mark.parametrize("name, dtype", CASES, ids=[f"{n}-{d}" for n, d in CASES])
def test_every_ufunc_op_in_a_region_is_bit_for_bit_op_by_op(name, dtype):
    """The op between two others in one region, against op-by-op execution."""
    x, y, compiled = _program(name, dtype)
    a, b = _operands(name, dtype, np.random.default_rng(zlib.crc32(f"{name}-{dtype}".encode())))
    feed = dict(zip((x.key, y.key), (a, b)))
    arrays = [feed[k] for k in compiled.placeholders]
    blocked = Runtime().prepare(compiled)
    reference = Runtime(regions=False).prepare(compiled)
    assert blocked.prepared.regions
    assert same_bits(blocked.run(*arrays)[0], reference.run(*arrays)[0])


def test_values_read_after_the_region_are_materialised():
    x = tf8.placeholder((N,), "float64")
    y = tf8.placeholder((N,), "float64")
    inner = tnp.exp(x) * y
    last = inner + x * 2.0
    outs = [last, inner, tnp.sum(inner), tnp.cumsum(last)]
    prepared = prepare(*outs)
    assert len(prepared.prepared.regions) == 1
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=N), rng.normal(size=N)
    reference = prepare(*outs, regions=False, passes=())
    for got, want in zip(prepared.run(a, b), reference.run(a, b), strict=True):
        assert same_bits(got, want)


def test_strided_and_scalar_operands():
    x = tf8.placeholder((400, 300), "float64")
    y = tf8.placeholder((300, 400), "float64")
    out = tnp.tanh(x * 0.5 + y.T) - 1.0
    prepared = prepare(out)
    assert prepared.prepared.regions, "the transposed read is an operand of the region"
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(400, 300)), np.asfortranarray(rng.normal(size=(300, 400)))
    assert same_bits(prepared.run(a, b)[0], np.tanh(a * 0.5 + b.T) - 1.0)


def test_a_transposed_read_of_a_region_value_ends_the_region():
    x = tf8.placeholder((300, 300), "float64")
    t = tnp.exp(x) * 2.0
    out = (t + t.T) * 3.0  # t.T needs all of t: it cannot be read block by block
    prepared = prepare(out)
    a = np.random.default_rng(5).normal(size=(300, 300))
    expected = (np.exp(a) * 2.0 + (np.exp(a) * 2.0).T) * 3.0
    assert same_bits(prepared.run(a)[0], expected)


@settings(max_examples=max(25, settings.default.max_examples), deadline=None)
@given(spec=steps, shape=st.sampled_from([(N,), (260, 260)]), reduce=st.booleans())
def test_random_programs_are_bit_for_bit_equal_with_and_without_regions(spec, shape, reduce):
    runtimes = [Runtime(), Runtime(regions=False), plain_runtime()]
    (blocked, op_by_op, plain), _ = run_all(spec, shape, runtimes, reduce=reduce)
    for a, b, c in zip(blocked, op_by_op, plain, strict=True):
        assert same_bits(a, b) and same_bits(b, c)
