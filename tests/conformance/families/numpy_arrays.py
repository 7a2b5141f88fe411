"""`jax.numpy`'s array creation, shape manipulation, joining and splitting.

Functions taking a sequence of arrays (`concatenate`, `stack`, ...) are recorded through the
program `numpy.<name>[seq]`, which passes its array arguments as one list; `empty` and
`empty_like` through `numpy.<name>[zeros_like]` (their values are undefined, their shape and
dtype are not)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..grids import ARRAY_DTYPES, SCALARS
from ..spec import Case, Static, function, program

KINDS = [np.bool_, np.int32, np.float32, np.float64, np.complex128]  # one of each kind
TARGETS = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64"]
SEQUENCE = ["concatenate", "stack", "hstack", "vstack", "dstack", "column_stack"]


def ramp(shape: tuple[int, ...], dtype: Any = np.float64) -> np.ndarray:
    """Distinct values 0.5, 1.5, ... of `shape` (bool: alternating; complex: a ramp in both
    parts), so that a permutation of the elements is visible."""
    values = np.arange(int(np.prod(shape))).reshape(shape) + 0.5
    if np.dtype(dtype) == np.bool_:
        return (np.arange(values.size).reshape(shape) % 3) == 1
    if np.dtype(dtype).kind == "c":
        return (values - 0.25j * values[::-1]).astype(dtype)
    return values.astype(dtype)


for _name in SEQUENCE:

    @program(f"numpy.{_name}[seq]")
    def _sequence(root: Any, name: str = _name) -> Any:
        fn = function(root, f"numpy.{name}")
        return lambda *arrays, **keywords: fn(list(arrays), **keywords)


for _name in ("empty", "empty_like"):

    @program(f"numpy.{_name}[zeros_like]")
    def _undefined(root: Any, name: str = _name) -> Any:
        fn = function(root, f"numpy.{name}")
        return lambda *args, **keywords: root.numpy.zeros_like(fn(*args, **keywords))


def creation() -> Iterator[Case]:
    for name in ("zeros", "ones", "empty[zeros_like]"):
        for shape in [(), (0,), (2, 3), 3]:
            yield Case(f"numpy.{name}", (Static(shape),))
        for dtype in TARGETS:
            yield Case(f"numpy.{name}", (Static((2, 1)),), {"dtype": dtype})
        yield Case(f"numpy.{name}", (Static((2, -1)),))  # a negative dimension
    for fill in [*SCALARS, np.array(1.5, np.float32), np.array([1, 2, 3], np.int32)]:
        yield Case("numpy.full", (Static((2, 3)), fill))
    yield Case("numpy.full", (Static(()), np.array(np.nan)))
    for dtype in ("int32", "float32", "complex64", "bool"):
        yield Case("numpy.full", (Static((2,)), 2.5), {"dtype": dtype})
    yield Case("numpy.full", (Static((2, 3)), np.array([1.0, 2.0])))  # does not broadcast
    for name in ("zeros_like", "ones_like", "empty_like[zeros_like]"):
        for dtype in ARRAY_DTYPES:
            yield Case(f"numpy.{name}", (ramp((2, 3), dtype),))
        yield Case(f"numpy.{name}", (ramp((2, 3)),), {"dtype": "int32"})
        yield Case(f"numpy.{name}", (ramp((2, 3)),), {"shape": (4,)})
        yield Case(f"numpy.{name}", (np.array(1.5, np.float32),))
        for scalar in SCALARS:
            yield Case(f"numpy.{name}", (scalar,))
    for dtype in KINDS:
        yield Case("numpy.full_like", (ramp((2, 3), dtype), 2.5))
        yield Case("numpy.full_like", (ramp((2, 3), dtype), np.array([1.0, 2.0, 3.0])))
    yield Case("numpy.full_like", (ramp((2,), np.float32), 7), {"dtype": "int32"})
    yield Case("numpy.full_like", (1.5, 2))
    for args, keywords in [
        ((3,), {}), ((2, 4), {}), ((4, 2, 1), {}), ((3, 3, -1), {}), ((3,), {"dtype": "int32"}),
        ((0,), {}), ((2,), {"dtype": "bool"}), ((3, None, 2), {}),
    ]:  # fmt: skip
        yield Case("numpy.eye", tuple(Static(a) for a in args), keywords)
        yield Case("numpy.tri", tuple(Static(a) for a in args), keywords)
    for n, keywords in [(3, {}), (0, {}), (2, {"dtype": "complex64"}), (2, {"dtype": "uint8"})]:
        yield Case("numpy.identity", (Static(n),), keywords)
    for args, keywords in [
        ((5,), {}), ((0,), {}), ((2.5,), {}), ((1, 7, 2), {}), ((10, 0, -3), {}),
        ((0.0, 1.0, 0.25), {}), ((5,), {"dtype": "float32"}), ((1, 4), {"dtype": "uint8"}),
        ((0, 1, 0.1), {}), ((-2, 2), {}), ((3, 1), {}),
    ]:  # fmt: skip
        yield Case("numpy.arange", tuple(Static(a) for a in args), keywords)
    yield Case("numpy.arange", (Static(1), Static(5), Static(0)))  # step zero
    for name in ("linspace", "logspace"):
        for keywords in [{}, {"endpoint": False}, {"dtype": "float32"}, {"dtype": "int32"}]:
            yield Case(f"numpy.{name}", (0.0, 2.0, Static(5)), keywords)
        for num in (0, 1):
            yield Case(f"numpy.{name}", (0.0, 2.0), {"num": num})
        yield Case(f"numpy.{name}", (np.array([0.0, 1.0]), np.array(3.0), Static(4)))
        yield Case(
            f"numpy.{name}", (np.array([0.0, 1.0]), np.array([2.0, -1.0]), Static(3)), {"axis": 1}
        )
        yield Case(f"numpy.{name}", (np.array(1.0, np.float32), 2, Static(3)))
        yield Case(f"numpy.{name}", (1, 3, Static(3)))
        yield Case(f"numpy.{name}", (0.0, 1.0 + 1.0j, Static(3)))
        yield Case(f"numpy.{name}", (0.0, 1.0, Static(-1)))  # a negative count
    yield Case("numpy.linspace", (0.0, 1.0, Static(5)), {"retstep": True})
    yield Case("numpy.linspace", (0.0, 1.0, Static(1)), {"retstep": True, "endpoint": False})
    yield Case("numpy.logspace", (0.0, 3.0, Static(4)), {"base": 2.0})
    for name in ("array", "asarray"):
        for dtype in ARRAY_DTYPES:
            yield Case(f"numpy.{name}", (ramp((2, 3), dtype),))
        for scalar in SCALARS:
            yield Case(f"numpy.{name}", (scalar,))
        for value in [(1, 2.5), ((1, 2), (3, 4)), (True, 2), (), 3]:
            yield Case(f"numpy.{name}", (Static(value),))
        for dtype in ("float32", "int32", "bool", "complex128"):
            yield Case(f"numpy.{name}", (np.array([0.0, 1.5, 2.75]),), {"dtype": dtype})
        yield Case(f"numpy.{name}", (2.5,), {"dtype": "float32"})
        yield Case(f"numpy.{name}", (Static(((1, 2), (3,))),))  # ragged
    yield Case("numpy.array", (ramp((2,)),), {"ndmin": 3})
    yield Case("numpy.array", (1.5,), {"ndmin": 2})
    for source in ARRAY_DTYPES:  # each cast, on values every type holds
        x = np.array([0, 1, 2.75, 3.25, 100]).astype(source)
        for target in TARGETS:
            yield Case("numpy.astype", (x, Static(target)))
    yield Case("numpy.astype", (np.array([-1.5, 0.5, 2.5]), Static("int32")))
    yield Case("numpy.astype", (np.array([np.inf, -0.0]), Static("float16")))
    yield Case("numpy.astype", (1.5, Static("int32")))
    for x in [ramp((2, 3)), ramp((3,), np.int32), ramp((2,), np.complex64), np.array(2.0), 1.5]:
        yield Case("numpy.copy", (x,))


def shapes() -> Iterator[Case]:
    x = ramp((2, 3, 4))
    for dtype in ARRAY_DTYPES:
        yield Case("numpy.reshape", (ramp((2, 3), dtype), Static((3, 2))))
        yield Case("numpy.transpose", (ramp((2, 3), dtype),))
        yield Case("numpy.ravel", (ramp((2, 3), dtype),))
        yield Case("numpy.broadcast_to", (ramp((3,), dtype), Static((2, 3))))
        yield Case("numpy.tile", (ramp((2,), dtype), Static((2, 2))))
    for shape, keywords in [
        ((4, 6), {}), ((-1,), {}), ((2, -1, 3), {}), ((24,), {"order": "F"}),
        ((6, 4), {"order": "F"}), ((5, 5), {}), ((-1, -1), {}),
    ]:  # fmt: skip
        yield Case("numpy.reshape", (x, Static(shape)), keywords)
    yield Case("numpy.reshape", (np.array(1.5), Static((1, 1))))
    yield Case("numpy.reshape", (np.zeros((0, 3)), Static((3, 0))))
    yield Case("numpy.reshape", (2.5, Static((1,))))
    yield Case("numpy.ravel", (x,), {"order": "F"})
    yield Case("numpy.ravel", (np.array(1.5),))
    for axes in [None, (2, 0, 1), (0, 1, 2), (-1, 0, 1), (0, 0, 1), (0, 1)]:
        yield Case("numpy.transpose", (x, Static(axes)))
    yield Case("numpy.transpose", (np.array(1.5),))
    for source, dest in [(0, 2), (-1, 0), ((0, 1), (2, 0)), (3, 0)]:
        yield Case("numpy.moveaxis", (x, Static(source), Static(dest)))
    for a, b in [(0, 2), (-1, 1), (1, 1), (0, 5)]:
        yield Case("numpy.swapaxes", (x, Static(a), Static(b)))
    for args in [(2,), (2, 1), (0, 3), (-1,), (1, 0), (4,)]:
        yield Case("numpy.rollaxis", (x, *map(Static, args)))
    for shape in [(2, 2, 3, 4), (3, 4), (1, 2, 1), (2, 1)]:
        yield Case(
            "numpy.broadcast_to", (ramp((2, 1, 4)) if len(shape) > 3 else ramp((1,)), Static(shape))
        )
    yield Case("numpy.broadcast_to", (ramp((3,)), Static((4,))))  # incompatible
    yield Case("numpy.broadcast_to", (2.5, Static((2, 2))))
    yield Case("numpy.broadcast_arrays", (ramp((2, 1)), ramp((3,), np.float32), 1.5))
    yield Case("numpy.broadcast_arrays", (ramp((2, 1), np.int32), ramp((1, 0))))
    yield Case("numpy.broadcast_arrays", (ramp((2,)), ramp((3,))))
    yield Case("numpy.broadcast_arrays", (np.array(1.5),))
    for axis in [0, -1, (0, 2), (1, 0), 4]:
        yield Case("numpy.expand_dims", (ramp((2, 3)), Static(axis)))
    yield Case("numpy.expand_dims", (1.5, Static(0)))
    y = ramp((1, 3, 1))
    for axis in [None, 0, (0, 2), -1, 1]:
        yield Case("numpy.squeeze", (y,), {} if axis is None else {"axis": axis})
    yield Case("numpy.squeeze", (np.array(2.0),))
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        for arg in [np.array(1.5), ramp((3,)), ramp((2, 3), np.int32), ramp((1, 2, 3, 1)), 2.5]:
            yield Case(f"numpy.{name}", (arg,))
        yield Case(f"numpy.{name}", (ramp((2,)), np.array(1.0, np.float32)))
    for axis in [None, 0, -1, (0, 2)]:
        yield Case("numpy.flip", (x,), {} if axis is None else {"axis": axis})
    yield Case("numpy.flip", (np.array(1.5),))
    for name in ("fliplr", "flipud"):
        yield Case(f"numpy.{name}", (x,))
        yield Case(f"numpy.{name}", (ramp((2, 3), np.int32),))
    yield Case("numpy.fliplr", (ramp((3,)),))  # needs two dimensions
    for k, axes in [(1, (0, 1)), (2, (0, 1)), (3, (1, 2)), (-1, (0, 1)), (5, (2, 0)), (1, (0, 0))]:
        yield Case("numpy.rot90", (x,), {"k": k, "axes": axes})
    for shift, axis in [
        (1, None),
        (-2, None),
        (1, 0),
        (5, -1),
        ((1, 2), (0, 1)),
        (0, 1),
        (7, None),
    ]:
        keywords = {} if axis is None else {"axis": axis}
        yield Case("numpy.roll", (x, Static(shift)), keywords)
    yield Case("numpy.roll", (ramp((4,), np.int32), np.array(1)))  # a traced shift
    yield Case("numpy.roll", (np.zeros((0,)), Static(1)))
    for reps in [2, (2, 1), (1, 2, 2), (0,), (3, 1, 1, 1)]:
        yield Case("numpy.tile", (ramp((2, 3)), Static(reps)))
    yield Case("numpy.tile", (1.5, Static(3)))
    for repeats, axis in [(2, None), (2, 0), (0, None)]:
        keywords = {} if axis is None else {"axis": axis}
        yield Case("numpy.repeat", (ramp((2, 3)), Static(repeats)), keywords)
    repeats = np.array([1, 0, 2])  # traced: the length is data dependent unless given
    yield Case("numpy.repeat", (ramp((2, 3)), repeats), {"axis": 1})
    yield Case("numpy.repeat", (ramp((2, 3)), repeats), {"axis": 1, "total_repeat_length": 3})
    yield Case("numpy.repeat", (ramp((2, 3)), np.array([1, 2])), {"axis": 1})  # wrong length
    yield Case("numpy.repeat", (ramp((3,), np.int32), Static(3)))
    yield Case("numpy.repeat", (2.5, Static(2)))
    for width, keywords in [
        (1, {}), ((1, 2), {}), (((1, 0), (0, 2)), {}), (1, {"constant_values": 2.5}),
        (((1, 1), (2, 0)), {"constant_values": ((1, 2), (3, 4))}), (2, {"mode": "edge"}),
        (2, {"mode": "reflect"}), (2, {"mode": "symmetric"}), (3, {"mode": "wrap"}),
        (2, {"mode": "linear_ramp", "end_values": 1.0}), (1, {"mode": "maximum"}),
        (1, {"mode": "minimum"}), (1, {"mode": "mean"}), (2, {"mode": "median"}),
        (((0, 0), (1, 0)), {"mode": "reflect", "reflect_type": "odd"}), (0, {}),
        (-1, {}), (1, {"mode": "bogus"}),
    ]:  # fmt: skip
        yield Case("numpy.pad", (ramp((2, 3)), Static(width)), keywords)
    for dtype in (np.int32, np.bool_, np.complex64, np.float32):
        yield Case("numpy.pad", (ramp((3,), dtype), Static(1)))
    yield Case("numpy.pad", (ramp((2, 3)), Static(1)), {"mode": "reflect", "reflect_type": "odd"})
    for values, axis in [(ramp((2,)), None), (ramp((1, 3)), 0), (ramp((2, 2)), 1), (2.5, None)]:
        yield Case("numpy.append", (ramp((2, 3)), values), {} if axis is None else {"axis": axis})
    yield Case("numpy.append", (ramp((2, 3), np.int32), ramp((2,), np.float32)))
    yield Case("numpy.append", (ramp((2, 3)), ramp((2,))), {"axis": 0})  # mismatched shapes


def joining() -> Iterator[Case]:
    for dtype in ARRAY_DTYPES:  # with a float64 partner: the promotion
        a, b = ramp((2, 3), dtype), ramp((2, 3))
        yield Case("numpy.concatenate[seq]", (a, b))
        yield Case("numpy.stack[seq]", (b, a))
    a, b, c = ramp((2, 3)), ramp((2, 3), np.float32), ramp((1, 3))
    for name in ("concatenate", "stack"):
        for keywords in [{}, {"axis": 1}, {"axis": -1}, {"dtype": "float32"}, {"axis": 3}]:
            yield Case(f"numpy.{name}[seq]", (a, b), keywords)
        yield Case(f"numpy.{name}[seq]", (a, c))
        yield Case(f"numpy.{name}[seq]", (a,))
        yield Case(f"numpy.{name}[seq]", (ramp((0, 3)), a))
        yield Case(f"numpy.{name}[seq]", (np.array(1.0), np.array(2.0)))
        yield Case(f"numpy.{name}[seq]", (a, 1.5))
    yield Case("numpy.concatenate[seq]", (a, c), {"axis": None})
    yield Case("numpy.concatenate[seq]", ())  # nothing to join
    yield Case("numpy.stack[seq]", (np.array(1.0), 2, np.array(3, np.int32)))
    for name in ("hstack", "vstack", "dstack", "column_stack"):
        for args in [
            (ramp((3,)), ramp((3,), np.float32)), (ramp((2, 3)), ramp((2, 3), np.int32)),
            (np.array(1.0), np.array(2.0)), (ramp((2, 1, 2)), ramp((2, 1, 2))), (1.5, 2),
            (ramp((2, 3)), ramp((3, 2))), (ramp((2,), np.bool_), ramp((2,), np.complex64)),
        ]:  # fmt: skip
            yield Case(f"numpy.{name}[seq]", args)
        if name != "column_stack":
            yield Case(f"numpy.{name}[seq]", (ramp((2,)), ramp((2,))), {"dtype": "float32"})
    x = ramp((6, 4, 2))
    for name, axis in [("split", 0), ("array_split", 0), ("split", 1), ("array_split", -1)]:
        for sections in [2, (1, 3), (), (2, 2)]:
            yield Case(f"numpy.{name}", (x, Static(sections)), {"axis": axis})
    yield Case("numpy.split", (x, Static((0, 10))))  # JAX refuses an index past the end
    yield Case("numpy.split", (x, Static(4)))  # does not divide
    yield Case("numpy.array_split", (x, Static(4)))
    yield Case("numpy.array_split", (x, Static(8)))
    yield Case("numpy.array_split", (ramp((5,), np.int32), Static(3)))
    for name in ("hsplit", "vsplit", "dsplit"):
        for sections in [2, (1,)]:
            yield Case(f"numpy.{name}", (x, Static(sections)))
    yield Case("numpy.hsplit", (ramp((4,)), Static(2)))
    yield Case("numpy.vsplit", (ramp((4,)), Static(2)))  # JAX splits 1-d too
    yield Case("numpy.dsplit", (ramp((4, 2)), Static(2)))  # needs three dimensions


def cases() -> Iterator[Case]:
    yield from creation()
    yield from shapes()
    yield from joining()
