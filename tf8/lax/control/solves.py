"""`custom_linear_solve` and `custom_root` with JAX's signatures: solvers whose derivatives come
from implicit differentiation at the solution, never from differentiating the solver.

Every callback is traced into a closed program here, as a loop body is, with closure conversion:
matvec, the solvers, f. The functions JAX derives by AD for the callbacks — `vecmat` for
`transpose_solve`, `g` (f linearised) for `tangent_solve` — are stand-in ops
(tf8.ops.extension.solves) that tf8.ad replaces by the derived maps; the rules are in
tf8.ad.control.solves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8 import tree
from tf8.errors import ControlFlowTypeError, DTypeError, ShapeError, TreeStructureError
from tf8.lax.builders import full
from tf8.lax.core import apply
from tf8.ops.extension.control import ClosedProgram
from tf8.ops.extension.solves import LinearizedMap, LinearSolve, RootSolve, TransposedMap
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

from .checks import check_callable, flatten
from .closure import Closure

__all__ = ["custom_linear_solve", "custom_root"]


class _Traced:
    """One callback traced into a closed program on fresh leaves of `avals`: `fun(leaves)`
    returns the output pytree; `check(out)` validates it and returns its flat leaves."""

    def __init__(
        self,
        fun: Callable[[list[TracedTensor]], Any],
        avals: Sequence[Aval],
        weak: Sequence[bool],
        check: _Check,
    ) -> None:
        self.closure = closure = Closure()
        args = closure.arguments(avals, weak)
        outs = closure.trace(lambda: closure.close(args, check(fun(args))))
        self.program: ClosedProgram = closure.program(args, outs)
        self.consts: list[TracedTensor] = list(closure.outer)
        self.weak = [t._weak for t in outs]
        self.aux_tree = check.aux_tree


class _Check:
    """JAX's checks of a callback's output: a (result, aux) pair where `has_aux`, the result
    of `expected`'s structure and of `avals`' shapes. Calling it returns the result's leaves,
    then aux's (whose structure it keeps, `aux_tree`)."""

    def __init__(
        self,
        what: str,
        expected_name: str,
        expected: tree.PyTreeDef,
        avals: Sequence[Aval],
        has_aux: bool = False,
    ) -> None:
        self.what, self.expected_name, self.expected = what, expected_name, expected
        self.avals, self.has_aux = avals, has_aux
        self.aux_tree: tree.PyTreeDef | None = None

    def __call__(self, out: Any) -> list[TracedTensor]:
        what, expected = self.what, self.expected
        aux: list[TracedTensor] = []
        if self.has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TreeStructureError(
                    f"{what}() produced a pytree with structure {tree.tree_structure(out)}, but "
                    "a pytree tuple with auxiliary output was expected because has_aux was "
                    "set to True"
                )
            out, aux_value = out
            aux, self.aux_tree = flatten(aux_value)
        leaves, found = flatten(out)
        if found != expected:
            raise ControlFlowTypeError(
                f"{what}() output pytree structure must match {self.expected_name}, got "
                f"{found} and {expected}"
            )
        shapes = [t.shape for t in leaves]
        if shapes != [a.shape for a in self.avals]:
            raise ShapeError(
                f"{what}() output shapes must match {self.expected_name}, got {shapes} and "
                f"{[a.shape for a in self.avals]}"
            )
        return [*leaves, *aux]


def _as_leaves(
    what: str, value: Any, expected: tree.PyTreeDef, avals: Sequence[Aval]
) -> list[TracedTensor]:
    """The argument of a derived map (vecmat, g) as leaves, checked to have `avals`' structure,
    shapes and dtypes."""
    leaves, found = flatten(value)
    if found != expected:
        raise ControlFlowTypeError(
            f"{what}: the argument has structure {found}, expected {expected}"
        )
    for i, (t, a) in enumerate(zip(leaves, avals)):
        if t.shape != a.shape:
            raise ShapeError(f"{what}: argument leaf {i} has shape {t.shape}, expected {a.shape}")
        if t.dtype != a.dtype:  # as JAX, which refuses g(1.0) at a float32 point
            raise DTypeError(
                f"{what}: argument leaf {i} has dtype {t.dtype}, expected {a.dtype} (the "
                "dtype of the value it is linear in)"
            )
    return leaves


