"""AD rules of the einsum family.

A normalised einsum is multilinear, so its JVP is the sum of the einsums with one operand
replaced by its tangent, and its transpose for operand i is the einsum of the cotangent with
the others (JAX's bilinear convention: no conjugation for complex numbers).
"""

from __future__ import annotations

from tf8.lax.core import apply, apply1
from tf8.lax.einsum import contract
from tf8.ops.extension.einsum import Einsum

from ..jvp_rules import JvpRule
from ..transpose_rules import TransposeRule


def einsum_jvp(op: Einsum, primals, outputs, tangents):
    total = None
    for i, t in enumerate(tangents):
        if t is None:
            continue
        term = apply(op, [t if j == i else p for j, p in enumerate(primals)])[0]
        total = term if total is None else apply1("add", [total, term])
    return [total]


def einsum_transpose(op: Einsum, operands, linear, ct):
    inputs, output, _ = op.payload
    if sum(linear) != 1:
        raise TypeError("einsum is linear in one operand at a time")
    i = list(linear).index(True)
    subs = tuple(output if j == i else s for j, s in enumerate(inputs))
    args = [ct if j == i else x for j, x in enumerate(operands)]
    return [contract(subs, inputs[i], args) if j == i else None for j in range(len(inputs))]


JVP_RULES: dict[type, JvpRule] = {Einsum: einsum_jvp}
TRANSPOSE_RULES: dict[type, TransposeRule] = {Einsum: einsum_transpose}
