"""tf8.lax's convolutions against a term-by-term loop reference (tests/ops/conv_cases.py):
strides, padding kinds, dilations, feature and batch groups, 1 to 3 spatial axes, dimension
number layouts, dtypes; the wrappers (conv_transpose, patches, local); the shape functions
against JAX's answers; the kernel's two patch layouts and its batch blocks; and the errors.

Derivatives, vmap and the engines: test_convolution_transforms.py."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))
from conv_cases import conv_reference  # noqa: E402

import tf8  # noqa: E402
from tf8 import lax  # noqa: E402
from tf8.errors import DTypeError, ParameterError, ShapeError  # noqa: E402
from tf8.ops import conv_kernels  # noqa: E402

RNG = np.random.default_rng(31)


def explicit(kind, sizes, window, strides):
    """XLA's 'SAME'/'SAME_LOWER'/'VALID' as pairs, written out from the definition."""
    if kind == "VALID":
        return tuple((0, 0) for _ in sizes)
    pads = []
    for n, k, s in zip(sizes, window, strides):
        total = max((-(-n // s) - 1) * s + k - n, 0)
        lo, hi = total // 2, total - total // 2
        pads.append((lo, hi) if kind == "SAME" else (hi, lo))
    return tuple(pads)


def reference(x, w, strides, padding, lhs_dil, rhs_dil, specs, groups=1, batch_groups=1):
    lhs_spec, rhs_spec, _ = specs
    if isinstance(padding, str):
        sizes = [x.shape[a] for a in lhs_spec[2:]]
        window = [(w.shape[a] - 1) * d + 1 for a, d in zip(rhs_spec[2:], rhs_dil)]
        padding = explicit(padding, sizes, window, strides)
    params = dict(
        window_strides=strides,
        padding=padding,
        lhs_dilation=lhs_dil,
        rhs_dilation=rhs_dil,
        dimension_numbers=specs,
        feature_group_count=groups,
        batch_group_count=batch_groups,
    )
    return conv_reference(x, w, params)


def operands(spatial, groups, batch_groups, sizes, kernel, specs, dtype=np.float64):
    n, per, o = 2 * batch_groups, 2, 2 * groups * batch_groups
    canonical_x, canonical_w = (n, groups * per, *sizes), (o, per, *kernel)
    x_shape, w_shape = [0] * (spatial + 2), [0] * (spatial + 2)
    for size, axis in zip(canonical_x, specs[0]):
        x_shape[axis] = size
    for size, axis in zip(canonical_w, specs[1]):
        w_shape[axis] = size
    return RNG.uniform(-1, 1, x_shape).astype(dtype), RNG.uniform(-1, 1, w_shape).astype(dtype)


CONFIGS = [
    # spatial, strides, padding, lhs dilation, rhs dilation, groups, batch groups, layout
    (1, (1,), "SAME", (1,), (1,), 1, 1, None),
    (1, (2,), "VALID", (1,), (2,), 1, 1, ("NHC", "HIO", "NHC")),
    (1, (3,), ((2, -1),), (2,), (1,), 2, 1, ("HNC", "OHI", "CHN")),
    (1, (1,), "SAME_LOWER", (1,), (3,), 1, 2, None),
    (2, (1, 1), "SAME", (1, 1), (1, 1), 1, 1, None),
    (2, (2, 1), "SAME", (1, 1), (2, 1), 1, 1, ("NHWC", "HWIO", "NHWC")),
    (2, (1, 2), "VALID", (1, 1), (1, 2), 3, 1, ("NCHW", "HWIO", "NHWC")),
    (2, (2, 2), ((1, 0), (-1, 2)), (2, 1), (1, 1), 1, 2, ("CHWN", "IOWH", "WHNC")),
    (2, (1, 1), ((0, 0), (0, 0)), (3, 2), (2, 2), 2, 1, None),
    (2, (1, 3), "SAME_LOWER", (1, 1), (1, 1), 1, 3, ("NHWC", "OIHW", "NCHW")),
    (3, (1, 1, 1), "SAME", (1, 1, 1), (1, 1, 1), 1, 1, None),
    (3, (2, 1, 1), "VALID", (1, 1, 1), (1, 2, 1), 2, 1, ("NDHWC", "DHWIO", "NDHWC")),
    (3, (1, 1, 2), ((1, 1), (0, -1), (2, 0)), (1, 2, 1), (1, 1, 1), 1, 2, None),
]


def _specs(spatial, layout):
    return lax.conv_dimension_numbers((0,) * (spatial + 2), (0,) * (spatial + 2), layout)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}d-{c[2]}-g{c[5]}b{c[6]}")
def test_values_match_the_loop_reference(config):
    spatial, strides, padding, lhs_dil, rhs_dil, groups, batch_groups, layout = config
    specs = _specs(spatial, layout)
    sizes, kernel = (5, 4, 3)[:spatial], (2, 3, 2)[:spatial]
    x, w = operands(spatial, groups, batch_groups, sizes, kernel, specs)
    got = lax.conv_general_dilated(
        x, w, strides, padding, lhs_dil, rhs_dil, layout, groups, batch_groups
    )
    expected = reference(x, w, strides, padding, lhs_dil, rhs_dil, specs, groups, batch_groups)
    assert got.shape == expected.shape and got.dtype == np.float64
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.complex128, np.int32, np.uint8])
def test_dtypes_keep_the_operands_dtype(dtype):
    specs = _specs(2, None)
    x, w = operands(2, 1, 1, (4, 5), (2, 2), specs)
    if np.dtype(dtype).kind in "iu":
        x, w = (np.abs(x) * 50).astype(dtype), (np.abs(w) * 50).astype(dtype)  # uint8 wraps
    elif np.dtype(dtype).kind == "c":
        x, w = (x + 1j * x[::-1]).astype(dtype), (w - 0.5j).astype(dtype)
    else:
        x, w = (np.round(x * 4) / 4).astype(dtype), (np.round(w * 4) / 4).astype(dtype)
    got = lax.conv_general_dilated(x, w, (1, 1), "SAME")
    assert got.dtype == dtype
    expected = reference(x, w, (1, 1), "SAME", (1, 1), (1, 1), specs)
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6)


