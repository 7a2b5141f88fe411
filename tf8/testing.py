"""`check_grads`: JAX's gradient checker (tf8.ad vs central differences and the adjoint identity).

fwd: jvp along a random tangent matches the central difference (f(x+εt) − f(x−εt)) / 2ε.
rev: ⟨t, vjp(ct)⟩ = ⟨(f(x+εt) − f(x−εt)) / 2ε, ct⟩ for a random cotangent ct, as JAX's
reverse check; when fwd is checked too (so jvp is known to match the differences), jvp(t)
stands in for the difference: ⟨t, vjp(ct)⟩ = ⟨jvp(t), ct⟩, the exact adjoint identity.
Both recurse to `order` by checking the derivative functions themselves (with fixed random
directions), for real and complex inputs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8 import tree
from tf8.ad import jvp, vjp
from tf8.errors import DifferentiationError

_DEFAULT_TOL = {
    np.dtype(np.float16): 1e-1,
    np.dtype(np.float32): 2e-2,
    np.dtype(np.complex64): 2e-2,
}
_DEFAULT_EPS = {
    np.dtype(np.float16): 1e-1,
    np.dtype(np.float32): 1e-2,
    np.dtype(np.complex64): 1e-2,
}


def _leaves(x: Any) -> list[np.ndarray]:
    return [np.asarray(v) for v in tree.tree_leaves(x)]


def _random_like(rng: np.random.Generator, x: Any) -> Any:
    """A standard normal sample shaped as `x`, a pytree of arrays (complex where x is)."""
    return tree.tree_map(lambda leaf: _random_leaf(rng, np.asarray(leaf)), x)


def _random_leaf(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    sample = rng.standard_normal(x.shape)
    if np.iscomplexobj(x):
        sample = sample + 1j * rng.standard_normal(x.shape)
    return np.asarray(sample, dtype=x.dtype)


def _as_arrays(args: Sequence[Any]) -> list[Any]:
    """Each argument, a pytree, with numpy arrays at its leaves."""
    return [tree.tree_map(np.asarray, a) for a in args]


def _step(a: Any, t: Any, eps: float) -> Any:
    """a + eps·t, leaf by leaf."""
    return tree.tree_map(lambda x, y: x + eps * y, a, t)


def _inner(xs: Sequence[np.ndarray], ys: Sequence[np.ndarray]) -> float:
    return float(
        sum(np.real(np.vdot(np.asarray(x).ravel(), np.asarray(y).ravel())) for x, y in zip(xs, ys))
    )


def _tolerance(
    args: Sequence[np.ndarray], given: float | None, table: dict, default: float
) -> float:
    if given is not None:
        return given
    dtypes = [np.asarray(leaf).dtype for leaf in tree.tree_leaves(list(args))]
    return max([table.get(d, default) for d in dtypes] or [default])


def _assert_close(
    actual: Sequence[np.ndarray],
    expected: Sequence[np.ndarray],
    atol: float,
    rtol: float,
    what: str,
) -> None:
    for i, (a, e) in enumerate(zip(actual, expected)):
        a, e = np.asarray(a), np.asarray(e)
        if a.shape != e.shape:
            raise AssertionError(f"{what}: output {i} has shape {a.shape}, expected {e.shape}")
        if not np.allclose(a, e, atol=atol, rtol=rtol, equal_nan=True):
            err = np.max(np.abs(a - e)) if a.size else 0.0
            raise AssertionError(
                f"{what}: output {i} differs (max abs error {err:.3g}, atol={atol}, rtol={rtol})\n"
                f"  got      {a!r}\n  expected {e!r}"
            )


def _central_difference(
    f: Callable, args: Sequence[np.ndarray], tangents: Sequence[np.ndarray], eps: float
) -> list[np.ndarray]:
    """(f(x + εt) − f(x − εt)) / 2ε, one array per output leaf."""
    plus = f(*[_step(a, t, eps) for a, t in zip(args, tangents)])
    minus = f(*[_step(a, t, -eps) for a, t in zip(args, tangents)])
    return [(p - m) / (2 * eps) for p, m in zip(_leaves(plus), _leaves(minus))]


def check_jvp(
    f: Callable, args: Sequence[Any], atol: float, rtol: float, eps: float, rng: np.random.Generator
) -> None:
    """jvp of f along a random tangent vs a central difference."""
    args = _as_arrays(args)
    tangents = [_random_like(rng, a) for a in args]
    _, t_out = jvp(f, tuple(args), tuple(tangents))
    numeric = _central_difference(f, args, tangents, eps)
    _assert_close(_leaves(t_out), numeric, atol, rtol, "JVP vs central differences")


def check_vjp(
    f: Callable,
    args: Sequence[Any],
    atol: float,
    rtol: float,
    rng: np.random.Generator,
    eps: float = 1e-5,
    adjoint: bool = False,
) -> Any:
    """⟨t, vjp(ct)⟩ == ⟨(f(x+εt) − f(x−εt)) / 2ε, ct⟩ for a random t and cotangent ct, as JAX's
    reverse check. With `adjoint` (check_grads does it when it also checks f's jvp against
    central differences), jvp(t) stands in for the difference: the exact adjoint identity, as
    sound as the difference once the jvp itself is checked, and without its truncation error
    (the difference is still used where f has no forward mode). Returns f(*args), as vjp
    computed it."""
    args = _as_arrays(args)
    out, vjp_fun = vjp(f, *args)
    out_leaves, out_def = tree.tree_flatten(out)
    cts = [_random_like(rng, np.asarray(o)) for o in out_leaves]
    ct_in = vjp_fun(tree.tree_unflatten(out_def, [np.conj(c) for c in cts]))
    ct_in = [np.conj(c) for c in _leaves(ct_in)]
    tangents = [_random_like(rng, a) for a in args]
    reference = None
    if adjoint:
        try:
            reference, what = _leaves(jvp(f, tuple(args), tuple(tangents))[1]), "jvp(t)"
        except DifferentiationError:  # no forward mode (custom_vjp)
            pass
    if reference is None:
        reference = _central_difference(f, args, tangents, eps)
        what = "(f(x+εt) − f(x−εt)) / 2ε"
    got, expected = _inner(_leaves(tangents), ct_in), _inner(reference, cts)
    if not _isclose(got, expected, atol, rtol):
        raise AssertionError(
            f"VJP vs {'JVP (adjoint identity)' if what == 'jvp(t)' else 'central differences'}:"
            f" ⟨t, vjp(ct)⟩ = {got!r} but ⟨{what}, ct⟩ = {expected!r}"
        )
    return out


def _isclose(got: float, expected: float, atol: Any, rtol: Any) -> bool:
    """np.isclose(got, expected, atol=atol, rtol=rtol) for two Python floats: numpy's formula,
    |got − expected| ≤ atol + rtol·|expected| where expected is finite, or got == expected,
    in Python arithmetic (the same IEEE doubles, without numpy's per-call overhead)."""
    if type(atol) is float and type(rtol) is float and math.isfinite(atol + rtol):
        if abs(got - expected) <= atol + rtol * abs(expected) and math.isfinite(expected):
            return True
        return got == expected
    return bool(np.isclose(got, expected, atol=atol, rtol=rtol))


def check_grads(
    f: Callable,
    args: Sequence[Any],
    order: int,
    modes: Sequence[str] = ("fwd", "rev"),
    atol: float | None = None,
    rtol: float | None = None,
    eps: float | None = None,
    seed: int = 0,
) -> None:
    """Check f's derivatives to `order` in the given modes; raises AssertionError on mismatch.
    Each argument may be a pytree of arrays, as in JAX."""
    args = _as_arrays(args)
    atol = _tolerance(args, atol, _DEFAULT_TOL, 1e-5)
    rtol = _tolerance(args, rtol, _DEFAULT_TOL, 1e-5)
    eps = _tolerance(args, eps, _DEFAULT_EPS, 1e-5)
    rng = np.random.default_rng(seed)
    unknown = set(modes) - {"fwd", "rev"}
    if unknown:
        raise ValueError(f"unknown check_grads modes {sorted(unknown)} (use 'fwd' and/or 'rev')")

    _check(f, order, args, modes, atol, rtol, eps, rng)


def _check(
    fun: Callable,
    order: int,
    args: list[Any],
    modes: Sequence[str],
    atol: float,
    rtol: float,
    eps: float,
    rng: np.random.Generator,
) -> None:
    """check_grads' recursion: fun's derivatives in `modes`, then those of its derivative
    functions to `order` (a module function, not a closure over itself: no reference cycle
    is left for the garbage collector)."""
    if "fwd" in modes:
        check_jvp(fun, args, atol, rtol, eps, rng)
        if order > 1:
            tangents = tuple(_random_like(rng, a) for a in args)
            _check(
                lambda *xs: jvp(fun, xs, tangents)[1], order - 1, args, modes, atol, rtol, eps, rng
            )
    if "rev" in modes:
        # the adjoint identity is exact only where check_jvp has just checked fun's jvp
        out = check_vjp(fun, args, atol, rtol, rng, eps, adjoint="fwd" in modes)
        if order > 1:
            out_leaves, out_def = tree.tree_flatten(out)
            cts = tree.tree_unflatten(
                out_def, [_random_like(rng, np.asarray(o)) for o in out_leaves]
            )
            _check(lambda *xs: vjp(fun, *xs)[1](cts), order - 1, args, modes, atol, rtol, eps, rng)
