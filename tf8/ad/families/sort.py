"""AD rule of the sort family: the outputs' tangents are the tangents permuted as the
primals were, a gather by the sorting permutation (got by sorting positions along with the
keys). Gather is linear in what it gathers, so reverse mode transposes it to a scatter-add."""

from __future__ import annotations

from tf8.lax.core import apply
from tf8.lax.sorting import iota_like, take_along
from tf8.ops.extension.sort import Sort

from ..jvp_rules import JvpRule


def sort_jvp(op: Sort, primals, outputs, tangents):
    if all(t is None for t in tangents):
        return [None] * len(primals)
    dimension, is_stable, num_keys = op.payload
    keys = list(primals[:num_keys])
    positions = iota_like(primals[0], dimension)
    order = apply(Sort(dimension, is_stable, num_keys, num_keys + 1), [*keys, positions])[-1]
    return [None if t is None else take_along(t, order, dimension) for t in tangents]


JVP_RULES: dict[type, JvpRule] = {Sort: sort_jvp}