def test_bool_operands_give_any_product():
    x, w = RNG.uniform(size=(1, 2, 5, 5)) > 0.8, RNG.uniform(size=(3, 2, 2, 2)) > 0.7
    got = lax.conv(x, w, (1, 1), "VALID")
    counts = lax.conv(x.astype(np.int64), w.astype(np.int64), (1, 1), "VALID")
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(np.asarray(got), np.asarray(counts) > 0)


def test_preferred_element_type_converts_first_and_is_checked_as_in_jax():
    x, w = RNG.uniform(-1, 1, (1, 2, 4, 4)), RNG.uniform(-1, 1, (3, 2, 2, 2))
    wide = lax.conv(x.astype(np.float32), w.astype(np.float32), (1, 1), "SAME", None, np.float64)
    assert wide.dtype == np.float64
    ints = lax.conv(
        (x * 9).astype(np.int32), (w * 9).astype(np.int32), (1, 1), "SAME", None, "float32"
    )
    assert ints.dtype == np.float32
    with pytest.raises(DTypeError, match="narrower"):
        lax.conv(x, w, (1, 1), "SAME", preferred_element_type=np.float32)
    with pytest.raises(DTypeError, match="incompatible"):
        lax.conv(x, w, (1, 1), "SAME", preferred_element_type=np.int64)


