"""A loop reference and random cases for `conv_general_dilated`.

The reference walks every output element and every term of its sum in Python, from XLA's
definition: the lhs dilated by `lhs_dilation` (holes are zeros) and padded (negative padding
crops); output position o of a spatial axis reads the padded lhs at `o * stride + k *
rhs_dilation` for kernel offset k; a feature group g pairs input features `g*C/G ...` with
output features `g*O/G ...`, a batch group b pairs examples `b*N/B ...` with output features
`b*O/B ...`. It shares no code with tf8's kernel. `conv_generators(Case)` gives
catalog_cases.py its generator (Case is handed in: this module imports nothing of it).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np


def _canonical_shape(shape: tuple[int, ...], spec: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(shape[a] for a in spec)


def output_shape(x_shape, w_shape, params) -> tuple[int, ...]:
    """The output shape, from the definition (in the output spec's layout)."""
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    n, _, *spatial = _canonical_shape(x_shape, lhs_spec)
    o, _, *kernel = _canonical_shape(w_shape, rhs_spec)
    sizes = []
    for size, k, s, (lo, hi), ld, rd in zip(
        spatial,
        kernel,
        params["window_strides"],
        params["padding"],
        params["lhs_dilation"],
        params["rhs_dilation"],
    ):
        grown = lo + hi + (0 if size == 0 else (size - 1) * ld + 1)
        span = 0 if k == 0 else (k - 1) * rd + 1
        sizes.append(0 if grown < span else (grown - span) // s + 1)
    canonical = (n // params.get("batch_group_count", 1), o, *sizes)
    out = [0] * len(canonical)
    for size, axis in zip(canonical, out_spec):
        out[axis] = size
    return tuple(out)


def conv_reference(x: np.ndarray, w: np.ndarray, params: dict) -> np.ndarray:
    """The convolution computed term by term (Python ints for integer dtypes, so overflow
    wraps as in the dtype; complex128/float64 otherwise), cast to the operands' dtype."""
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    groups = params.get("feature_group_count", 1)
    batch_groups = params.get("batch_group_count", 1)
    xc, wc = x.transpose(lhs_spec), w.transpose(rhs_spec)
    wide = object if x.dtype.kind in "iub" else np.complex128
    out_shape = output_shape(x.shape, w.shape, params)
    canonical = tuple(out_shape[a] for a in out_spec)
    out = np.zeros(canonical, wide)
    n_out, o_count = canonical[:2]
    per_group = xc.shape[1] // groups
    o_per_group = o_count // (groups * batch_groups)
    for index in itertools.product(*(range(s) for s in canonical)):
        n, o, *position = index
        group = o // o_per_group
        example = (group if batch_groups > 1 else 0) * n_out + n
        first = (group if groups > 1 else 0) * per_group
        total = 0
        for i in range(wc.shape[1]):
            for k in itertools.product(*(range(s) for s in wc.shape[2:])):
                source = []
                for p, kk, s, (lo, _), ld, rd, size in zip(
                    position,
                    k,
                    params["window_strides"],
                    params["padding"],
                    params["lhs_dilation"],
                    params["rhs_dilation"],
                    xc.shape[2:],
                ):
                    q = p * s + kk * rd - lo
                    if q < 0 or q % ld or q // ld >= size:
                        break
                    source.append(q // ld)
                else:
                    a = xc[(example, first + i, *source)]
                    b = wc[(o, i, *k)]
                    total += (int(a) * int(b)) if wide is object else complex(a) * complex(b)
        out[index] = total
    if wide is object:
        bits = np.iinfo(x.dtype).bits if x.dtype.kind in "iu" else 64
        wrapped = [(int(v) % (1 << bits)) for v in out.ravel()]
        signed = x.dtype.kind == "i"
        half = 1 << (bits - 1)
        values = [v - (1 << bits) if signed and v >= half else v for v in wrapped]
        result = np.array(values, dtype=np.int64 if signed else np.uint64).reshape(out.shape)
        result = result.astype(x.dtype)
    elif x.dtype.kind == "c":
        result = out.astype(x.dtype)
    else:
        result = out.real.astype(x.dtype)
    return result.transpose(np.argsort(out_spec))


def draw_params(d: Any, spatial: int, shapes: bool = True) -> tuple[tuple, tuple, dict]:
    """Random (lhs shape, rhs shape, parameters): 1 or 2 spatial axes, strides, padding
    (negative too), dilations, group counts and dimension numbers in random layouts."""
    groups = d.choice([1, 1, 2])
    batch_groups = 1 if groups > 1 else d.choice([1, 1, 2])
    n = batch_groups * d.int(0, 2)
    per_group = d.int(1, 2)
    o = groups * batch_groups * d.int(1, 2)
    kernel = [d.int(1, 3) for _ in range(spatial)]
    sizes = [d.int(1, 5) for _ in range(spatial)]
    params = {
        "window_strides": tuple(d.int(1, 2) for _ in range(spatial)),
        "padding": tuple((d.int(-1, 2), d.int(-1, 2)) for _ in range(spatial)),
        "lhs_dilation": tuple(d.int(1, 2) for _ in range(spatial)),
        "rhs_dilation": tuple(d.int(1, 2) for _ in range(spatial)),
        "feature_group_count": groups,
        "batch_group_count": batch_groups,
    }
    # a crop may not exceed the dilated size
    params["padding"] = tuple(
        (max(lo, -(((s - 1) * ld + 1) // 2)), max(hi, -(((s - 1) * ld + 1) // 2)))
        for (lo, hi), s, ld in zip(params["padding"], sizes, params["lhs_dilation"])
    )
    specs = tuple(tuple(int(a) for a in d.permutation(range(spatial + 2))) for _ in range(3))
    params["dimension_numbers"] = specs
    lhs = [0] * (spatial + 2)
    for size, axis in zip((n, groups * per_group, *sizes), specs[0]):
        lhs[axis] = size
    rhs = [0] * (spatial + 2)
    for size, axis in zip((o, per_group, *kernel), specs[1]):
        rhs[axis] = size
    return tuple(lhs), tuple(rhs), params


def conv_generators(case: type) -> dict[str, Callable]:
    """catalog_cases' generator of the row (`case` is its Case class): values in quarters,
    so sums in any order are exact in every float dtype."""

    def gen(d: Any, dtype: np.dtype) -> Any:
        lhs, rhs, params = draw_params(d, d.int(1, 2))
        x, w = d.array(dtype, lhs, -2, 2), d.array(dtype, rhs, -2, 2)
        if x.dtype.kind in "fc":
            x, w = (np.round(a * 4) / 4 for a in (x, w))
            x, w = x.astype(dtype), w.astype(dtype)
        return case([x, w], params, lambda: conv_reference(x, w, params))

    return {"conv_general_dilated": gen}
