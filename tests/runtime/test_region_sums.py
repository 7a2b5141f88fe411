"""A region's trailing sum computed block by block (blocksum.py): bit for bit numpy's sum."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import GraphCompiler, Runtime
from tf8.runtime.engines.numpy import blocks, blocksum, regions
from tf8.runtime.engines.numpy.blocksum import SUMMABLE, lane_exact, pairwise_blocks, tree_sum

N = 5 * regions.BLOCK + 1234  # several segments, none a multiple of the SIMD width
SIZES = (1, 127, 128, 129, 4096, 4097, 65_613, 300_001)


def prepare(*outputs, **options):
    return Runtime(**options).prepare(GraphCompiler().compile(*outputs))


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def sample(dtype, size, rng):
    """Values of `dtype` with cancellation (floats of mixed sign and magnitude), the edges of
    integer ranges (sums wrap), and for floats a few signed zeros."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size, dtype=dtype, endpoint=True)
    values = rng.normal(size=size) * 10.0 ** rng.integers(-3, 4, size)
    if dtype.kind == "c":
        values = values + 1j * rng.normal(size=size)
    values = values.astype(dtype)
    values[:: max(1, size // 5)] = -0.0
    return values


@pytest.mark.parametrize("dtype", sorted(str(d) for d in SUMMABLE))
def test_segment_sums_added_up_the_tree_are_numpys_sum(dtype):
    rng = np.random.default_rng(sum(map(ord, dtype)))
    for size in SIZES:
        a = sample(dtype, size, rng)
        for width in (128, 1000, 4096, 32768):
            bounds, merges = pairwise_blocks(size, a.dtype, width)
            with np.errstate(all="ignore"):  # integer partial sums wrap
                partials = [np.add.reduce(a[lo:hi], 0, a.dtype) for lo, hi in bounds]
                total = tree_sum(partials, merges, a.dtype.type(0))
            assert same_bits(total, np.add.reduce(a, 0, a.dtype)), (size, width)
            assert type(total) is a.dtype.type


def test_segments_tile_the_array_and_the_tree_merges_them_all():
    for size in SIZES:
        for dtype in ("float64", "complex128"):
            bounds, merges = pairwise_blocks(size, np.dtype(dtype), 1000)
            assert bounds[0][0] == 0 and bounds[-1][1] == size
            assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))
            assert all(0 < hi - lo <= 1000 for lo, hi in bounds)
            assert len(merges) == len(bounds) - 1
            assert all(max(pair) < len(bounds) + k for k, pair in enumerate(merges))


def test_a_width_below_numpys_unsplit_segment_is_refused():
    with pytest.raises(ValueError, match="width 64"):
        pairwise_blocks(1000, np.dtype("float64"), 64)


def test_a_sum_of_negative_zeros_is_positive_zero_as_in_numpy():
    a = np.full(10_000, -0.0)
    bounds, merges = pairwise_blocks(a.size, a.dtype, 1000)
    total = tree_sum([np.add.reduce(a[lo:hi]) for lo, hi in bounds], merges, np.float64(0))
    assert same_bits(total, np.sum(a)) and not np.signbit(total)


def test_the_probe_admits_the_summable_dtypes_and_refuses_another_order(monkeypatch):
    assert all(blocksum.sums_like_numpy(d) for d in SUMMABLE)
    assert not blocksum.sums_like_numpy(np.dtype("float16"))
    assert not blocksum.sums_like_numpy(np.dtype("bool"))

    def sequential(partials, merges, zero):  # another summation order than numpy's
        total = zero
        for p in partials:
            total = total + p
        return total

    blocksum.sums_like_numpy.cache_clear()
    monkeypatch.setattr(blocksum, "tree_sum", sequential)
    try:
        assert not blocksum.sums_like_numpy(np.dtype("float64"))
        assert blocksum.sums_like_numpy(np.dtype("int32")), "integer sums are exact anyway"
    finally:
        blocksum.sums_like_numpy.cache_clear()


def test_only_ops_exact_wherever_blocks_split_are_lane_exact():
    f64, c128, i32 = np.dtype("float64"), np.dtype("complex128"), np.dtype("int32")
    assert lane_exact(np.multiply, [f64, f64, f64])
    assert not lane_exact(np.exp, [f64, f64])  # SIMD and scalar-tail exp may round apart
    assert not lane_exact(np.multiply, [c128, c128, c128])
    assert lane_exact(np.add, [c128, c128, c128])
    assert lane_exact(np.left_shift, [i32, i32, i32])


def chain(x, steps=20):
    acc = x
    for _ in range(steps):
        acc = acc * x + x
    return tnp.sum(acc)


@pytest.mark.parametrize("size", [N, 4 * regions.BLOCK, regions.MIN_ELEMENTS])
def test_the_bandwidth_chain_sums_block_by_block_bit_for_bit(size):
    x = tf8.placeholder((size,), "float64")
    prepared = prepare(chain(x))
    (region,) = prepared.prepared.regions
    assert region.summed and region.end == region.stop + 1
    assert "then its sum (block by block" in prepared.pretty()
    assert "then its sum (block by block" in prepared.to_dot()
    source = prepared.prepared.run_fn.source
    assert "_tree_sum" in source and "empty(" not in source, "no full-size array is written"
    a = np.random.default_rng(size).uniform(0, 0.5, size)
    expected = a
    for _ in range(20):
        expected = expected * a + a
    assert same_bits(prepared.run(a)[0], np.sum(expected))
    assert same_bits(prepared.run(a)[0], prepare(chain(x), regions=False).run(a)[0])


