"""Vector-Jacobian products of single ops, for the tape's reverse mode (tf8.ad.tape).

`vjp(op, inputs, outputs, cts, needs)` gives the cotangent of each needed input of one
recorded op, as numpy arrays, from its outputs' cotangents. Four tiers, cheapest first; each
computes what the graph path's transpose(jvp(op)) computes (the same rules, the same kink
conventions), so the two paths agree:

1. numpy rules for the hottest rows on real floating dtypes (no tf8 dispatch at all);
2. elementwise rows: the cotangent times the JVP rule's partial derivatives;
3. rows linear in the needed operands (the catalog's linear rows, rows linear in some
   operands by their `linear_in`, one side of `mul`/`dot_general`): their transpose rule,
   applied to the cotangent;
4. anything else (extension ops, custom rules, control flow): tf8.vjp of the op alone, on
   the graph path.
Tiers 2-4 run tf8 ops op by op on the recorded values (the tape is closed by then).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8.lax.builders import mul
from tf8.lax.core import apply, concrete
from tf8.ops.definition import definition
from tf8.ops.primitive import Aval
from tf8.traced import TracedTensor

from .graph_path import graph_vjp
from .jvp_rules import ELEMENTWISE_PARTIALS, home_jvp
from .transpose_rules import TRANSPOSE_RULES, home_transpose

NumpyRule = Callable[[Any, list, np.ndarray, np.ndarray, Sequence[bool]], Sequence[Any]]
NUMPY_RULES: dict[str, NumpyRule] = {}

# How often a pullback fell back to the graph path (tf8.vjp of the op alone), by op name:
# a primitive whose home gives partials or a transpose rule never should.
FALLBACKS: Counter[str] = Counter()


def _rule(name: str) -> Callable[[NumpyRule], NumpyRule]:
    def register(fn: NumpyRule) -> NumpyRule:
        NUMPY_RULES[name] = fn
        return fn

    return register


# --- tier 1: numpy, real floating dtypes ------------------------------------------------------
# rule(op, input values, output value, output cotangent, needs) -> cotangent per input


NUMPY_RULES["add"] = lambda op, xs, out, ct, needs: (ct, ct)
NUMPY_RULES["sub"] = lambda op, xs, out, ct, needs: (ct, -ct if needs[1] else None)
NUMPY_RULES["neg"] = lambda op, xs, out, ct, needs: (-ct,)
NUMPY_RULES["mul"] = lambda op, xs, out, ct, needs: (
    ct * xs[1] if needs[0] else None,
    ct * xs[0] if needs[1] else None,
)
NUMPY_RULES["div"] = lambda op, xs, out, ct, needs: (
    ct / xs[1] if needs[0] else None,
    -ct * out / xs[1] if needs[1] else None,
)
NUMPY_RULES["exp"] = lambda op, xs, out, ct, needs: (ct * out,)
NUMPY_RULES["expm1"] = lambda op, xs, out, ct, needs: (ct * (out + 1.0),)
NUMPY_RULES["log"] = lambda op, xs, out, ct, needs: (ct / xs[0],)
NUMPY_RULES["log1p"] = lambda op, xs, out, ct, needs: (ct / (xs[0] + 1.0),)
NUMPY_RULES["sin"] = lambda op, xs, out, ct, needs: (ct * np.cos(xs[0]),)
NUMPY_RULES["cos"] = lambda op, xs, out, ct, needs: (-ct * np.sin(xs[0]),)
NUMPY_RULES["tanh"] = lambda op, xs, out, ct, needs: (ct * (1.0 - out * out),)
NUMPY_RULES["logistic"] = lambda op, xs, out, ct, needs: (ct * out * (1.0 - out),)
NUMPY_RULES["sqrt"] = lambda op, xs, out, ct, needs: (ct * 0.5 / out,)
NUMPY_RULES["abs"] = lambda op, xs, out, ct, needs: (ct * np.sign(xs[0]),)  # 0 at the kink
NUMPY_RULES["reshape"] = lambda op, xs, out, ct, needs: (ct.reshape(xs[0].shape),)
NUMPY_RULES["transpose"] = lambda op, xs, out, ct, needs: (
    np.transpose(ct, np.argsort(op["permutation"])),
)


@_rule("maximum")
def _maximum(op, xs, out, ct, needs):
    x, y = xs
    w = np.where(x > y, 1.0, np.where(x == y, 0.5, 0.0)).astype(ct.dtype)  # ties split
    return (ct * w if needs[0] else None, ct * (1.0 - w) if needs[1] else None)


@_rule("minimum")
def _minimum(op, xs, out, ct, needs):
    x, y = xs
    w = np.where(x < y, 1.0, np.where(x == y, 0.5, 0.0)).astype(ct.dtype)
    return (ct * w if needs[0] else None, ct * (1.0 - w) if needs[1] else None)


def _axes(op: Any, ndim: int) -> tuple[int, ...]:
    return tuple(a % ndim for a in op["axes"]) if ndim else ()


@_rule("reduce_sum")
def _reduce_sum(op, xs, out, ct, needs):
    x = xs[0]
    return (np.broadcast_to(np.expand_dims(ct, _axes(op, x.ndim)), x.shape),)


def _reduce_extremum(op, xs, out, ct, needs):
    """The mean of the cotangent over the tied extremal positions (as the JVP rule)."""
    x = xs[0]
    axes = _axes(op, x.ndim)
    mask = x == np.expand_dims(out, axes)
    count = np.sum(mask, axis=axes, keepdims=True)
    return (np.expand_dims(ct, axes) * mask / count,)


NUMPY_RULES["reduce_max"] = NUMPY_RULES["reduce_min"] = _reduce_extremum


@_rule("broadcast_in_dim")
def _broadcast_in_dim(op, xs, out, ct, needs):
    x = xs[0]
    dims = op["broadcast_dimensions"]
    new = tuple(i for i in range(ct.ndim) if i not in dims)
    summed = np.sum(ct, axis=new) if new else ct
    stretched = tuple(j for j, d in enumerate(x.shape) if d == 1 and summed.shape[j] != 1)
    if stretched:
        summed = np.sum(summed, axis=stretched, keepdims=True)
    return (summed.reshape(x.shape),)


@_rule("convert")
def _convert(op, xs, out, ct, needs):
    return (ct.astype(xs[0].dtype),)


@_rule("dot_general")
def _dot_general(op, xs, out, ct, needs):
    """Plain matrix and vector products (no batch axes, the last axis of x against the first
    of y); other dimension numbers go to the transpose rule (tier 3)."""
    x, y = xs
    (xc, yc), (xb, _) = op["contracting"], op["batch"]
    if xb or len(xc) != 1 or xc[0] % x.ndim != x.ndim - 1 or yc[0] % y.ndim != 0 or y.ndim > 2:
        return NotImplemented
    if x.ndim == 1 and y.ndim == 1:
        return (ct * y if needs[0] else None, ct * x if needs[1] else None)
    if y.ndim == 1:  # (..., k) @ (k,): ct has x's leading axes
        return (
            np.multiply.outer(ct, y) if needs[0] else None,
            np.tensordot(ct, x, ct.ndim) if needs[1] else None,
        )
    if x.ndim == 1:  # (k,) @ (k, n)
        return (y @ ct if needs[0] else None, np.multiply.outer(x, ct) if needs[1] else None)
    if x.ndim == 2:
        return (ct @ y.T if needs[0] else None, x.T @ ct if needs[1] else None)
    return NotImplemented


# --- tiers 2-4: tf8 rules on the recorded values -----------------------------------------------

# Rows linear in some operands when the others are held fixed, whose home does not say so yet
# (a row defined in a family module gives `linear_in`; the catalog's linear rows are linear in
# all of theirs).
_LINEAR_IN: dict[str, frozenset[int]] = {
    "mul": frozenset({0, 1}),
    "dot_general": frozenset({0, 1}),
    "div": frozenset({0}),
    "select": frozenset({1, 2}),
    "convert": frozenset({0}),
}
_ONE_AT_A_TIME = frozenset({"mul", "dot_general"})  # bilinear: transpose one side at a time


def real_floats(tensors: Sequence[TracedTensor]) -> bool:
    for t in tensors:
        if t.aval.dtype.kind != "f":
            return False
    return True


def vjp(
    op: Any,
    inputs: Sequence[TracedTensor],
    outputs: Sequence[TracedTensor],
    cts: list[Any],
    needs: Sequence[bool],
    nested: bool = False,
    key: Any = None,
) -> Sequence[Any]:
    """The cotangents of `op`'s inputs where `needs` says so (None elsewhere): numpy arrays,
    or — `nested` in enclosing tapes, which must see every op — TracedTensors made by tf8
    ops (tiers 2-4 only). `key` is the op's rule key when the caller knows it."""
    if key is None:
        key = definition(op).rule_key
    if type(key) is str:
        if len(outputs) == 1:
            rule = None if nested else NUMPY_RULES.get(key)
            if rule is not None and outputs[0].aval.dtype.kind == "f":
                xs = []
                for t in inputs:  # `real_floats`, inlined, gathering the values
                    if t.aval.dtype.kind != "f":
                        break
                    xs.append(t._value)
                else:
                    result = rule(op, xs, outputs[0]._value, cts[0], needs)
                    if result is not NotImplemented:
                        return result
            unwrap = _as_is if nested else _value
            found_def = definition(op)
            partials = ELEMENTWISE_PARTIALS.get(key)
            if partials is None and found_def.partials is not None:
                partials = home_jvp(found_def).partials  # registered since import
            if partials is not None:
                return _elementwise(partials, inputs, outputs[0], cts[0], needs, unwrap)
            if found_def.linear or found_def.linear_in or key in _LINEAR_IN:
                found = _transposed(op, found_def, key, inputs, outputs[0], cts[0], needs, unwrap)
                if found is not None:
                    return found
    return _generic(op, inputs, outputs, cts, needs)