def custom_linear_solve(
    matvec: Callable[[Any], Any],
    b: Any,
    solve: Callable[[Callable, Any], Any],
    transpose_solve: Callable[[Callable, Any], Any] | None = None,
    symmetric: bool = False,
    has_aux: bool = False,
) -> Any:
    """`solve(matvec, b)`, differentiated implicitly: as the solution x of `matvec(x) == b`.

    Parameters: `matvec`, a linear function of a pytree like `b`; `b`, a pytree of arrays;
    `solve(matvec, b)` returning x (and aux, with `has_aux`); `transpose_solve(vecmat, b)`,
    the same for the transposed map `vecmat`, needed for reverse mode (grad, vjp) unless
    `symmetric=True`, where `solve` serves. The solvers are never differentiated: a
    `lax.while_loop` solver works under grad. The JVP solves again for `b' - matvec'(x)`;
    the transpose solves the transposed system.

    >>> import numpy as np, tf8
    >>> A = np.array([[3.0, 1.0], [1.0, 2.0]])
    >>> dense = lambda mv, b: tf8.numpy.linalg.solve(A, b)
    >>> x = tf8.lax.custom_linear_solve(lambda x: A @ x, np.array([1.0, 2.0]), dense,
    ...                                 symmetric=True)
    >>> np.allclose(A @ np.asarray(x), [1.0, 2.0])
    True

    Differs from JAX: `vecmat` (JAX's `linear_transpose` of matvec) is a stand-in that
    reverse mode replaces by the transpose, usable only inside `transpose_solve`. Under
    vmap every output is batched (JAX leaves unbatched what can be; the values agree).
    Derivatives skip integer aux (JAX's JVP refuses them).
    """
    solvers = [("matvec", matvec), ("solve", solve)]
    if transpose_solve is not None:
        solvers.append(("transpose_solve", transpose_solve))
    check_callable("custom_linear_solve", *solvers)
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_leaves, b_tree = flatten(b)
    avals = [t.aval for t in b_leaves]
    weak = [t._weak for t in b_leaves]

    def as_tree(leaves: Sequence[TracedTensor]) -> Any:
        return tree.tree_unflatten(b_tree, list(leaves))

    mv = _Traced(
        lambda args: matvec(as_tree(args)), avals, weak, _Check("matvec", "b", b_tree, avals)
    )
    sv = _Traced(
        lambda args: solve(matvec, as_tree(args)),
        avals,
        weak,
        _Check("solve", "b", b_tree, avals, has_aux),
    )
    vm = ts = None
    if transpose_solve is not None:
        vm, ts = _transposed(matvec, mv, transpose_solve, symmetric, has_aux, b_tree, avals, weak)
    traced = [mv, vm, sv, ts]
    op = LinearSolve(
        *[None if t is None else t.program for t in traced],  # type: ignore[arg-type]
        *[0 if t is None else len(t.consts) for t in traced],
    )
    operands = [c for t in traced if t is not None for c in t.consts]
    results = _apply(op, [*operands, *b_leaves], [t for t in traced if t is not None], sv)
    for result, w in zip(results, sv.weak):  # JAX's: the solve's outputs' weak types
        result._weak = w
    x = as_tree(results[: len(b_leaves)])
    if not has_aux:
        return x
    return x, tree.tree_unflatten(sv.aux_tree, results[len(b_leaves) :])


def _transposed(
    matvec: Callable,
    mv: _Traced,
    transpose_solve: Callable,
    symmetric: bool,
    has_aux: bool,
    b_tree: tree.PyTreeDef,
    avals: list[Aval],
    weak: list[bool],
) -> tuple[_Traced, _Traced]:
    """vecmat's and transpose_solve's programs. vecmat is matvec where symmetric, else the
    stand-in for matvec transposed, anchored on the body it is called in (see
    TransposedMap)."""

    def as_tree(leaves: Sequence[TracedTensor]) -> Any:
        return tree.tree_unflatten(b_tree, list(leaves))

    anchor: list[TracedTensor] | None = None
    if symmetric:
        vm, vecmat = mv, matvec
    else:
        stand_in = TransposedMap(mv.program, len(mv.consts))
        anchor = []

        def vecmat(y: Any) -> Any:
            ys = _as_leaves("vecmat", y, b_tree, mv.program.out_avals)
            return as_tree(apply(stand_in, [*mv.consts, *ys, anchor[-1]]))  # type: ignore[index]

        check = _Check("vecmat", "b", b_tree, avals)
        vm = _Traced(_anchored(anchor, lambda args: vecmat(as_tree(args))), avals, weak, check)
    check = _Check("transpose_solve", "b", b_tree, avals, has_aux)
    fun = _anchored(anchor, lambda args: transpose_solve(vecmat, as_tree(args)))
    return vm, _Traced(fun, avals, weak, check)


