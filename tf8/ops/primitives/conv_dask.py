"""`conv_general_dilated` on the Dask engine: blockwise along the batch, the features and the
kernel's output features, summed over blocks of the contracted features.

A block of examples convolves independently of the others, and a block of input features
contributes its own partial sum, so the lhs keeps its chunks along its batch and feature
axes, the rhs along its output features, and the rhs input features are cut as the lhs
features are. A window spans its spatial axes, so those are one chunk per block (rechunked:
the data of one block of examples, never the whole array), and so are the axes a feature or
batch group count interleaves. The numpy kernel runs once per pair of blocks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8.ops.avals import Aval
from tf8.ops.conv_kernels import convolve
from tf8.ops.definition import infer
from tf8.ops.fpstate import ignore_fp_errors, restore_fp_errors

# blockwise index names: n, c, o for the batch and the (input, output) features, and these
# for the lhs's (and output's) spatial axes and the kernel's
WINDOW, KERNEL = "ABCDEFGHIJKLM", "NOPQRSTUVWXYZ"


class ConvBlocks:
    """A task: the kernel on one lhs block and one rhs block, its result given a leading axis
    of length 1 (one block of the contracted features). Picklable: it carries the op; its
    dask token is the op's fingerprint key."""

    __slots__ = ("op",)

    def __init__(self, op: Any) -> None:
        self.op = op

    def __call__(self, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        token = ignore_fp_errors()
        try:
            return convolve(x, w, **{k: self.op[k] for k in self.op.row.params})[None]
        finally:
            restore_fp_errors(token)

    def __dask_tokenize__(self) -> tuple[str, str]:
        return type(self).__name__, self.op.key()


def _whole(array: Any, axes: set[int], **aligned: Any) -> Any:
    """`array` rechunked to one chunk along `axes` (and to given chunks along others)."""
    target = {a: -1 for a in axes if len(array.chunks[a]) > 1}
    target.update({int(a): c for a, c in aligned.items() if array.chunks[int(a)] != c})
    return array.rechunk(target) if target else array


def conv_dask(kit: Any, op: Any, x: Any, w: Any) -> Any:
    """The lazy convolution of dask arrays `x` and `w` (the `Fusion.dask` of the row)."""
    x, w = kit.as_dask(x), kit.as_dask(w)
    avals = [Aval(tuple(v.shape), np.dtype(v.dtype)) for v in (x, w)]
    (out,) = infer(op, avals)
    lhs_spec, rhs_spec, out_spec = op["dimension_numbers"]
    groups, batch_groups = op["feature_group_count"], op["batch_group_count"]
    grouped = groups * batch_groups > 1
    x = _whole(
        x,
        set(lhs_spec[2:])
        | ({lhs_spec[0]} if batch_groups > 1 else set())
        | ({lhs_spec[1]} if groups > 1 else set()),
    )
    w_whole = set(rhs_spec[2:]) | ({rhs_spec[0]} if grouped else set())
    if groups > 1:  # the rhs holds one group's input features: whole, as the lhs's are
        w = _whole(w, w_whole | {rhs_spec[1]})
    else:
        w = _whole(w, w_whole, **{str(rhs_spec[1]): x.chunks[lhs_spec[1]]})
    spatial = len(lhs_spec) - 2
    batch, feature, out_feature = "n", "c", "o"
    window = list(WINDOW[:spatial])  # the lhs's spatial axes, then the output's
    kernel = list(KERNEL[:spatial])
    x_index = [""] * x.ndim
    for axis, name in zip(lhs_spec, [batch, feature, *window]):
        x_index[axis] = name
    w_index = [""] * w.ndim
    # a feature group's kernel holds C/G input features: its own (whole) index then
    in_feature = feature if groups == 1 else "i"
    for axis, name in zip(rhs_spec, [out_feature, in_feature, *kernel]):
        w_index[axis] = name
    out_index = [""] * x.ndim
    for axis, name in zip(out_spec, [batch, out_feature, *window]):
        out_index[axis] = name
    sizes = {name: out.shape[out_spec[2 + i]] for i, name in enumerate(window)}
    if batch_groups > 1:
        sizes[batch] = out.shape[out_spec[0]]
    blocks = kit.array.blockwise(
        ConvBlocks(op),
        (feature, *out_index),
        x,
        tuple(x_index),
        w,
        tuple(w_index),
        adjust_chunks={feature: lambda _: 1, **sizes},
        dtype=out.dtype,
        meta=np.empty((0,) * (x.ndim + 1), out.dtype),
        concatenate=True,
    )
    if blocks.shape[0] == 1:
        return blocks[0]
    return blocks.sum(axis=0, dtype=out.dtype)
