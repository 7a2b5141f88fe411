"""`jax.numpy`'s products: dot, matmul, einsum, inner, outer, kron, tensordot, vdot, vecdot,
trace, cross, convolve and correlate."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..grids import dtype_pairs
from ..spec import Case, Static
from .numpy_arrays import ramp


def products() -> Iterator[Case]:
    for a, b in dtype_pairs():  # the promotion lattice
        yield Case("numpy.matmul", (a, b))
        if not isinstance(a, (int, float, complex)) and not isinstance(b, (int, float, complex)):
            yield Case("numpy.dot", (a, b))  # (JAX refuses some dots with a Python int)
    rng = np.random.default_rng(7)
    m = rng.uniform(-1, 1, (2, 3))
    n = rng.uniform(-1, 1, (3, 4))
    c = (rng.uniform(-1, 1, (3, 4)) + 1j * rng.uniform(-1, 1, (3, 4))).astype(np.complex64)
    t3, t4 = rng.uniform(-1, 1, (2, 3, 4)), rng.uniform(-1, 1, (5, 4, 2))
    for a, b in [
        (m, n),
        (m, n[:, 0]),
        (m[0], n),
        (m.astype(np.float32), n.astype(np.float32)),
        (m, c),
        (t3, n.T),
        (t3, t4),
        (np.zeros((0, 3)), n),
        (m, n[:2]),
        (np.array(2.0), n),
    ]:
        yield Case("numpy.dot", (a, b))
    for a, b in [
        (m, n),
        (t3[:, None], rng.uniform(-1, 1, (5, 4, 2))),
        (m[0], n),
        (m, n[:, 0]),
        (m, c),
        (m.astype(np.float32), n.astype(np.float32)),
        (np.zeros((2, 0)), np.zeros((0, 4))),
        (m, n[:2]),
        (np.array(2.0), n),
        (t3, t4),
    ]:
        yield Case("numpy.matmul", (a, b))
    for subscripts, operands in [
        ("ij,jk->ik", (m, n)),
        ("ij,jk", (m, n.astype(np.float32))),
        ("ii->i", (n[:, :3],)),
        ("ii", (n[:, :3],)),
        ("i,i", (n[0], n[1])),
        ("ij->ji", (m,)),
        ("i,j->ij", (m[0], n[0])),
        ("...ij,...jk->...ik", (t3, rng.uniform(-1, 1, (2, 4, 2)))),
        ("ij->", (m,)),
        ("ij,ij->ij", (m, m[::-1])),
        ("bij,bjk->bik", (t3, rng.uniform(-1, 1, (2, 4, 3)))),
        ("ij,jk,kl->il", (m, n, rng.uniform(-1, 1, (4, 2)))),
        ("ij,jk", (m, c)),
        ("ij,jk", (m.astype(np.int32), n.astype(np.int32))),
        ("i,i", (m[0].astype(np.int32), n[0, :3])),
        ("ij,j", (m, 2.0)),
        ("iij->ij", (rng.uniform(-1, 1, (2, 2, 3)),)),
        ("ij,jk", (m, m)),
        ("ij,jk->q", (m, n)),
        ("ij", (m, n)),
    ]:
        yield Case("numpy.einsum", (Static(subscripts), *operands))
    for a, b in [(m, m), (m[0], n[0, :3]), (np.array(2.0), m), (m, c[:2]), (m, n)]:
        yield Case("numpy.inner", (a, b))
    for a, b in [(m[0], n[0]), (m, n[:, 0]), (m[0].astype(np.int32), c[0]), (1.5, m[0])]:
        yield Case("numpy.outer", (a, b))
    for a, b in [
        (m[:, :2], m),
        (m[0], n[0]),
        (m, n[0, :2]),
        (np.array(2.0), m),
        (ramp((2, 2), np.int32), ramp((2,), np.bool_)),
        (c[:2, :2], m),
    ]:
        yield Case("numpy.kron", (a, b))
    for axes in [2, 1, 0, ((1, 2), (1, 0)), ((2,), (0,)), ((1,), (1,))]:
        yield Case("numpy.tensordot", (t3, rng.uniform(-1, 1, (4, 3, 5))), {"axes": axes})
    yield Case("numpy.tensordot", (m, n.astype(np.float32)), {"axes": 1})
    yield Case("numpy.tensordot", (m, c), {"axes": 1})
    for a, b in [
        (c[0], c[1]),
        (m, m[::-1]),
        (m[0], c[0, :3]),
        (m[0].astype(np.int32), m[1]),
        (np.array(2.0), np.array(3.0)),
        (m, n),
    ]:
        yield Case("numpy.vdot", (a, b))
    for a, b, keywords in [
        (m, m[0], {}),
        (c, c[::-1], {}),
        (m, n[:2, :3], {"axis": 0}),
        (m.astype(np.int32), m, {}),
        (m, n, {}),
    ]:
        yield Case("numpy.vecdot", (a, b), keywords)
    for a, keywords in [
        (n[:, :3], {}),
        (t3, {"axis1": 1, "axis2": 2}),
        (n, {"offset": 1}),
        (n, {"offset": -2}),
        (t3, {"axis1": 2, "axis2": 0, "offset": 1}),
        (ramp((3, 3), np.int32), {}),
        (ramp((3, 3), np.bool_), {}),
        (c, {}),
        (n, {"dtype": "float32"}),
        (m[0], {}),
    ]:
        yield Case("numpy.trace", (a,), keywords)
    u, v = rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (3,))
    for a, b, keywords in [
        (u, v, {}),
        (u[0], v, {}),
        (u.T, u.T[::-1], {"axis": 0}),
        (u[:, :2], v, {}),
        (u[:, :2], u[::-1, :2], {}),
        (u.T, v, {"axisa": 0}),
        (u, u, {"axisc": 0}),
        (u.astype(np.int32), v.astype(np.int32), {}),
        (u.astype(np.complex64), v, {}),
        (rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 4), {}),
    ]:
        yield Case("numpy.cross", (a, b), keywords)
    a, k = rng.uniform(-1, 1, 6), np.array([1.0, -2.0, 0.5])
    for name in ("convolve", "correlate"):
        for mode in ("full", "same", "valid"):
            yield Case(f"numpy.{name}", (a, k), {"mode": mode})
            yield Case(f"numpy.{name}", (k, a), {"mode": mode})
        for x, y in [
            (a.astype(np.float32), k.astype(np.float32)),
            (a, k + 1j * k[::-1]),
            (np.array([1, 2, 3], np.int32), np.array([0, 1], np.int32)),
            (a, 2.0),
            (np.zeros((0,)), k),
            (a.reshape(2, 3), k),
            (a, k.astype(np.int32)),
        ]:
            yield Case(f"numpy.{name}", (x, y))


def cases() -> Iterator[Case]:
    yield from products()