def _traced(value: Any, aval: Aval) -> TracedTensor:
    if isinstance(value, TracedTensor):
        return value
    return concrete(np.asarray(value, aval.dtype), aval)


def _elementwise(partials, inputs, out, ct, needs, unwrap) -> list[Any]:
    """ct · ∂out/∂x_i: the transpose of the JVP's `t_i · partial_i` (no conjugation, as
    tf8's transpose of a product)."""
    ct_t = _traced(ct, out.aval)
    result = []
    for partial, need in zip(partials, needs):
        if not need or partial is None:
            result.append(None)
            continue
        result.append(unwrap(mul(ct_t, partial(*inputs, out))))
    return result


def _transposed(op, found_def, key, inputs, out, ct, needs, unwrap) -> list[Any] | None:
    """The transpose rule applied to `ct`, where the op is linear in every needed input."""
    linear_in = found_def.linear_in or _LINEAR_IN.get(key)
    wanted = [i for i, need in enumerate(needs) if need]
    if linear_in is not None and not all(i in linear_in for i in wanted):
        return None
    if key == "convert" and out.aval.dtype.kind not in "fc":
        return None
    rule = TRANSPOSE_RULES.get(key) or home_transpose(found_def)  # or registered since
    if rule is None:
        return None
    ct_t = _traced(ct, out.aval)
    if key in _ONE_AT_A_TIME:
        masks = [[j == i for j in range(len(inputs))] for i in wanted]
    else:
        masks = [list(needs)]
    result: list[Any] = [None] * len(inputs)
    for mask in masks:
        for i, c in enumerate(rule(op, inputs, mask, ct_t)):
            if c is not None and mask[i]:
                result[i] = unwrap(c)
    return result


def _value(t: Any) -> np.ndarray | None:
    return None if t is None else t._value


def _as_is(t: Any) -> Any:
    return t


def _generic(op, inputs, outputs, cts, needs) -> list[Any]:
    """tf8.vjp of the op alone (the graph path), at the recorded input values."""
    FALLBACKS[definition(op).name] += 1
    wanted = [i for i, need in enumerate(needs) if need]

    def alone(*xs: TracedTensor) -> list[TracedTensor]:
        args = list(inputs)
        for i, x in zip(wanted, xs):
            args[i] = x
        return apply(op, args)

    _, pullback = graph_vjp(alone, *[inputs[i]._value for i in wanted])
    filled = [
        np.zeros(o.aval.shape, o.aval.dtype) if c is None else np.asarray(c, o.aval.dtype)
        for o, c in zip(outputs, cts)
    ]
    found = pullback(filled)
    result: list[Any] = [None] * len(inputs)
    for i, c in zip(wanted, found):
        result[i] = np.asarray(c)
    return result
