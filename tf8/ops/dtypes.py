"""tf8's ten dtypes and JAX's type-promotion lattice; a dtype *is* a `numpy.dtype`.

Promotion is JAX's (`jax.numpy.promote_types`, x64 on), not numpy's: Python scalars are weakly
typed (`float32 * 2.0` is float32), and mixed widths join on JAX's lattice (`int32` with
`float32` is float32 where numpy gives float64; `int64` with `float16` is float16). Functions
that need an inexact dtype take JAX's (`sin(int32)` is float32, `sin(int64)` float64).

With `jax_enable_x64` off (`set_x64(False)`, through `tf8.config.update`) tf8 follows JAX's
32-bit default: the tables below are swapped, not branched on, so that float64, int64, uint64
and complex128 canonicalize to float32, int32, uint32 and complex64 wherever a dtype enters
(numpy inputs, requested dtypes, promotion results) and Python scalars are weak 32-bit."""

from __future__ import annotations

import functools
import warnings
from typing import Any, NamedTuple

import numpy as np

from tf8.errors import DTypeError
from tf8.ops import switches

bool_ = np.dtype(np.bool_)
uint8 = np.dtype(np.uint8)
uint32 = np.dtype(np.uint32)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
complex64 = np.dtype(np.complex64)
complex128 = np.dtype(np.complex128)

DTYPES: tuple[np.dtype, ...] = (
    bool_,
    uint8,
    uint32,
    int32,
    int64,
    float16,
    float32,
    float64,
    complex64,
    complex128,
)
FLOATS = (float16, float32, float64)
COMPLEXES = (complex64, complex128)
UNSIGNED = (uint8, uint32)  # the random bits of tf8.random, and bytes
SIGNED = (int32, int64)
INTEGERS = UNSIGNED + SIGNED
NUMERIC = INTEGERS + FLOATS + COMPLEXES
INEXACT = FLOATS + COMPLEXES

# dtypes numpy may hand us that tf8 widens to one of its own (as JAX canonicalises); uint16 and
# uint64 become int64, as before tf8 had unsigned dtypes.
_WIDEN = {"b": int64, "i": int64, "u": int64, "f": float32}


# The switch tables (`set_x64` rewrites them in place; every reader holds these objects):
# each tf8 dtype's canonical dtype, the dtypes that are their own, and what a lone Python
# scalar becomes.
_CANON: dict[np.dtype, np.dtype] = {d: d for d in DTYPES}
NATIVE: set[np.dtype] = set(DTYPES)
NATIVE_INEXACT: set[np.dtype] = set(FLOATS + COMPLEXES)  # eager's fast paths' dtypes
_SCALAR_DEFAULT: dict[type, np.dtype] = {
    bool: bool_,
    int: int64,
    float: float64,
    complex: complex128,
}
_NARROW = {int64: int32, float64: float32, complex128: complex64}  # x64 off, as JAX's


def as_dtype(value: Any) -> np.dtype:
    """The tf8 dtype named by `value` (a name, numpy type or dtype), canonical (float64 is
    float32 with `jax_enable_x64` off, as JAX's); DTypeError otherwise."""
    try:
        dtype = np.dtype(value)
    except TypeError as exc:
        raise DTypeError(f"{value!r} is not a dtype tf8 knows ({dtype_names()})") from exc
    found = _CANON.get(dtype)
    if found is not None:
        return found
    raise DTypeError(f"dtype {dtype} is not supported by tf8 (supported: {dtype_names()})")


def _is_python_type(value: Any) -> bool:
    """dtype=float asks for the default float (no warning); by identity: np.dtype == int."""
    return value is int or value is float or value is complex


def requested_dtype(value: Any, where: str) -> np.dtype:
    """`as_dtype` of a dtype the user asked for; with x64 off a 64-bit one is narrowed with
    JAX's UserWarning ("Explicitly requested dtype float64 ... truncated to float32")."""
    dtype = as_dtype(value)
    if not switches.enable_x64 and not _is_python_type(value) and np.dtype(value) in _NARROW:
        warnings.warn(
            f"Explicitly requested dtype {np.dtype(value)} requested in {where} is not "
            f"available, and will be truncated to dtype {dtype}. To enable more dtypes, set "
            "the jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell environment "
            "variable.",
            UserWarning,
            stacklevel=3,
        )
    return dtype