def _anchored(anchor: list[TracedTensor] | None, fun: Callable) -> Callable:
    """`fun(args)` noting its first argument as the anchor of the vecmat calls it makes."""
    if anchor is None:
        return fun

    def run(args: list[TracedTensor]) -> Any:
        anchor.append(args[0] if args else full(Aval((), np.dtype(bool)), False))
        return fun(args)

    return run


def _apply(
    op: Any, operands: list[TracedTensor], traced: Sequence[_Traced], main: _Traced
) -> list[TracedTensor]:
    """Apply the op, as an effect where any callback traced effects (tf8.lax.effects)."""
    for t in traced:
        if t is not main:
            main.closure.scopes += t.closure.scopes
    return main.closure.apply(op, operands)


def custom_root(
    f: Callable[[Any], Any],
    initial_guess: Any,
    solve: Callable[[Callable, Any], Any],
    tangent_solve: Callable[[Callable, Any], Any],
    has_aux: bool = False,
) -> Any:
    """`solve(f, initial_guess)`, a root of `f`, differentiated implicitly (implicit function
    theorem) with respect to the values `f` closes over; the solver is never differentiated.

    Parameters: `f`, a function from a pytree like `initial_guess` to one like it;
    `solve(f, x0)` returning the root (and aux, with `has_aux`); `tangent_solve(g, y)`
    solving the linear map `g` (f linearised at the root) for y: `lambda g, y: y / g(1.0)` for
    a scalar, a dense or `custom_linear_solve` for vectors.

    >>> import tf8
    >>> def newton(f, x):
    ...     step = lambda i, x: x - f(x) / tf8.grad(f)(x)
    ...     return tf8.lax.fori_loop(0, 20, step, x)
    >>> def sqrt(a):
    ...     return tf8.lax.custom_root(lambda x: x**2 - a, 1.0, newton,
    ...                                lambda g, y: y / g(1.0))
    >>> round(float(sqrt(2.0)), 6), round(float(tf8.grad(sqrt)(2.0)), 6)
    (1.414214, 0.353553)

    Differs from JAX: `g` (JAX's `linearize` of f) is a stand-in that differentiation
    replaces by the linearisation, usable only inside `tangent_solve`. Derivatives skip
    integer aux (JAX's JVP refuses them).
    """
    check_callable("custom_root", ("f", f), ("solve", solve), ("tangent_solve", tangent_solve))
    x_leaves, x_tree = flatten(initial_guess)
    avals = [t.aval for t in x_leaves]
    weak = [t._weak for t in x_leaves]

    def as_tree(leaves: Sequence[TracedTensor]) -> Any:
        return tree.tree_unflatten(x_tree, list(leaves))

    ft = _Traced(
        lambda args: f(as_tree(args)), avals, weak, _Check("f", "initial_guess", x_tree, avals)
    )
    sv = _Traced(
        lambda args: solve(f, as_tree(args)),
        avals,
        weak,
        _Check("solve", "initial_guess", x_tree, avals, has_aux),
    )
    stand_in = LinearizedMap(ft.program, len(ft.consts))
    n = len(x_leaves)

    def linearize_and_solve(args: list[TracedTensor]) -> Any:
        x = args[:n]

        def g(v: Any) -> Any:
            vs = _as_leaves("custom_root tangent_solve's g", v, x_tree, avals)
            return as_tree(apply(stand_in, [*ft.consts, *x, *vs]))

        return tangent_solve(g, as_tree(args[n:]))

    tg = _Traced(
        linearize_and_solve, avals * 2, weak * 2, _Check("tangent_solve", "x", x_tree, avals)
    )
    op = RootSolve(
        ft.program, sv.program, tg.program, len(ft.consts), len(sv.consts), len(tg.consts)
    )
    results = _apply(op, [*ft.consts, *sv.consts, *tg.consts, *x_leaves], [ft, sv, tg], sv)
    for result, w in zip(results, sv.weak):
        result._weak = w
    root = as_tree(results[:n])
    if not has_aux:
        return root
    return root, tree.tree_unflatten(sv.aux_tree, results[n:])