def test_conv_transpose_with_transpose_kernel_is_the_gradient_of_conv():
    """Keras' Conv2DTranspose: the gradient of a strided 'SAME' convolution w.r.t. its input."""
    x, w = RNG.uniform(-1, 1, (2, 6, 6, 3)), RNG.uniform(-1, 1, (3, 3, 3, 4))
    numbers = ("NHWC", "HWIO", "NHWC")
    forward = lambda v: lax.conv_general_dilated(v, w, (2, 2), "SAME", dimension_numbers=numbers)  # noqa: E731
    y, pullback = tf8.vjp(forward, x)
    ct = RNG.uniform(-1, 1, y.shape)
    (grad,) = pullback(ct)
    got = lax.conv_transpose(
        ct, w, (2, 2), "SAME", dimension_numbers=numbers, transpose_kernel=True
    )
    np.testing.assert_allclose(np.asarray(got), np.asarray(grad), rtol=1e-12, atol=1e-12)


def test_patches_hold_each_window_and_local_convolution_uses_a_kernel_per_position():
    x = RNG.uniform(-1, 1, (2, 3, 5, 4))
    patches = np.asarray(lax.conv_general_dilated_patches(x, (2, 3), (1, 1), "VALID"))
    assert patches.shape == (2, 3 * 6, 4, 2)
    for i, j in np.ndindex(4, 2):
        window = x[:, :, i : i + 2, j : j + 3].reshape(2, -1)  # (feature, window row, column)
        np.testing.assert_array_equal(patches[:, :, i, j], window)
    w = RNG.uniform(-1, 1, (5, 18, 4, 2))  # (out feature, patch, output position)
    local = np.asarray(lax.conv_general_dilated_local(x, w, (1, 1), "VALID", (2, 3)))
    expected = np.einsum("npij,opij->noij", patches, w)
    np.testing.assert_allclose(local, expected, rtol=1e-12)


def test_shape_functions_match_jax():
    # the right-hand sides were printed by jax 0.10.2 (jax.lax, x64)
    assert lax.conv_shape_tuple((2, 3, 9, 9), (4, 3, 3, 3), (2, 2), "SAME") == (2, 4, 5, 5)
    assert lax.conv_shape_tuple((4, 3, 9, 7), (4, 3, 3, 2), (1, 2), ((1, 0), (2, 2)), 2) == (
        2,
        4,
        8,
        5,
    )
    assert lax.conv_shape_tuple((-1, 3, 8), (6, 3, 3), (3,), "VALID") == (-1, 6, 2)
    numbers = ("NHWC", "HWIO", "NHWC")
    assert lax.conv_general_shape_tuple((1, 8, 7, 3), (3, 2, 3, 5), (1, 2), "VALID", numbers) == (
        1,
        6,
        3,
        5,
    )
    assert lax.conv_transpose_shape_tuple((1, 4, 5, 3), (3, 3, 3, 5), (2, 2), "SAME", numbers) == (
        1,
        8,
        10,
        5,
    )
    assert lax.conv_transpose_shape_tuple((1, 4, 5, 3), (3, 2, 3, 5), (2, 3), "VALID", numbers) == (
        1,
        9,
        15,
        5,
    )
    assert lax.conv_transpose_shape_tuple(
        (2, 3, 4, 5), (4, 3, 2, 2), (2, 1), ((1, 0), (0, 1)), ("NCHW", "OIHW", "NCHW")
    ) == (2, 4, 7, 5)
    assert lax.conv_general_permutations(("NCHW", "OIWH", "CWNH")) == (
        (0, 1, 3, 2),
        (0, 1, 2, 3),
        (2, 0, 1, 3),
    )
    assert lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), ("NWC", "WIO", "NWC")) == (
        lax.ConvDimensionNumbers((0, 2, 1), (2, 1, 0), (0, 2, 1))
    )