def canonical_dtype(dtype: np.dtype) -> np.dtype:
    """Map an incoming numpy dtype onto tf8's set (int8 → int64, float16 → float32, ...;
    with x64 off float64 → float32, int64 → int32, uint64 → uint32, complex128 → complex64)."""
    found = _CANON.get(dtype)
    if found is not None:
        return found
    widened = _WIDEN.get(dtype.kind)
    if widened is None or dtype.itemsize > 8:
        raise DTypeError(f"arrays of dtype {dtype} are not supported (supported: {dtype_names()})")
    if not switches.enable_x64 and dtype.kind == "u" and dtype.itemsize == 8:
        return uint32  # JAX's uint64 -> uint32 (tf8 has no uint64)
    return _CANON[widened]


def index_dtype() -> np.dtype:
    """The dtype of argmax's and argsort's indices: int64, or int32 with x64 off (JAX's)."""
    return _CANON[int64]


def x64_enabled() -> bool:
    """Whether 64-bit dtypes are on (`jax_enable_x64`; tf8's default, unlike JAX's)."""
    return switches.enable_x64


def set_x64(on: bool) -> None:
    """Swap the tables for `jax_enable_x64` = `on` (callers clear tf8's caches too)."""
    switches.enable_x64 = bool(on)
    for d in DTYPES:
        _CANON[d] = d if on else _NARROW.get(d, d)
    NATIVE.clear()
    NATIVE.update(d for d in DTYPES if _CANON[d] == d)
    NATIVE_INEXACT.clear()
    NATIVE_INEXACT.update(d for d in NATIVE if is_inexact(d))
    for scalar, default in ((int, int64), (float, float64), (complex, complex128)):
        _SCALAR_DEFAULT[scalar] = _CANON[default]
    for node, default in (("i*", int64), ("f*", float64), ("c*", complex128)):
        _WEAK_DEFAULT[node] = _CANON[default]
    _join.cache_clear()


def dtype_names() -> str:
    return ", ".join(str(d) for d in DTYPES)


def is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f"


def is_complex(dtype: np.dtype) -> bool:
    return dtype.kind == "c"


def is_inexact(dtype: np.dtype) -> bool:
    return dtype.kind in "fc"


def is_integer(dtype: np.dtype) -> bool:
    """Signed or unsigned integer."""
    return dtype.kind in "iu"


def real_dtype(dtype: np.dtype) -> np.dtype:
    """complex64 → float32, complex128 → float64, anything else unchanged."""
    return {complex64: float32, complex128: float64}.get(dtype, dtype)


def complex_dtype(dtype: np.dtype) -> np.dtype:
    """float16 and float32 → complex64, every other real dtype → complex128 (numpy's)."""
    if dtype in COMPLEXES:
        return dtype
    return complex64 if dtype in (float16, float32) else complex128


def float_dtype(dtype: np.dtype) -> np.dtype:
    """The inexact dtype an integer or bool computation is done in, as JAX's
    `to_inexact_dtype`: int64 → float64; bool, uint8, uint32 and int32 → float32."""
    if is_inexact(dtype):
        return dtype
    return float64 if dtype == int64 else float32


ufunc_float_dtype = float_dtype  # what sin, exp, sqrt, ... compute an integer argument in


# JAX's promotion lattice: each type's immediate successors. "i*", "f*" and "c*" are the weak
# types of Python's int, float and complex. int8, int16, uint16 and uint64 have no tf8 dtype
# but keep the joins JAX computes (uint8 with int32 is int32; uint32 with int32 is int64).
_LATTICE: dict[Any, list[Any]] = {
    bool_: ["i*"],
    "i*": [uint8, "i8"],
    uint8: ["i16", "u16"],
    "u16": [int32, uint32],
    uint32: [int64, "u64"],
    "u64": ["f*"],
    "i8": ["i16"],
    "i16": [int32],
    int32: [int64],
    int64: ["f*"],
    "f*": [float16, "c*"],
    float16: [float32],
    float32: [float64, complex64],
    float64: [complex128],
    "c*": [complex64],
    complex64: [complex128],
    complex128: [],
}
_WEAK_DEFAULT = {"i*": int64, "f*": float64, "c*": complex128}


