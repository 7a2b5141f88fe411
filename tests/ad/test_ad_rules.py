"""Every catalog row differentiates correctly, driven by the catalog table.

For each row and each of float64 / complex128 (where the row admits it), random shapes and
inputs drawn inside the row's smooth domain (`ad_cases`): JVP matches central differences
and VJP matches JVP (the adjoint identity), to second order (`tf8.check_grads`). Rows that
declare a zero derivative give exactly zero. Coverage tests fail when a row has no JVP rule,
when a linear row has no transpose rule, and when a JVP or transpose rule emits an op on
(co)tangents that cannot be transposed.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from ad_cases import (
    C128,
    DIFFERENTIABLE,
    F64,
    ZERO_DERIVATIVE,
    draw_call,
    dtypes_of,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tf8
import tf8.numpy as tnp
from tf8.ad.arguments import fresh_leaf
from tf8.ad.jvp_rules import JVP_RULES
from tf8.ad.linearize import jvp_graph, transpose_graph
from tf8.ad.transpose_rules import TRANSPOSE_RULES
from tf8.lax.core import apply1
from tf8.lax.walk import GraphWalk
from tf8.ops.primitives import PRIMITIVES

ROWS = [d.row for d in PRIMITIVES.values()]

# Few examples per (row, dtype): there are ~100 such pairs (scaled up by the `long` profile).
FEW = settings(max_examples=max(2, settings.default.max_examples // 5))

SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)
SEEDS = st.integers(0, 2**32 - 1)
ROW_NAMES = [row.name for row in ROWS]
SMOOTH_PAIRS = [(name, dtype) for name in DIFFERENTIABLE for dtype in dtypes_of(name)]


def _pair_id(pair: tuple[str, np.dtype]) -> str:
    return f"{pair[0]}-{pair[1]}"


# --- coverage: the tables against the catalog -------------------------------------------------


def test_every_row_has_a_jvp_rule():
    missing = [name for name in ROW_NAMES if name not in JVP_RULES]
    assert not missing, f"catalog rows without a JVP rule in JVP_RULES: {missing}"


def test_every_linear_row_has_a_transpose_rule():
    missing = [row.name for row in ROWS if row.linear and row.name not in TRANSPOSE_RULES]
    assert not missing, f"linear catalog rows without a transpose rule: {missing}"


def test_every_row_has_an_ad_case():
    """A new catalog row needs a differentiation case (or a declared zero derivative)."""
    missing = [n for n in ROW_NAMES if n not in DIFFERENTIABLE and n not in ZERO_DERIVATIVE]
    assert not missing, f"catalog rows with no case in tests/ad/ad_cases.py: {missing}"
    assert not set(DIFFERENTIABLE) & ZERO_DERIVATIVE
    assert set(DIFFERENTIABLE) | ZERO_DERIVATIVE == set(ROW_NAMES)


def test_zero_derivative_rows_match_the_rule_table():
    from tf8.ad.jvp_rules import zero_rule

    declared = {name for name, rule in JVP_RULES.items() if rule is zero_rule}
    assert declared == ZERO_DERIVATIVE


def _ops_on(outputs, sources) -> set[str]:
    """Names of the ops in the graph behind `outputs` that depend on the leaves `sources`."""
    outputs = [o for o in outputs if o is not None]
    if not outputs:
        return set()
    walk = GraphWalk(outputs)
    active = walk.depends_on(s.key for s in sources)
    return {op.op.name for op in walk.operations if any(k in active for k in op.outputs)}


@pytest.mark.parametrize("pair", SMOOTH_PAIRS, ids=_pair_id)
@FEW
@given(base=SHAPES, seed=SEEDS)
def test_ops_emitted_on_tangents_have_transpose_rules(pair, base, seed):
    """What a JVP rule emits on tangents, and a transpose rule on cotangents, transposes."""
    name, dtype = pair
    call = draw_call(base, seed, name, dtype)
    leaves = [tf8.tensor(x) for x in call.args]
    out = call(*leaves)
    tangents = [fresh_leaf(leaf, "tangent", bind=False) for leaf in leaves]
    (t_out,) = jvp_graph([out], leaves, tangents)
    emitted = _ops_on([t_out], tangents)
    if t_out is not None:
        seed = fresh_leaf(out, "seed", bind=False)
        cts = transpose_graph([t_out], tangents, [seed])
        emitted |= _ops_on(cts, [seed])
    missing = sorted(emitted - set(TRANSPOSE_RULES))
    assert not missing, f"{name}: ops on (co)tangents without a transpose rule: {missing}"


# --- every smooth row: JVP vs central differences, VJP vs JVP, to second order ----------------


def _check_row(base, seed, name: str, dtype: np.dtype, **options) -> None:
    call = draw_call(base, seed, name, dtype)
    if call.positions:
        tf8.check_grads(call, call.args, **options)


@pytest.mark.parametrize("pair", SMOOTH_PAIRS, ids=_pair_id)
@FEW
@given(base=SHAPES, seed=SEEDS)
def test_row_derivatives_to_second_order(pair, base, seed):
    _check_row(base, seed, *pair, order=2)


# --- zero-derivative rows ---------------------------------------------------------------------


def _zero_pairs() -> list[tuple[str, np.dtype]]:
    from ad_cases import ADMITTED

    pairs = []
    for name in sorted(ZERO_DERIVATIVE):
        for dtype in (F64, C128):
            if dtype in ADMITTED[name] and name not in ("iota", "constant"):
                pairs.append((name, dtype))
    return pairs


ZERO_PAIRS = _zero_pairs()


@pytest.mark.parametrize("pair", ZERO_PAIRS, ids=_pair_id)
@FEW
@given(base=SHAPES, seed=SEEDS)
def test_grad_through_zero_derivative_rows_is_exactly_zero(pair, base, seed):
    name, dtype = pair
    call = draw_call(base, seed, name, dtype)

    def loss(*xs):
        out = call(*xs)
        return tnp.sum(tnp.real(tnp.astype(out, np.complex128)))

    grads = tf8.grad(loss, argnums=tuple(range(len(call.positions))))(*call.args)
    for g, x in zip(grads, call.args):
        assert g.shape == x.shape and g.dtype == x.dtype
        assert np.all(g == 0), f"grad through {name} is {g}, not exactly 0"
    _, t_out = tf8.jvp(call, tuple(call.args), tuple(np.ones_like(x) for x in call.args))
    t_out = np.asarray(t_out)
    if t_out.dtype.kind in "fc":
        assert np.all(t_out == 0)


@pytest.mark.parametrize("name", sorted(ZERO_DERIVATIVE))
def test_zero_derivative_rules_return_symbolic_zeros(name):
    """Rules of rows no tangent can reach (int/bool operands, no operands) still answer zero."""
    x = tf8.tensor(np.arange(3, dtype=np.int64))
    op = SimpleNamespace(name=name, output_count=1)
    assert JVP_RULES[name](op, [x], [x], [x]) == [None]


def test_zero_rows_inside_a_float_program_have_zero_gradient():
    """and / or / not / iota / constant inside a differentiated program contribute nothing."""

    def f(x):
        positive = x > 0
        mask = apply1("or", [apply1("and", [positive, positive]), apply1("not", [positive])])
        ramp = apply1("iota", [], shape=(3,), dtype=np.dtype(np.float64), dimension=0)
        return tnp.sum(tnp.where(mask, x * ramp, 0.0))

    x = np.array([-1.0, 2.0, 3.0])
    np.testing.assert_array_equal(tf8.grad(f)(x), [0.0, 1.0, 2.0])
