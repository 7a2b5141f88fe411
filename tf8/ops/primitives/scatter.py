"""Scatter combiners beside `scatter_add` (in `indexing`): `scatter` (replace), `scatter_mul`,
`scatter_min` and `scatter_max`, with jax.lax's dimension numbers, shape rule and window
dropping (kernels and shape rule in `tf8.ops.gather`). Their derivatives are JAX's:

- `scatter` is linear in the operand and the updates jointly (the indices held fixed); its
  kernel is deterministic (the last update in C order wins where targets repeat), so its
  JVP is the scatter of the tangents, and its transpose gives each update the cotangent
  only where it won: a scatter of update numbers tells which (skipped when the op promises
  `unique_indices`, as JAX's rule assumes).
- `scatter_mul` is linear in the operand; with respect to the updates its JVP is
  `operand * scatter_add(0, indices, t)`, which holds only where no two updates meet, so, as
  JAX, it needs `unique_indices=True` (an error names it otherwise).
- `scatter_min`/`scatter_max`: the tangent where several values tie for the extremum (the
  operand's and the updates') is their average, as JAX's `_scatter_extremal_jvp`.

Batching follows `scatter_add`'s rule (a batch axis becomes a window axis, or a counter
column of the indices).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.errors import UnsupportedOperationError
from tf8.ops import dtypes as dt
from tf8.ops.avals import Aval
from tf8.ops.catalog import Category, DTypePolicy, Row
from tf8.ops.definition import OpDefinition, define
from tf8.ops.gather import (
    scatter_add_shape,
    scatter_add_transpose_params,
    scatter_combine_kernel,
    scatter_kernel,
)

from .indexing import scatter_add_batch, updates_cotangent

_I, _P = Category.INDEXING, DTypePolicy
_DIMS = ("update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims")


def _dims(op: Any) -> dict[str, Any]:
    return {name: op[name] for name in _DIMS}


def _scatter_add(lax: Any, op: Any, base: Any, indices: Any, updates: Any) -> Any:
    return lax.apply1("scatter_add", [base, indices, updates], **_dims(op))


def _gather_back(lax: Any, op: Any, x: Any, indices: Any, updates: Any) -> Any:
    """The gather reading, from an operand-shaped `x`, each update window's elements."""
    params = scatter_add_transpose_params(op, updates.shape)
    return lax.apply1("gather", [x, indices], **params)


# --- scatter (replace) ------------------------------------------------------------------------


def _winners(lax: Any, op: Any, operand: Any, indices: Any, updates: Any) -> Any:
    """Per update element, whether the scatter kept it: a scatter of update numbers (from 1;
    0 marks elements no update wrote), read back at each update."""
    count = int(np.prod(updates.shape, dtype=np.int64))
    numbers = lax.apply1("iota", [], shape=(count,), dtype=dt.int64, dimension=0)
    numbers = lax.reshape(lax.add(numbers, 1), updates.shape)
    zeros = lax.zeros(Aval(operand.shape, dt.int64))
    written = lax.apply(op, [zeros, indices, numbers])[0]
    return lax.compare(_gather_back(lax, op, written, indices, updates), numbers, "eq")


def _scatter_transpose(lax: Any, op: Any, operands: list, linear: list, ct: Any) -> list:
    operand, indices, updates = operands
    ct_operand = ct_updates = None
    if linear[0]:  # what the updates overwrote gets no cotangent
        ct_operand = lax.apply(op, [ct, indices, lax.zeros(updates.aval)])[0]
    if linear[2]:
        if op["unique_indices"]:
            ct_updates = updates_cotangent(lax, op, operand, indices, updates, ct)
        else:  # dropped windows never win either
            won = _winners(lax, op, operand, indices, updates)
            gathered = _gather_back(lax, op, ct, indices, updates)
            ct_updates = lax.select(won, gathered, lax.zeros(updates.aval))
    return [ct_operand, None, ct_updates]


# --- scatter_mul ------------------------------------------------------------------------------


def _scatter_mul_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list:
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    out = None if t_operand is None else lax.apply(op, [t_operand, indices, updates])[0]
    if t_updates is not None:
        if not op["unique_indices"]:
            raise UnsupportedOperationError(
                "scatter_mul: the derivative with respect to `updates` needs "
                "unique_indices=True (as in JAX: where two updates meet, each one's "
                f"derivative is the product of the others); operand {operand.aval}, "
                f"indices {indices.aval}, updates {updates.aval}"
            )
        spread = _scatter_add(lax, op, lax.zeros(operand.aval), indices, t_updates)
        out = lax.add_any(out, lax.mul(operand, spread))
    return [out]