def _upper_bounds() -> dict[Any, frozenset]:
    bounds: dict[Any, set] = {node: {node} for node in _LATTICE}
    changed = True
    while changed:
        changed = False
        for node, above in bounds.items():
            grown = above.union(*(_LATTICE[b] for b in above))
            if grown != above:
                bounds[node], changed = grown, True
    return {node: frozenset(above) for node, above in bounds.items()}


_UPPER = _upper_bounds()


@functools.lru_cache(maxsize=1024)
def _join(nodes: tuple[Any, ...]) -> Any:
    """The least upper bound of lattice nodes (cached: promotion runs on every op)."""
    common = frozenset.intersection(*(_UPPER[n] for n in nodes))
    joined = next(n for n in common if _UPPER[n] == common)
    return _CANON.get(joined, joined)  # (x64 off: JAX canonicalizes the join)


class Weak(NamedTuple):
    """A weakly typed value's dtype, as promotion sees it (a weak float32 joins as a Python
    float would, and several weak values join on their own dtypes)."""

    dtype: np.dtype


_SCALAR_NODES = {bool: bool_, int: "i*", float: "f*", complex: "c*"}  # bool is strong, as JAX's
_WEAK_NODES = {"b": bool_, "i": "i*", "u": "i*", "f": "f*", "c": "c*"}
_OWN = frozenset(DTYPES)


def _node(operand: Any) -> Any:
    found = _SCALAR_NODES.get(type(operand))
    if found is not None:
        return found
    if operand in _OWN:
        return operand
    if isinstance(operand, Weak):
        return _WEAK_NODES[operand.dtype.kind]
    for kind, node in _SCALAR_NODES.items():  # subclasses of Python's scalar types
        if isinstance(operand, kind):
            return node
    return canonical_dtype(np.dtype(operand))


def promote_types(*operands: Any) -> tuple[np.dtype, bool]:
    """JAX's promotion of dtypes and Python scalars (weakly typed): the result's dtype, and
    whether it is weakly typed (it is when every operand is, or when a weak Python scalar
    decides the kind: `int32_array * 2.0` is a weak float64, as in JAX)."""
    nodes = [_node(op) for op in operands]
    if all(isinstance(n, str) for n in nodes):  # all weak: join their own dtypes
        own = [
            op.dtype if isinstance(op, Weak) else _WEAK_DEFAULT[n] for op, n in zip(operands, nodes)
        ]
        return _join(tuple(own)), True
    joined = _join(tuple(nodes))
    if isinstance(joined, str):
        return _WEAK_DEFAULT[joined], True
    return joined, False


def result_type(*operands: Any) -> np.dtype:
    """JAX's promotion (see `promote_types`): arrays and dtypes are strong, Python scalars weak
    (float32 * 2.0 → float32), mixed widths join on JAX's lattice (int32 with float32 → float32)."""
    result, _ = promote_types(*operands)
    check_ints_fit(result, operands)
    return result


def check_ints_fit(dtype: np.dtype, operands: Any) -> None:
    """DTypeError for a Python int among `operands` that `dtype` (an integer one) cannot hold:
    int32 with 2**40 is int32, and the overflow would otherwise surface only when the scalar
    is converted, as a bare OverflowError."""
    if is_integer(dtype):
        info = np.iinfo(dtype)
        for value in operands:
            if type(value) is int and not info.min <= value <= info.max:
                raise DTypeError(f"Python integer {value} is out of bounds for {dtype}")


def weak_scalar_dtype(value: bool | int | float | complex) -> np.dtype:
    """The dtype a lone Python scalar takes (JAX's default types: 64 bits with x64 on)."""
    found = _SCALAR_DEFAULT.get(type(value))
    if found is not None:
        return found
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return _SCALAR_DEFAULT[int]
    if isinstance(value, float):
        return _SCALAR_DEFAULT[float]
    return _SCALAR_DEFAULT[complex]