@pytest.mark.parametrize("layout", ["KS", "SK"])
def test_kernel_in_batch_blocks_matches_one_block(monkeypatch, layout):
    """Both patch layouts (more positions than window elements, and fewer), cut in blocks."""
    kernel = (2, 2) if layout == "KS" else (5, 5)
    x, w = RNG.uniform(-1, 1, (5, 4, 6, 6)), RNG.uniform(-1, 1, (4, 2, *kernel))
    args = ((1, 1), ((1, 1), (0, 1)), (1, 1), (1, 1), ((0, 1, 2, 3),) * 3, 2, 1)
    whole = conv_kernels.convolve(x, w, *args)
    monkeypatch.setattr(conv_kernels, "PATCH_ELEMENTS", 50)  # one example per block
    np.testing.assert_allclose(conv_kernels.convolve(x, w, *args), whole, rtol=1e-13)
    params = dict(zip(("window_strides", "padding", "lhs_dilation", "rhs_dilation"), args[:4]))
    expected = conv_reference(
        x, w, {**params, "dimension_numbers": args[4], "feature_group_count": 2}
    )
    np.testing.assert_allclose(whole, expected, rtol=1e-12)


def test_empty_operands_give_empty_or_zero_results():
    w = RNG.uniform(-1, 1, (3, 2, 2, 2))
    assert lax.conv(np.zeros((0, 2, 4, 4)), w, (1, 1), "SAME").shape == (0, 3, 4, 4)
    out = lax.conv(np.ones((1, 0, 4, 4)), np.ones((3, 0, 2, 2)), (1, 1), "VALID")
    np.testing.assert_array_equal(np.asarray(out), np.zeros((1, 3, 3, 3)))
    assert lax.conv(np.ones((1, 2, 1, 1)), w, (1, 1), "VALID").shape == (1, 3, 0, 0)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda x, w: lax.conv(x, w[:, :1], (1, 1), "SAME"),
            ShapeError,
            r"feature size 2 .* input feature size 1",
        ),
        (
            lambda x, w: lax.conv(x, w[..., 0], (1, 1), "SAME"),
            ShapeError,
            r"one rank.*\(1, 2, 5, 5\).*\(3, 2, 2\)",
        ),
        (
            lambda x, w: lax.conv(x.astype(np.float32), w, (1, 1), "SAME"),
            DTypeError,
            "float32.*float64",
        ),
        (
            lambda x, w: lax.conv(x, w, (1,), "SAME"),
            ParameterError,
            r"window_strides must have 2 entries",
        ),
        (
            lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=2),
            ShapeError,
            r"divided by feature_group_count 2",
        ),
        (
            lambda x, w: lax.conv_general_dilated(
                x, np.ones((4, 2, 1, 1)), (1, 1), "SAME", batch_group_count=2
            ),
            ShapeError,
            r"batch_group_count 2 must divide the lhs batch size 1",
        ),
        (
            lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", (2, 2)),
            ParameterError,
            "string padding .* lhs_dilation",
        ),
        (
            lambda x, w: lax.conv_general_dilated(
                x, w, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHX")
            ),
            ParameterError,
            "same spatial axes",
        ),
        (lambda x, w: lax.conv(x, w, (1, 1), "FULL"), ParameterError, "unknown padding 'FULL'"),
        (
            lambda x, w: lax.conv_general_dilated(
                x,
                w,
                (1, 1),
                "SAME",
                dimension_numbers=lax.ConvDimensionNumbers(
                    (0, 1, 2, 7), (0, 1, 2, 3), (0, 1, 2, 3)
                ),
            ),
            ParameterError,
            r"three permutations of range\(4\)",
        ),
        (
            lambda x, w: lax.conv(x, w, (1, 1), ((-4, -3), (0, 0))),
            ShapeError,
            "crops lhs spatial axis 2",
        ),
        (
            lambda x, w: lax.conv(x, w, (0, 1), "VALID"),
            ParameterError,
            "window_strides must be 2 positive",
        ),
    ],
)
def test_bad_input_raises_tf8_errors_naming_the_problem(call, error, message):
    x, w = np.ones((1, 2, 5, 5)), np.ones((3, 2, 2, 2))
    with pytest.raises(error, match=message):
        call(x, w)