def _summed_and_exact(outputs, arrays, summed=True):
    prepared = prepare(*outputs)
    assert [r.summed for r in prepared.prepared.regions] == [summed]
    reference = prepare(*outputs, regions=False, passes=())
    with np.errstate(all="raise"):  # the runtime silences IEEE warnings itself
        got = prepared.run(*arrays)
    for a, b in zip(got, reference.run(*arrays), strict=True):
        assert same_bits(a, b)


@pytest.mark.parametrize(
    "dtype, summed",
    [
        ("float32", True),
        ("int32", True),  # the products wrap: any order gives the same sum
        ("uint8", True),
        ("complex64", False),  # complex multiply is not lane exact
        ("float16", False),  # numpy sums float16 in float32
    ],
)
def test_dtypes(dtype, summed):
    x = tf8.placeholder((N,), dtype)
    y = tf8.placeholder((N,), dtype)
    rng = np.random.default_rng(7)
    arrays = [sample(dtype, N, rng) for _ in range(2)]
    if dtype == "float16":
        arrays = [a.clip(-2, 2) for a in arrays]
    _summed_and_exact([tnp.sum(x * y - x, dtype=dtype)], arrays, summed)


def test_complex_additions_sum_block_by_block():
    x = tf8.placeholder((N,), "complex128")
    y = tf8.placeholder((N,), "complex128")
    rng = np.random.default_rng(8)
    _summed_and_exact([tnp.sum(x + y - tnp.conj(x))], [sample("complex128", N, rng)] * 2)


def test_a_full_sum_of_a_matrix_is_fused_and_a_sum_over_one_axis_is_not():
    x = tf8.placeholder((301, 347), "float64")
    a = np.random.default_rng(9).normal(size=(301, 347))
    _summed_and_exact([tnp.sum(x * x + 1.5)], [a], True)
    _summed_and_exact([tnp.sum(x * x + 1.5, axis=(1, 0))], [a], True)
    _summed_and_exact([tnp.sum(x * x + 1.5, axis=0)], [a], False)


def test_a_transcendental_op_keeps_the_sum_after_the_loop():
    x = tf8.placeholder((N,), "float64")
    a = np.random.default_rng(10).normal(size=N)
    _summed_and_exact([tnp.sum(tnp.exp(x) * x)], [a], False)


def test_the_summed_value_is_also_returned_and_an_earlier_value_is_summed():
    x = tf8.placeholder((N,), "float64")
    y = tf8.placeholder((N,), "float64")
    rng = np.random.default_rng(11)
    arrays = [rng.normal(size=N), rng.normal(size=N)]
    v = x * y - 2.0
    _summed_and_exact([tnp.sum(v), v], arrays)
    earlier = x * y
    later = earlier + y * 3.0  # computed after `earlier`, in blocks that may reuse temps
    _summed_and_exact([later, tnp.sum(earlier)], arrays)


def test_scalar_operands_broadcast_inside_the_region():
    x = tf8.placeholder((N,), "float64")
    s = tf8.placeholder((), "float64")
    a = np.random.default_rng(12).normal(size=N)
    _summed_and_exact([tnp.sum((x * s + 0.25) / s)], [a, np.float64(1.75)])


def test_a_broadcast_row_inside_the_region():
    x = tf8.placeholder((301, 347), "float64")
    row = tf8.placeholder((347,), "float64")
    rng = np.random.default_rng(13)
    _summed_and_exact([tnp.sum(x * row + row)], [rng.normal(size=(301, 347)), rng.normal(size=347)])


def test_threads_share_a_prepared_fused_sum():
    x = tf8.placeholder((N,), "float64")
    prepared = prepare(chain(x, steps=5))
    assert prepared.prepared.regions[0].summed  # builds the optimised tier the threads run
    inputs = [np.random.default_rng(i).uniform(0, 0.5, N) for i in range(4)]
    serial = [prepared.run(a)[0] for a in inputs]
    barrier = threading.Barrier(4)
    failures = []

    def work(i):
        barrier.wait()
        for _ in range(5):
            if not same_bits(prepared.run(inputs[i])[0], serial[i]):
                failures.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_scratch_arrays_start_on_a_cache_line_and_do_not_overlap():
    dtypes = tuple(np.dtype(d) for d in ("int8", "float64", "complex64", "bool", "float32"))
    for size in (1, 100, 4097):
        arrays = blocks.scratch_arrays(size, dtypes)
        for a, dtype in zip(arrays, dtypes, strict=True):
            assert a.shape == (size,) and a.dtype == dtype and a.flags.writeable
            assert a.ctypes.data % blocks.ALIGN == 0 and a.flags.c_contiguous
        for a, b in zip(arrays, arrays[1:]):
            assert a.ctypes.data + a.nbytes <= b.ctypes.data
