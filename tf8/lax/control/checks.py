"""Operands and error messages of the control-flow builders (JAX's rules, tf8.errors)."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from tf8 import tree
from tf8.errors import ControlFlowTypeError, TreeStructureError
from tf8.lax.builders import convert
from tf8.lax.core import concrete
from tf8.ops import dtypes as dt
from tf8.ops.leaves import concrete_array
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

_SCALARS = (bool, int, float, complex)


def as_operand(value: Any) -> TracedTensor:
    """A leaf of an operand pytree as a TracedTensor (Python scalars weakly typed, as JAX)."""
    if isinstance(value, TracedTensor):
        return value
    array = concrete_array(value)
    if array.flags.writeable:
        array = array.copy()
        array.flags.writeable = False
    t = concrete(array, Aval(array.shape, array.dtype))
    t._weak = type(value) in _SCALARS
    return t


def flatten(value: Any) -> tuple[list[TracedTensor], tree.PyTreeDef]:
    leaves, treedef = tree.tree_flatten(value)
    return [as_operand(leaf) for leaf in leaves], treedef


def leaf_paths(treedef: tree.PyTreeDef) -> list[str]:
    """A readable path per leaf of `treedef` (`[0]['w']`, `.mu`: `keystr` of its key path),
    for messages. The paths are those of a tree of this structure rebuilt from markers;
    where a node's unflatten cannot take markers, indices into `children()` stand in."""
    n = treedef.num_leaves
    try:
        pairs = tree.leaves_with_path(treedef.unflatten([_Path(i) for i in range(n)]))
        paths = [""] * n
        for path, leaf in pairs:
            paths[leaf.index] = "".join(map(str, path))  # tree_util.keystr(path)
        if sorted(leaf.index for _, leaf in pairs) != list(range(n)):
            raise TypeError("the rebuilt tree does not hold each marker once")
    except Exception:  # a custom unflatten that inspects its children; any failure will do
        paths = []

        def walk(td: tree.PyTreeDef, prefix: str) -> None:
            children = td.children()
            if not children and td.num_leaves == 1:
                paths.append(prefix)
            for i, child in enumerate(children):
                walk(child, f"{prefix}[{i}]")

        walk(treedef, "")
    return [p or "(the value itself)" for p in paths]


class _Path:
    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


def check_callable(what: str, *funs: tuple[str, Any]) -> None:
    """Raise ControlFlowTypeError naming the argument of `what` that is not callable (as
    JAX's TypeError does, before anything is traced)."""
    for name, fun in funs:
        if not callable(fun):
            raise ControlFlowTypeError(
                f"{what}: {name} must be callable, got {type(fun).__name__} ({fun!r:.60})"
            )


def defined_at(fun: Any) -> str:
    """` at file:line` where `fun` (unwrapped) is defined, or "" (a builtin, a partial)."""
    code = getattr(inspect.unwrap(fun), "__code__", None)
    return f" at {code.co_filename}:{code.co_firstlineno}" if code is not None else ""


def describe(fun: Any, role: str) -> str:
    """`role is name at file:line` (JAX's words for a function in a message)."""
    name = getattr(fun, "__qualname__", None) or getattr(fun, "__name__", None) or repr(fun)
    return f"{role} is {name.rsplit('.', 1)[-1]}{defined_at(fun)}"


def check_same_types(
    expected_def: tree.PyTreeDef,
    expected: Sequence[Aval],
    got_def: tree.PyTreeDef,
    got: Sequence[Aval],
    header: str,
    first: str,
    second: str,
) -> None:
    """Raise when two pytrees of avals differ in structure, shape or dtype, in JAX's words:
    `header` (what must match, and the functions), then "`first`<path> has type A but
    `second`<path> has type B, so the shapes (dtypes) do not match"."""
    if expected_def != got_def:
        raise TreeStructureError(
            f"{header}\n{first} has structure {expected_def} but {second} has structure {got_def}"
        )
    for path, a, b in zip(leaf_paths(expected_def), expected, got):
        if a.shape != b.shape or a.dtype != b.dtype:
            path = "" if path == "(the value itself)" else path
            what = "shapes" if a.shape != b.shape else "dtypes"
            raise ControlFlowTypeError(
                f"{header}\n{first}{path} has type {a} but {second}{path} has type {b}, so "
                f"the {what} do not match"
            )


def promote_weak(inits: list[TracedTensor], outs: Sequence[Aval]) -> bool:
    """JAX's rule for weakly typed (Python scalar) inits: one whose body output has another
    dtype is converted to the promoted dtype. Returns whether any changed (retrace then)."""
    changed = False
    for i, (init, out) in enumerate(zip(inits, outs)):
        if init._weak and init.dtype != out.dtype and init.shape == out.shape:
            dtype = dt.result_type(out.dtype, init.dtype.type(0).item())
            if dtype != init.dtype:
                inits[i] = convert(init, dtype)
                changed = True
    return changed


def scalar_index(
    value: Any, what: str, kinds: str = "iu", accepts: str = "an integer"
) -> TracedTensor:
    """A switch index (a scalar of integer dtype) or, with `kinds` "biuf", a cond predicate
    (bool or a number, nonzero true): JAX's rules."""
    t = as_operand(value)
    if t.shape != ():
        raise ControlFlowTypeError(
            f"{what} must be a scalar (shape ()), got shape {t.shape} ({t.aval})"
        )
    if t.dtype.kind not in kinds:
        raise ControlFlowTypeError(f"{what} must have {accepts} dtype, got {t.dtype} ({t.aval})")
    return t


def weak_like(results: list, traced_outputs: Sequence[Sequence[Any]]) -> list:
    """A control op's results take JAX's weak types: weak where every traced body (each
    branch of a cond, the body of a loop) returns a weakly typed value."""
    for k, result in enumerate(results):
        result._weak = all(outs[k]._weak for outs in traced_outputs)
    return results
