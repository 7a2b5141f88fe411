"""The rest of `jax.lax`: the inverse hyperbolic functions, cbrt, erfc, exp2, reciprocal,
is_finite, nextafter, reduce_precision and the integer bit functions; the running products,
maxima, minima and log-sum-exps and `associative_scan`; `reduce` by a monoid or any
computation, and the bitwise reductions; `select_n`; the small shape helpers (full,
full_like, split, stack, unstack, tile, the in-dim slices, index_take, collapse,
broadcast_shapes, broadcast_to_rank, broadcast_like, batch_matmul, dtype); Precision and
FftType; approx_max_k and approx_min_k; platform_dependent.

Functions that take functions (a computation, a combining function) are programs over the
case's arrays. The uniform tangents of the derivatives cannot tell which entry of a scan
receives which tangent, so the `[weighted]` programs scale the operand by 1, 2, 3, ...
along its last axis first, as in lax_reduce."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..grids import SPECIAL, unary
from ..spec import Case, Static, program

NAN, INF = np.nan, np.inf
FLOAT_UNARY = {
    "asinh": ("unit", "wide"),
    "acosh": ("unit", "above_one"),
    "atanh": ("unit",),
    "cbrt": ("unit", "wide"),
    "erfc": ("unit", "wide"),
    "exp2": ("unit", "wide"),
    "reciprocal": ("unit", "wide"),
    "is_finite": ("unit",),
}


def _ramp(lax, x):
    """x * (1, 2, 3, ...) along the last axis."""
    return lax.mul(x, lax.broadcasted_iota(x.dtype, x.shape, x.ndim - 1) + 1)


for _name in ("cumprod", "cummax", "cummin", "cumlogsumexp"):

    @program(f"lax.{_name}[weighted]")
    def _weighted(root, name=_name):
        return lambda x, **kw: getattr(root.lax, name)(_ramp(root.lax, x), **kw)


_COMBINE = {
    "add": lambda lax: lax.add,
    "mul": lambda lax: lax.mul,
    "max": lambda lax: lax.max,
    "affine": lambda lax: lambda a, b: (lax.mul(a[0], b[0]), lax.add(lax.mul(a[1], b[0]), b[1])),
}
for _name in _COMBINE:

    @program(f"lax.associative_scan[{_name}]")
    def _scan(root, name=_name):
        fn = _COMBINE[name](root.lax)
        if name == "affine":
            return lambda a, b, **kw: root.lax.associative_scan(fn, (a, b), **kw)
        return lambda x, **kw: root.lax.associative_scan(fn, _ramp(root.lax, x), **kw)


_REDUCERS = {
    "add": lambda lax: lax.add,
    "mul": lambda lax: lax.mul,
    "max": lambda lax: lax.max,
    "min": lambda lax: lax.min,
    "and": lambda lax: lax.bitwise_and,
    "or": lambda lax: lax.bitwise_or,
    "xor": lambda lax: lax.bitwise_xor,
    "lambda": lambda lax: lambda a, b: a + b,  # not recognised as a monoid: the generic fold
    "logaddexp": lambda lax: lambda a, b: lax.max(a, b) + lax.log1p(lax.exp(-lax.abs(a - b))),
}
for _name in _REDUCERS:

    @program(f"lax.reduce[{_name}]")
    def _reduce(root, name=_name):
        return lambda x, init, dims: root.lax.reduce(x, init, _REDUCERS[name](root.lax), dims)


@program("lax.reduce[pair]")
def _reduce_pair(root):
    lax = root.lax

    def fn(a, b, dims):
        pair = lambda p, q: (lax.min(p[0], q[0]), lax.add(p[1], q[1]))  # noqa: E731
        return lax.reduce((a, b), (INF, 0.0), pair, dims)

    return fn


@program("lax.select_n[pair]")
def _select_pair(root):
    return lambda which, a, b: root.lax.select_n(which, a, b)


@program("lax.select_n[three]")
def _select_three(root):
    return lambda which, a, b, c: root.lax.select_n(which, a, b, c)


@program("lax.stack[pair]")
def _stack(root):
    return lambda a, b, **kw: root.lax.stack([a, b], **kw)


@program("lax.index_take[one]")
def _index_take_one(root):
    return lambda x, i, axes: root.lax.index_take(x, [i], axes)


@program("lax.index_take[two]")
def _index_take_two(root):
    return lambda x, i, j, axes: root.lax.index_take(x, [i, j], axes)


@program("lax.broadcast_shapes[array]")
def _broadcast_shapes(root):
    return lambda *shapes: root.numpy.array(root.lax.broadcast_shapes(*shapes), dtype="int64")


@program("lax.dtype[zeros]")
def _dtype(root):
    return lambda x: root.numpy.zeros((2,), root.lax.dtype(x))


@program("lax.dot[Precision]")
def _dot_precision(root):
    return lambda x, y, name: root.lax.dot(x, y, precision=root.lax.Precision(name))


@program("lax.fft[FftType]")
def _fft_type(root):
    return lambda x, kind, lengths: root.lax.fft(x, getattr(root.lax.FftType, kind), lengths)


for _name, _kw in (("cpu", ("cpu", "tpu")), ("default", ("tpu",))):

    @program(f"lax.platform_dependent[{_name}]")
    def _platform(root, names=_kw):
        lax = root.lax
        branches = {"cpu": lax.sin, "tpu": lax.cos}
        pick = {n: branches[n] for n in names}
        return lambda x: lax.platform_dependent(x, default=lax.exp, **pick)


def _narrowed(x: np.ndarray, dtype: type) -> np.ndarray:
    """`x` in a narrower float dtype, what overflows it becoming inf (no warning)."""
    with np.errstate(over="ignore"):
        return x.astype(dtype)


def _elementwise(rng: np.random.Generator) -> Iterator[Case]:
    for name, ranges in FLOAT_UNARY.items():
        for args in unary(rng, ranges):
            yield Case(f"lax.{name}", args)
    edges = np.array([1.0, -1.0, 0.0, -0.0, 1e-300, 1e300, -1e300, 2.0**-1074, INF, -INF, NAN])
    for name in ("asinh", "acosh", "atanh", "cbrt", "erfc", "exp2"):
        yield Case(f"lax.{name}", (edges,), derivatives=False)
    ints = [
        np.array([0, 1, 7, -1, -(2**31), 2**31 - 1, 12345], np.int32),
        np.array([0, 1, -1, -(2**63), 2**63 - 1, 2**40 + 3], np.int64),
        np.array([0, 1, 128, 255, 16], np.uint8),
        np.array([0, 1, 2**31, 2**32 - 1, 96], np.uint32),
        np.array([1.0, 2.0]),  # refused
        np.array([True, False]),  # refused
    ]
    for name in ("population_count", "clz"):
        for x in ints:
            yield Case(f"lax.{name}", (x,))
    steps = np.array([0.0, -0.0, 1.0, 1.0, INF, -INF, NAN, 1.0, 2.0**-1074, 1e308])
    towards = np.array([1.0, -1.0, 2.0, 0.0, 0.0, INF, 1.0, NAN, 0.0, INF])
    yield Case("lax.nextafter", (steps, towards))
    for narrow in (np.float32, np.float16):
        yield Case("lax.nextafter", (_narrowed(steps, narrow), _narrowed(towards, narrow)))
    yield Case("lax.nextafter", (np.array([1.0, 2.0]), 3.0))
    yield Case("lax.nextafter", (np.array([1, 2], np.int32), np.array([3, 0], np.int32)))
    yield Case("lax.nextafter", (np.array([1.0]), np.array([2.0], np.float32)))
    a32 = np.array([2**31 - 1, -(2**31), 123456789, -5, 0, 65536], np.int32)
    b32 = np.array([2**31 - 1, 2**31 - 1, -987654321, 3, 7, 65536], np.int32)
    for x, y in (
        (a32, b32),
        (a32.astype(np.uint32), b32.astype(np.uint32)),
        (np.array([255, 16, 3, 200], np.uint8), np.array([255, 16, 100, 2], np.uint8)),
        (
            np.array([2**63 - 1, -(2**63), 3 << 40, -7, 123456789012345], np.int64),
            np.array([2**63 - 1, 2**63 - 1, -(5 << 30), 9, -98765432109876], np.int64),
        ),
        (a32, 3),
        (np.array([1.0]), np.array([2.0])),  # refused
        (a32, b32.astype(np.int64)),  # refused
    ):
        yield Case("lax.mulhi", (x, y))
    values = np.array(
        [1.0, 1.0 + 2.0**-8, 1.0 + 3 * 2.0**-9, 3.14159, -2.5e-5, 65504.0, 7e4, 1e-8, 1e39,
         6e-39, -0.0, INF, -INF, NAN, 2.0**-1074]
    )  # fmt: skip
    for x in (values, _narrowed(values, np.float32), _narrowed(values, np.float16)):
        for bits in ((8, 7), (5, 10), (8, 23), (11, 52), (2, 1), (4, 3), (11, 0), (6, 0)):
            yield Case("lax.reduce_precision", (x, Static(bits[0]), Static(bits[1])))
    smooth = rng.uniform(-2.0, 2.0, (2, 3))
    for x in (smooth, smooth.astype(np.float32), 1.5):
        yield Case("lax.reduce_precision", (x, Static(8), Static(7)))
    yield Case("lax.reduce_precision", (smooth, Static(0), Static(7)))  # refused
    yield Case("lax.reduce_precision", (np.array([1, 2], np.int32), Static(8), Static(7)))


def _cumulative(rng: np.random.Generator) -> Iterator[Case]:
    base = rng.uniform(0.5, 1.5, (3, 4))
    signed = rng.uniform(-2.0, 2.0, (3, 4))
    for name in ("cumprod", "cummax", "cummin", "cumlogsumexp"):
        operands = [
            base if name == "cumprod" else signed,
            signed.astype(np.float32),
            np.array([[1, -2, 3], [4, 0, 2]], np.int32),
            np.array([[200, 3], [100, 2]], np.uint8),
            signed + 0.5j * signed[::-1],
            np.array([[1.0, NAN, INF], [INF, -INF, 1.0], [0.0, -0.0, 2.0]]),
            np.array([[2.0, 0.0, 3.0, 0.0], [1.0, 3.0, 3.0, 1.0]]),  # zeros and ties
        ]
        for x in operands:
            for keywords in ({}, {"axis": 1}, {"axis": 1, "reverse": True}, {"reverse": True}):
                yield Case(f"lax.{name}", (x,), keywords)
        for keywords in ({"axis": 1}, {"axis": 1, "reverse": True}, {}):
            yield Case(f"lax.{name}[weighted]", (signed[:, :3] + 0.1,), keywords)
            yield Case(f"lax.{name}[weighted]", (np.array([[2.0, 2.0, 1.0, 2.0]]),), keywords)
        yield Case(f"lax.{name}", (rng.uniform(0.5, 1.5, 9),))  # odd lengths of the scan
        yield Case(f"lax.{name}", (rng.uniform(0.5, 1.5, (2, 5, 2)),), {"axis": 1})
        yield Case(f"lax.{name}", (np.array([[-INF, -INF], [-INF, 1.0]]),), {"axis": 1})
        yield Case(f"lax.{name}", (np.zeros((2, 0)),), {"axis": 1})
        yield Case(f"lax.{name}", (np.array([True, False]),))  # refused: bools
        yield Case(f"lax.{name}", (base,), {"axis": -1})  # refused: JAX wants axis >= 0
        yield Case(f"lax.{name}", (base,), {"axis": 2})  # refused
        yield Case(f"lax.{name}", (np.array(2.5),))  # refused: 0-d


def _scans(rng: np.random.Generator) -> Iterator[Case]:
    for n in (1, 2, 3, 5, 8):
        x = rng.uniform(0.5, 1.5, (n, 2))
        for name in ("add", "mul", "max"):
            yield Case(f"lax.associative_scan[{name}]", (x,))
        yield Case("lax.associative_scan[add]", (x,), {"reverse": True})
    x = rng.uniform(-1.0, 1.0, (2, 7))
    # (JAX refuses a negative axis with reverse=True: it reverses before normalising the axis)
    for keywords in ({"axis": 1}, {"axis": -1}, {"axis": 1, "reverse": True}, {"axis": 0}):
        yield Case("lax.associative_scan[add]", (x,), keywords)
        yield Case("lax.associative_scan[affine]", (x, x[::-1].copy()), keywords)
    yield Case("lax.associative_scan[add]", (np.array([[-0.0, -0.0, 1.0]]),), {"axis": 1})
    yield Case("lax.associative_scan[add]", (np.arange(6, dtype=np.int32),))
    yield Case("lax.associative_scan[max]", (np.array([1.0, NAN, 3.0, -INF, 2.0]),))
    yield Case("lax.associative_scan[add]", (x,), {"axis": 2})  # refused


def _reduce(rng: np.random.Generator) -> Iterator[Case]:
    x = rng.uniform(0.5, 2.0, (3, 4))
    ints = np.array([[6, -3, 12], [5, 7, -1]], np.int32)
    for name, init, operand in (
        ("add", 0.0, x),
        ("mul", 1.0, x),
        ("max", -INF, x),
        ("min", INF, x),
        ("lambda", 0.0, x),
        ("logaddexp", -INF, x),
        ("add", 0.0, x.astype(np.float32)),
        ("lambda", 0.0, x.astype(np.float32)),
        ("add", 0, ints),
        ("max", -(2**31), ints),
        ("and", -1, ints),
        ("or", 0, ints),
        ("xor", 0, ints),
        ("lambda", 0, ints),
        ("add", 10.0, x),  # not the identity: the generic reduce
        ("max", 0.0, x),
    ):
        for dims in ((0,), (1,), (0, 1), ()):
            yield Case(f"lax.reduce[{name}]", (operand, Static(init), Static(dims)))
    cube = rng.uniform(0.5, 2.0, (3, 2, 5))
    for name in ("lambda", "add", "max"):
        yield Case(f"lax.reduce[{name}]", (cube, Static(0.0), Static((0, 2))))
        yield Case(f"lax.reduce[{name}]", (np.zeros((0, 3)), Static(0.0), Static((0,))))
    yield Case("lax.reduce[lambda]", (np.array([-0.0, -0.0]), Static(0.0), Static((0,))))
    yield Case("lax.reduce[pair]", (x, x[::-1].copy(), Static((1,))))
    yield Case("lax.reduce[pair]", (cube, cube * 2, Static((0, 1))))
    yield Case("lax.reduce[add]", (x, Static(0.0), Static((2,))))  # refused
    yield Case("lax.reduce[lambda]", (x, Static(0.0), Static((0, 0))))  # refused
    bools = np.array([[True, False, True], [True, True, True]])
    for name in ("reduce_and", "reduce_or", "reduce_xor"):
        for operand in (bools, ints, ints.astype(np.uint8), ints.astype(np.int64)):
            for axes in ((0,), (1,), (0, 1), ()):
                yield Case(f"lax.{name}", (operand, Static(axes)))
        yield Case(f"lax.{name}", (np.zeros((0, 2), np.int32), Static((0,))))
        yield Case(f"lax.{name}", (x, Static((0,))))  # refused: floats


def _select_n(rng: np.random.Generator) -> Iterator[Case]:
    a, b, c = rng.uniform(-2.0, 2.0, (3, 2, 3))
    which_bool = np.array([[True, False, True], [False, False, True]])
    which_int = np.array([[0, 1, 2], [2, 1, 0]], np.int32)
    yield Case("lax.select_n[pair]", (which_bool, a, b))
    yield Case("lax.select_n[pair]", (np.array(True), a, b))
    yield Case("lax.select_n[pair]", (which_int % 2, a, b))
    yield Case("lax.select_n[pair]", (which_bool, a.astype(np.float32), b.astype(np.float32)))
    yield Case("lax.select_n[pair]", (which_bool, a.astype(np.int32), b.astype(np.int32)))
    yield Case("lax.select_n[three]", (which_int, a, b, c))
    yield Case("lax.select_n[three]", (np.array(2, np.int32), a, b, c))
    yield Case("lax.select_n[three]", (which_bool, a, b, c))  # refused: bool, 3 cases
    yield Case("lax.select_n[pair]", (a > 0, a, b.astype(np.float32)))  # refused
    yield Case("lax.select_n[pair]", (which_bool[0], a, b))  # refused: shape
    yield Case("lax.select_n[pair]", (a, a, b))  # refused: float which
    # derivatives=False: JAX's transpose of a one-case select_n fails (IndexError)
    yield Case("lax.select_n", (which_bool, a), derivatives=False)


def _small(rng: np.random.Generator) -> Iterator[Case]:
    x = rng.uniform(-2.0, 2.0, (2, 3))
    cube = rng.uniform(-2.0, 2.0, (2, 3, 4))
    for fill, keywords in ((1.5, {}), (2, {}), (True, {}), (1.5, {"dtype": "float32"}),
                           (np.array(3.0, np.float32), {}), (2, {"dtype": "uint8"})):  # fmt: skip
        yield Case("lax.full", (Static((2, 3)), fill), keywords)
    yield Case("lax.full", (Static((2,)), np.ones(2)))  # refused: not a scalar
    for like, keywords in ((x, {}), (x.astype(np.float32), {"dtype": "int32"}),
                           (x, {"shape": (4,)}), (np.arange(3, dtype=np.int32), {})):  # fmt: skip
        yield Case("lax.full_like", (like, 2.5 if like.dtype.kind == "f" else 2), keywords)
    for sizes, axis in (((1, 2), 0), ((2, 0, 1), 1), ((3,), 1), ((1, 1), 1)):
        yield Case("lax.split", (cube, Static(sizes)), {"axis": axis})
    for axis in (0, 1, 2, -1):
        yield Case("lax.stack[pair]", (x, x[::-1].copy()), {"axis": axis})
    yield Case("lax.stack[pair]", (x, x[0]))  # refused
    for axis in (0, 1, -1):
        yield Case("lax.unstack", (cube,), {"axis": axis})
    yield Case("lax.unstack", (np.array(1.0),))  # refused
    for reps in ((1, 2), (2, 1), (3, 2), (0, 2), (2,)):
        yield Case("lax.tile", (x, Static(reps)))
    for index, keywords in ((1, {}), (-1, {"axis": 1}), (2, {"axis": 1, "keepdims": False})):
        yield Case("lax.index_in_dim", (x, Static(index)), keywords)
    yield Case("lax.index_in_dim", (x, Static(5)))  # refused
    for start, limit, keywords in (
        (0, 2, {"axis": 1}),
        (1, None, {}),
        (None, -1, {"axis": 1}),
        (0, 3, {"axis": 1, "stride": 2}),
        (-2, None, {"axis": 1}),
    ):
        yield Case("lax.slice_in_dim", (x, Static(start), Static(limit)), keywords)
    for update, index, axis in ((x[0], 1, 0), (x[:, :1], 2, 1), (x[0], -1, 0), (x[0], 7, 0)):
        yield Case("lax.dynamic_update_index_in_dim", (x, update, index, Static(axis)))
    yield Case("lax.dynamic_update_index_in_dim", (np.zeros(4), 1.5, 2, Static(0)))
    yield Case("lax.index_take[one]", (cube, np.array([1, -1, 0], np.int32), Static((0,))))
    yield Case("lax.index_take[one]", (cube, np.array([3, 5]), Static((2,))))
    yield Case("lax.index_take[two]", (cube, np.array([0, 1]), np.array([2, -3]), Static((0, 1))))
    for start, stop in ((0, 2), (1, None), (0, None), (-2, None), (1, 1)):
        yield Case("lax.collapse", (cube, Static(start), Static(stop)))
    for shapes in (((3, 1), (1, 4)), ((2, 3), (3,), ()), ((5, 1, 1), (1, 4))):
        yield Case("lax.broadcast_shapes[array]", tuple(Static(s) for s in shapes))
    yield Case("lax.broadcast_shapes[array]", (Static((2, 3)), Static((4,))))  # refused
    for operand, rank in ((x, 4), (np.array(1.5), 2), (x, 2)):
        yield Case("lax.broadcast_to_rank", (operand, Static(rank)))
    yield Case("lax.broadcast_like", (x[0], cube[..., :3].transpose(2, 0, 1).copy()))
    yield Case("lax.broadcast_like", (x[:, :1], x))
    left, right = rng.uniform(-1.0, 1.0, (2, 2, 3, 3))
    yield Case("lax.batch_matmul", (left, right))
    yield Case("lax.batch_matmul", (left, right), {"precision": "highest"})
    yield Case("lax.batch_matmul", (left.astype(np.float32), right.astype(np.float32)))
    yield Case("lax.batch_matmul", (left[0], right))  # refused
    for operand in (Static(1.5), Static(2), Static("float32"), x.astype(np.float32),
                    np.array([1, 2], np.uint8)):  # fmt: skip
        yield Case("lax.dtype[zeros]", (operand,), derivatives=False)
    for name in ("highest", "default", "HIGH", "tensorfloat32"):
        yield Case("lax.dot[Precision]", (x, x.T.copy(), Static(name.lower())))
    for kind, operand, lengths in (("RFFT", x, (3,)), ("FFT", x + 1j * x, (2, 3))):
        yield Case("lax.fft[FftType]", (operand, Static(kind), Static(lengths)))


def _approx_top_k(rng: np.random.Generator) -> Iterator[Case]:
    x = rng.uniform(-2.0, 2.0, (3, 6))
    ties = np.array([[3.0, 1.0, 3.0, -INF, 0.5, -0.0, 0.0, INF]])
    for name in ("approx_max_k", "approx_min_k"):
        yield Case(f"lax.{name}", (x, Static(2)))
        yield Case(f"lax.{name}", (x.astype(np.float32), Static(3)), {"reduction_dimension": 0})
        yield Case(f"lax.{name}", (ties, Static(8)))
        yield Case(f"lax.{name}", (ties, Static(3)), {"recall_target": 0.5})
        yield Case(f"lax.{name}", (x, Static(7)))  # refused: k too large
        yield Case(f"lax.{name}", (np.array([3, 1, 2], np.int32), Static(2)))  # refused


def cases() -> Iterator[Case]:
    rng = np.random.default_rng(31)
    yield from _elementwise(rng)
    yield from _cumulative(rng)
    yield from _scans(rng)
    yield from _reduce(rng)
    yield from _select_n(rng)
    yield from _small(rng)
    yield from _approx_top_k(rng)
    for x in (rng.uniform(-1.0, 1.0, (2, 3)), SPECIAL):
        yield Case("lax.platform_dependent[cpu]", (x,))
        yield Case("lax.platform_dependent[default]", (x,))