def _scatter_mul_transpose(lax: Any, op: Any, operands: list, linear: list, ct: Any) -> list:
    operand, indices, updates = operands
    if linear[2]:
        raise UnsupportedOperationError(
            f"scatter_mul is not linear in its updates ({updates.aval}); transpose it with "
            "respect to the operand only"
        )
    return [lax.apply(op, [ct, indices, updates])[0] if linear[0] else None, None, None]


# --- scatter_min and scatter_max --------------------------------------------------------------


def _extremal_jvp(lax: Any, op: Any, primals: Any, outputs: Any, tangents: Any) -> list:
    """JAX's rule: at each written element the tangent is the mean of the tangents of the
    values equal to the result (the operand's, if it kept its value, and the winning
    updates'); elsewhere the operand's."""
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    if t_operand is None and t_updates is None:
        return [None]
    t_operand = lax.materialize(t_operand, operand.aval)
    t_updates = lax.materialize(t_updates, updates.aval)

    def back(x: Any) -> Any:
        return _gather_back(lax, op, x, indices, updates)

    def count(per_update: Any) -> Any:  # at each update, how many updates hit its element
        return back(_scatter_add(lax, op, lax.zeros(operand.aval), indices, per_update))

    target = back(outputs[0])
    won = lax.compare(updates, target, "eq")
    kept = lax.compare(back(operand), target, "eq")
    winners = count(lax.select(won, 1, lax.zeros(updates.aval)))
    references = count(lax.like(updates, 1))  # 0 only at a dropped window's clamped read:
    references = lax.select(lax.compare(references, 0, "eq"), 1, references)  # keep it finite
    sharing = lax.add(winners, lax.select(kept, 1, lax.zeros(updates.aval)))
    share = lax.div(1, lax.select(lax.compare(sharing, 0, "eq"), 1, sharing))
    update_coef = lax.select(won, share, lax.zeros(updates.aval))
    operand_coef = lax.div(lax.sub(lax.select(kept, share, lax.zeros(updates.aval)), 1), references)
    moved = lax.add(lax.mul(back(t_operand), operand_coef), lax.mul(t_updates, update_coef))
    return [_scatter_add(lax, op, t_operand, indices, moved)]


# --- rows -------------------------------------------------------------------------------------


def _row(name: str, policy: DTypePolicy, doc: str, **facts: Any) -> Row:
    return Row(
        name,
        _I,
        policy,
        3,
        3,
        (*_DIMS, "unique_indices"),
        doc=doc,
        defaults=(("unique_indices", False),),
        dtype_operands=(0, 2),
        **facts,
    )


SCATTER = define(
    _row("scatter", _P.SAME_ANY, "lax.scatter: updates replace (the last wins)", linear_in=(0, 2)),
    kernel=scatter_kernel,
    shape=scatter_add_shape,
    transpose=_scatter_transpose,
    batch=scatter_add_batch,
)

SCATTER_MUL = define(
    _row("scatter_mul", _P.SAME_NUMERIC, "lax.scatter_mul: multiplied in", linear_in=(0,)),
    kernel=scatter_combine_kernel(np.multiply),
    shape=scatter_add_shape,
    jvp=_scatter_mul_jvp,
    transpose=_scatter_mul_transpose,
    batch=scatter_add_batch,
)

SCATTER_MIN = define(
    _row("scatter_min", _P.SAME_ANY, "lax.scatter_min: the minimum (NaN propagates)"),
    kernel=scatter_combine_kernel(np.minimum),
    shape=scatter_add_shape,
    jvp=_extremal_jvp,
    batch=scatter_add_batch,
)

SCATTER_MAX = define(
    _row("scatter_max", _P.SAME_ANY, "lax.scatter_max: the maximum (NaN propagates)"),
    kernel=scatter_combine_kernel(np.maximum),
    shape=scatter_add_shape,
    jvp=_extremal_jvp,
    batch=scatter_add_batch,
)


DEFINITIONS: tuple[OpDefinition, ...] = (SCATTER, SCATTER_MUL, SCATTER_MIN, SCATTER_MAX)
