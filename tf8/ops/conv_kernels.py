"""The numpy kernel of `conv_general_dilated`: patches copied once, then BLAS products.

The operands are read in the canonical layouts (lhs `N, C, spatial...`, rhs `O, I,
spatial...`; transposes are views), the lhs is dilated and padded into one zero-filled
array (on the folded path below, the patch copy writes the padding), and the windows are a
strided view of it (`sliding_window_view`, every `rhs_dilation`-th element of every
`window_strides`-th window). That view is copied once into a matrix of patches and
multiplied by the kernel as a matrix (one BLAS `gemm` per feature or batch group), in one of
two layouts:
- `(C*K, S)` per example, when the output has more positions `S` than the window has
  elements `K` (a forward convolution): `(O, C*K) @ (C*K, S)`, landing in `N, O, S` order;
  with a unit stride along the first spatial axis (`_folded_products`) the window's first
  axis stays out of the copy: one product per offset along it, each reading rows of the
  patches in place, a copy 1/K1 the size, which also writes the padding (no padded copy of
  the lhs: 0.91x the time at the shapes below);
- `(S, C*K)` otherwise (the gradient with respect to a kernel, whose "window" is the whole
  image): `(N*S, C*K) @ (C*K, O)`.
Problems are cut along the batch so the patches stay in cache (`PATCH_ELEMENTS`).

Measured at ResNet-like shapes (lhs (16, 64, 32, 32), rhs (64, 64, 3, 3), 'SAME', float64,
one BLAS thread, against jax.jit on one XLA thread, alternating runs on a shared 2-core
machine): the forward 1.1-1.2x JAX's time (the BLAS products alone take about JAX's time;
the rest is the patch copy and the sums over the folded axis), the gradient in both operands
0.8-0.9x.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

# elements of the patch matrix built at once: 8 MiB of float64, so it stays in cache between
# its copy and its product (one example of the ResNet-like case: 1.3x faster than all 16)
PATCH_ELEMENTS = 1 << 20
FOLDED_ELEMENTS = 1 << 18  # the same for the folded patches (`_folded_products`): 2 MiB

Pairs = Sequence[tuple[int, int]]


def dilate_dim(size: int, dilation: int) -> int:
    """The size of an axis of `size` elements with `dilation - 1` holes between neighbours."""
    return max(0, 1 + dilation * (size - 1))


def dilate_and_pad(x: np.ndarray, dilation: Sequence[int], padding: Pairs) -> np.ndarray:
    """`x` (canonical `N, C, spatial...`) with `dilation - 1` zeros between its spatial
    elements and `padding` zeros around them (negative padding crops)."""
    if all(d == 1 for d in dilation) and all(lo == hi == 0 for lo, hi in padding):
        return x
    spatial = x.shape[2:]
    grown = [
        max(lo, 0) + dilate_dim(n, d) + max(hi, 0)
        for n, d, (lo, hi) in zip(spatial, dilation, padding)
    ]
    out = np.zeros(x.shape[:2] + tuple(grown), x.dtype)
    inner = tuple(
        slice(max(lo, 0), max(lo, 0) + dilate_dim(n, d), d)
        for n, d, (lo, _) in zip(spatial, dilation, padding)
    )
    out[(slice(None), slice(None)) + inner] = x
    crop = tuple(slice(-min(lo, 0), g + min(hi, 0)) for g, (lo, hi) in zip(grown, padding))
    return out[(slice(None), slice(None)) + crop]


def convolve(
    lhs: np.ndarray,
    rhs: np.ndarray,
    window_strides: Sequence[int],
    padding: Pairs,
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
    dimension_numbers: tuple[Sequence[int], Sequence[int], Sequence[int]],
    feature_group_count: int = 1,
    batch_group_count: int = 1,
) -> np.ndarray:
    """XLA's convolution of `lhs` by `rhs` (the parameters as `lax.conv_general_dilated`'s
    primitive takes them: explicit padding pairs, dimension numbers as permutations)."""
    dtype = lhs.dtype
    if dtype == np.float16:  # accumulate in float32, as XLA does
        lhs, rhs = lhs.astype(np.float32), rhs.astype(np.float32)
    lhs_spec, rhs_spec, out_spec = (tuple(s) for s in dimension_numbers)
    x, w = lhs.transpose(lhs_spec), rhs.transpose(rhs_spec)
    groups = feature_group_count * batch_group_count
    n, c = x.shape[0] // batch_group_count, x.shape[1] // feature_group_count
    o, kernel = w.shape[0], w.shape[2:]
    window = [dilate_dim(k, d) for k, d in zip(kernel, rhs_dilation)]
    grown = [
        max(0, lo + dilate_dim(size, d) + hi)
        for size, d, (lo, hi) in zip(x.shape[2:], lhs_dilation, padding)
    ]
    out_spatial = [max(0, (p - k) // s + 1) for p, k, s in zip(grown, window, window_strides)]
    if not (math.prod(out_spatial) and n and o and c and math.prod(kernel)):
        out = np.zeros((n, o, *out_spatial), x.dtype)  # no product, or an empty sum
    else:
        out = np.empty((n, o, *out_spatial), x.dtype)
        folds = window_strides[0] == 1 and kernel[0] > 1
        if folds and math.prod(out_spatial) >= math.prod(kernel):
            if any(d != 1 for d in lhs_dilation) or any(min(p) < 0 for p in padding):
                x, padding = dilate_and_pad(x, lhs_dilation, padding), ((0, 0),) * len(kernel)
            _folded_products(x, padding, w, window_strides, rhs_dilation, groups, out)
        else:
            x = dilate_and_pad(x, lhs_dilation, padding)
            _products(x, w, window, window_strides, rhs_dilation, groups, batch_group_count, out)
    out = out.astype(dtype, copy=False)
    if out_spec == tuple(range(out.ndim)):
        return out  # an array of its own: the engines need not copy a view
    return out.transpose(np.argsort(out_spec))


def _products(
    x: np.ndarray,
    w: np.ndarray,
    window: Sequence[int],
    strides: Sequence[int],
    rhs_dilation: Sequence[int],
    groups: int,
    batch_groups: int,
    out: np.ndarray,
) -> None:
    """`out` (canonical `n, O, S...`) = the grouped products of the windows of `x` by `w`."""
    rank = len(window)
    spatial = tuple(range(2, 2 + rank))
    views = sliding_window_view(x, window, axis=spatial)  # N, C, positions..., window...
    step = tuple(slice(None, None, s) for s in strides) + tuple(
        slice(None, None, d) for d in rhs_dilation
    )
    views = views[(slice(None), slice(None)) + step]  # N, C, S..., K...
    n, o = out.shape[:2]
    c = x.shape[1] // (groups // batch_groups)
    s_axes, k_axes = spatial, tuple(range(2 + rank, 2 + 2 * rank))
    s_size, k_size = math.prod(out.shape[2:]), math.prod(views.shape[2 + rank :])
    # examples first, then groups: a batch group is a block of examples, a feature group a
    # block of features (at most one of the two counts exceeds 1)
    views = views.reshape(batch_groups, n, groups // batch_groups, c, *views.shape[2:])
    kernels = w.reshape(groups, o // groups, c * k_size)
    result = out.reshape(n, groups, o // groups, s_size)
    per_example = c * k_size * s_size * groups
    block = max(1, PATCH_ELEMENTS // max(per_example, 1))
    for start in range(0, n, block):
        part = views[:, start : start + block]
        m = part.shape[1]
        grouped = part.transpose(0, 2, 1, *range(3, part.ndim))  # B, G, m, c, S..., K...
        if s_size >= k_size:  # patches (c*K, S) per example: kernel @ patches
            axes = (0, 1, 2, 3, *(a + 2 for a in k_axes), *(a + 2 for a in s_axes))
            patches = np.ascontiguousarray(grouped.transpose(axes))
            patches = patches.reshape(groups, m, c * k_size, s_size)
            target = result[start : start + m].transpose(1, 0, 2, 3)  # groups, m, O/g, S
            np.matmul(kernels[:, None], patches, out=target)
        else:  # patches (S, c*K): patches @ kernel^T
            axes = (0, 1, 2, *(a + 2 for a in s_axes), 3, *(a + 2 for a in k_axes))
            patches = np.ascontiguousarray(grouped.transpose(axes))
            patches = patches.reshape(groups, m * s_size, c * k_size)
            product = np.matmul(patches, kernels.transpose(0, 2, 1))  # groups, m*S, O/g
            product = product.reshape(groups, m, s_size, o // groups)
            result[start : start + m] = product.transpose(1, 0, 3, 2)


def _folded_products(
    x: np.ndarray,
    padding: Pairs,
    w: np.ndarray,
    strides: Sequence[int],
    rhs_dilation: Sequence[int],
    groups: int,
    out: np.ndarray,
) -> None:
    """`_products` with the window's first axis left out of the patches, for a unit stride
    along that axis: the patches (c, K' = the other window axes) x (every row of the padded
    first axis, S' = the other output axes) are copied once, and for each offset k of the
    window's first axis the rows `k*d ... k*d + rows` of them are a plain strided matrix
    (no copy), multiplied by the kernel's slice k and summed. The copy is 1/K1 of im2col's:
    1.05-1.2x faster at the ResNet-like shapes (3 products of 192 contracted features instead
    of one of 576). The (non-negative) `padding` of `x` is written by the copy itself: zeros
    where a window offset reads outside `x`, saving a padded copy of the operand."""
    n, o = out.shape[:2]
    batch_groups = x.shape[0] // n
    rows, kernel, others_shape = out.shape[2], w.shape[2:], out.shape[3:]
    c = x.shape[1] // (groups // batch_groups)
    others, folded = math.prod(others_shape), math.prod(kernel[1:])  # S', K'
    (top, bottom), size = padding[0], x.shape[2]
    padded_rows = top + size + bottom
    # per offset along the other window axes: where it lands in the patches, whence it comes
    copies = []
    for offset in np.ndindex(*kernel[1:]):
        spans = [
            _inside(*args)
            for args in zip(
                x.shape[3:], others_shape, strides[1:], offset, rhs_dilation[1:], padding[1:]
            )
        ]
        if all(spans):
            copies.append((offset, [to for to, _ in spans], [whence for _, whence in spans]))
    x = x.reshape(batch_groups, n, groups // batch_groups, c, *x.shape[2:])
    # kernel slices: (K1, groups, 1, O/g, c*K')
    kernels = np.ascontiguousarray(
        np.moveaxis(w.reshape(groups, o // groups, c, *kernel), 3, 0)
    ).reshape(kernel[0], groups, 1, o // groups, c * folded)
    result = out.reshape(n, groups, o // groups, rows * others)
    block = max(1, FOLDED_ELEMENTS // max(groups * c * folded * padded_rows * others, 1))
    every = (slice(None),) * 4
    for start in range(0, n, block):
        part = x[:, start : start + block]
        m = part.shape[1]
        part = part.transpose(0, 2, 1, *range(3, part.ndim))  # B, G, m, c, spatial...
        # B, G, m, c, window..., P1, positions...
        patches = np.zeros((*part.shape[:4], *kernel[1:], padded_rows, *others_shape), x.dtype)
        for offset, to, whence in copies:
            patches[(*every, *offset, slice(top, top + size), *to)] = part[
                (*every, slice(None), *whence)
            ]
        patches = patches.reshape(groups, m, c * folded, padded_rows * others)
        target = result[start : start + m].transpose(1, 0, 2, 3)  # groups, m, O/g, S
        scratch = np.empty(target.shape, target.dtype)
        for k in range(kernel[0]):
            first = k * rhs_dilation[0] * others
            rows_k = patches[..., first : first + rows * others]
            np.matmul(kernels[k], rows_k, out=target if k == 0 else scratch)
            if k:
                target += scratch


def _inside(
    size: int, positions: int, stride: int, offset: int, dilation: int, pad: tuple[int, int]
) -> tuple[slice, slice] | None:
    """Along one axis, the output positions whose window element `offset` falls inside the
    operand (of `size`, padded by `pad` in front), and the operand elements they read; None
    when there are none."""
    shift = offset * dilation - pad[0]  # position s reads element s * stride + shift
    first = max(0, -(shift // stride))
    last = min(positions - 1, (size - 1 - shift) // stride)
    if last < first:
        return None
    begin = first * stride + shift
    return slice(first, last + 1), slice(begin, begin + (last - first) * stride + 1, stride)
