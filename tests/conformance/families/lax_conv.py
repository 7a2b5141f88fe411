"""`jax.lax`'s convolutions: `conv_general_dilated` over strides, padding kinds (strings,
pairs, negative pairs), lhs and rhs dilation, feature and batch group counts, 1 to 3
spatial axes and dimension-number layouts (strings, None, `ConvDimensionNumbers`); the
dtypes (float32, complex, integers, bool, float16, `preferred_element_type`); `conv`,
`conv_with_general_padding`, `conv_transpose` (with `transpose_kernel` and
`use_consistent_padding`), the patches and the unshared (local) convolution; and the
refusals (feature counts that do not fit, both group counts above 1, mixed dtypes).

Shapes are small: each float case records its derivatives to second order."""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import numpy as np

from ..spec import Case, Static, program

LAYOUTS = {
    1: [None, ("NCH", "OIH", "NCH"), ("NHC", "HIO", "NHC"), ("HNC", "OHI", "CHN")],
    2: [
        None,
        ("NCHW", "OIHW", "NCHW"),
        ("NHWC", "HWIO", "NHWC"),
        ("NCHW", "HWIO", "NHWC"),
        ("CHWN", "IOWH", "WHNC"),
    ],
    3: [None, ("NDHWC", "DHWIO", "NDHWC"), ("NCDHW", "OIDHW", "NCDHW")],
}


@program("lax.conv_general_dilated[numbers]")
def _with_numbers(root):
    """Dimension numbers given as a ConvDimensionNumbers of permutations."""

    def conv(x, w, strides, padding, lhs_spec, rhs_spec, out_spec, **kw):
        numbers = root.lax.ConvDimensionNumbers(lhs_spec, rhs_spec, out_spec)
        return root.lax.conv_general_dilated(
            x, w, strides, padding, dimension_numbers=numbers, **kw
        )

    return conv


def _shapes(n, c, o, ci, sizes, kernel, numbers):
    """lhs and rhs shapes for the layouts (spatial letters matched through the rhs spec)."""
    if numbers is None:
        return (n, c, *sizes), (o, ci, *kernel)
    lhs_spec, rhs_spec, _ = numbers
    order = [ch for ch in rhs_spec if ch not in "OI"]  # the spatial axes, by the rhs's order
    lhs = tuple(n if ch == "N" else c if ch == "C" else sizes[order.index(ch)] for ch in lhs_spec)
    rhs = tuple(o if ch == "O" else ci if ch == "I" else kernel[order.index(ch)] for ch in rhs_spec)
    return lhs, rhs


def _general(rng: np.random.Generator) -> Iterator[Case]:
    paddings = ["SAME", "VALID", "SAME_LOWER", "pairs", "pairs"]
    for i in range(130):
        spatial = 1 + i % 3 if i < 120 else 2
        numbers = LAYOUTS[spatial][i % len(LAYOUTS[spatial])]
        groups = [1, 1, 2, 1, 3][i % 5]
        batch_groups = 2 if groups == 1 and i % 7 == 3 else 1
        n, per, o = (
            batch_groups * (1 + i % 2),
            1 + (i // 5) % 2,
            groups * batch_groups * (1 + i % 2),
        )
        sizes = [int(rng.integers(2, 6 if spatial < 3 else 4)) for _ in range(spatial)]
        kernel = [int(rng.integers(1, 4 if spatial < 3 else 3)) for _ in range(spatial)]
        lhs_shape, rhs_shape = _shapes(n, groups * per, o, per, sizes, kernel, numbers)
        x, w = rng.uniform(-1, 1, lhs_shape), rng.uniform(-1, 1, rhs_shape)
        strides = tuple(int(rng.integers(1, 3)) for _ in range(spatial))
        kind = paddings[i % len(paddings)]
        keywords = {"rhs_dilation": tuple(int(rng.integers(1, 3)) for _ in range(spatial))}
        if kind == "pairs":
            padding = tuple(
                (int(rng.integers(-1, 3)), int(rng.integers(-1, 3))) for _ in range(spatial)
            )
            keywords["lhs_dilation"] = tuple(int(rng.integers(1, 3)) for _ in range(spatial))
        else:
            padding = kind
        if numbers is not None:
            keywords["dimension_numbers"] = numbers
        if groups > 1:
            keywords["feature_group_count"] = groups
        if batch_groups > 1:
            keywords["batch_group_count"] = batch_groups
        yield Case("lax.conv_general_dilated", (x, w, Static(strides), Static(padding)), keywords)


def _dtypes(rng: np.random.Generator) -> Iterator[Case]:
    x, w = rng.uniform(-1, 1, (2, 3, 5, 4)), rng.uniform(-1, 1, (4, 3, 2, 3))
    conv = "lax.conv_general_dilated"
    same = (Static((1, 1)), Static("SAME"))
    yield Case(conv, (x.astype(np.float32), w.astype(np.float32), *same))
    yield Case(conv, (x.astype(np.float16), w.astype(np.float16), *same), derivatives=False)
    yield Case(
        conv,
        ((x + 0.5j * x[::-1]).astype(np.complex128), (w - 1j * w).astype(np.complex128), *same),
    )
    yield Case(conv, ((x + 1j).astype(np.complex64), (w - 0.5j).astype(np.complex64), *same))
    yield Case(conv, ((x * 4).astype(np.int32), (w * 4).astype(np.int32), *same))
    yield Case(
        conv, ((x * 4).astype(np.int64), (w * 4).astype(np.int64), Static((2, 1)), Static("VALID"))
    )
    yield Case(conv, (x > 0.5, w > 0.3, *same))
    yield Case(conv, (x > 0.9, w > 0.9, Static((1, 1)), Static("VALID")))
    for source, target in (
        (np.float32, "float64"),
        (np.int32, "float64"),
        (np.int32, "int64"),
        (np.bool_, "int32"),
        (np.bool_, "float32"),
        (np.float64, "float32"),  # narrower: refused
        (np.float32, "int32"),  # incompatible: refused
        (np.int64, "int32"),
    ):
        a, b = (x * 3).astype(source), (w * 3).astype(source)
        yield Case(conv, (a, b, *same), {"preferred_element_type": target})
    yield Case(conv, (x.astype(np.float32), w, *same))  # mixed dtypes: refused
    yield Case(conv, (x.astype(np.int32), w, *same))


def _refusals(rng: np.random.Generator) -> Iterator[Case]:
    conv = "lax.conv_general_dilated"
    x, w = rng.uniform(-1, 1, (2, 4, 5, 5)), rng.uniform(-1, 1, (6, 2, 3, 3))
    same = (Static((1, 1)), Static("SAME"))
    yield Case(conv, (x, rng.uniform(-1, 1, (6, 3, 3, 3)), *same))  # 4 features, kernel wants 3
    yield Case(conv, (x, w, *same), {"feature_group_count": 3})  # 3 does not divide 4
    yield Case(conv, (x, w[:5], *same), {"feature_group_count": 2})  # 5 out features
    yield Case(conv, (x, w, *same), {"feature_group_count": 2, "batch_group_count": 2})
    yield Case(conv, (x[:1], rng.uniform(-1, 1, (6, 4, 3, 3)), *same), {"batch_group_count": 2})
    yield Case(conv, (x, w[:, :, :, 0], *same))  # ranks differ
    yield Case(conv, (x, w, Static((1,)), Static("SAME")), {"feature_group_count": 2})
    yield Case(conv, (x, w, *same), {"lhs_dilation": (2, 1), "feature_group_count": 2})
    yield Case(conv, (x, w, Static((1, 1)), Static(((-4, -3), (0, 0)))), {"feature_group_count": 2})
    yield Case(
        conv,
        (x, w, *same),
        {"dimension_numbers": ("NCHW", "OIHW", "NCHQ"), "feature_group_count": 2},
    )
    yield Case(
        conv, (x, w, *same), {"dimension_numbers": ("NCHW", "OIHW"), "feature_group_count": 2}
    )
    yield Case(conv, (x, w, *same), {"feature_group_count": 0})
    yield Case(conv, (x, w, Static((1, 1)), Static("FULL")), {"feature_group_count": 2})


def _numbers(rng: np.random.Generator) -> Iterator[Case]:
    x = rng.uniform(-1, 1, (4, 2, 3, 5))
    for specs, kernel in (
        (((0, 1, 2, 3),) * 3, (3, 2, 3, 4)),
        (((2, 1, 0, 3), (3, 2, 1, 0), (1, 3, 0, 2)), (3, 2, 2, 3)),
    ):
        w = rng.uniform(-1, 1, kernel)
        args = (x, w, Static((1, 2)), Static("SAME"), *map(Static, specs))
        yield Case("lax.conv_general_dilated[numbers]", args)


def _wrappers(rng: np.random.Generator) -> Iterator[Case]:
    x, w = rng.uniform(-1, 1, (2, 3, 6, 5)), rng.uniform(-1, 1, (4, 3, 3, 2))
    for strides, padding in (((1, 1), "SAME"), ((2, 1), "VALID"), ((2, 2), ((1, 0), (0, 1)))):
        yield Case("lax.conv", (x, w, Static(strides), Static(padding)))
    for padding, lhs_dil, rhs_dil in (
        (((1, 1), (0, 2)), (2, 1), (1, 2)),
        ("SAME", None, (2, 2)),
        (((0, 0), (-1, 1)), (1, 3), None),
    ):
        yield Case(
            "lax.conv_with_general_padding",
            (x, w, Static((1, 2)), Static(padding), Static(lhs_dil), Static(rhs_dil)),
        )


def _transposes(rng: np.random.Generator) -> Iterator[Case]:
    shapes = {
        1: ((2, 5, 3), (3, 3, 4)),
        2: ((1, 4, 3, 2), (3, 2, 2, 3)),
        3: ((1, 3, 2, 3, 2), (2, 2, 2, 2, 3)),
    }
    for spatial, (lhs, rhs) in shapes.items():
        x, w = rng.uniform(-1, 1, lhs), rng.uniform(-1, 1, rhs)
        ones = (1,) * spatial
        for strides in (ones, (2,) * spatial):
            for padding in ("SAME", "VALID"):
                for flip in (False, True):
                    kernel = w if not flip else np.swapaxes(w, -1, -2).copy()
                    keywords = {"transpose_kernel": True} if flip else {}
                    yield Case(
                        "lax.conv_transpose",
                        (x, kernel, Static(strides), Static(padding)),
                        keywords,
                    )
        pairs = tuple((1, 0) for _ in range(spatial))
        yield Case("lax.conv_transpose", (x, w, Static((2,) * spatial), Static(pairs)))
        yield Case(
            "lax.conv_transpose",
            (x, w, Static((2,) * spatial), Static(pairs)),
            {"use_consistent_padding": True},
        )
        yield Case(
            "lax.conv_transpose",
            (x, w, Static(ones), Static("SAME")),
            {"rhs_dilation": (2,) * spatial},
        )
    x, w = rng.uniform(-1, 1, (2, 3, 5, 4)), rng.uniform(-1, 1, (3, 2, 2, 3))
    yield Case(
        "lax.conv_transpose",
        (x, w, Static((2, 1)), Static("SAME")),
        {"dimension_numbers": ("NCHW", "IOHW", "NCHW")},
    )


def _patches(rng: np.random.Generator) -> Iterator[Case]:
    x = rng.uniform(-1, 1, (2, 3, 5, 4))
    for filter_shape, strides, padding, keywords in (
        ((2, 2), (1, 1), "VALID", {}),
        ((3, 2), (2, 1), "SAME", {}),
        ((2, 3), (1, 2), ((1, 0), (0, 1)), {"lhs_dilation": (2, 1), "rhs_dilation": (1, 2)}),
        ((2, 2), (1, 1), "SAME", {"dimension_numbers": ("NHWC", "HWIO", "NHWC")}),
        ((1, 3), (1, 1), "VALID", {"dimension_numbers": ("NCHW", "OIWH", "CNHW")}),
    ):
        operand = (
            x.transpose(0, 2, 3, 1) if keywords.get("dimension_numbers", "N")[0] == "NHWC" else x
        )
        yield Case(
            "lax.conv_general_dilated_patches",
            (operand, Static(filter_shape), Static(strides), Static(padding)),
            keywords,
        )
    yield Case(
        "lax.conv_general_dilated_patches",
        ((x * 3).astype(np.int32), Static((2, 2)), Static((1, 1)), Static("VALID")),
    )
    x1 = rng.uniform(-1, 1, (2, 3, 6))
    for filter_shape, strides, padding in (((2,), (1,), "VALID"), ((3,), (2,), "SAME")):
        out = (6 - filter_shape[0]) // strides[0] + 1 if padding == "VALID" else -(-6 // strides[0])
        w = rng.uniform(-1, 1, (4, 3 * filter_shape[0], out))
        args = (x1, w, Static(strides), Static(padding), Static(filter_shape))
        yield Case("lax.conv_general_dilated_local", args)
    x2, w2 = rng.uniform(-1, 1, (1, 4, 4, 2)), rng.uniform(-1, 1, (3, 2 * 4, 3, 5))
    yield Case(
        "lax.conv_general_dilated_local",
        (x2, w2, Static((1, 1)), Static("VALID"), Static((2, 2))),
        {"dimension_numbers": ("NHWC", "HIWO", "NHWC")},
    )


def _stax_module(root):
    """`example_libraries.stax` of jax or tf8 (a submodule the package does not import)."""
    return importlib.import_module(f"{root.__name__}.example_libraries.stax")


@program("stax.conv[init]")
def _stax_init(root):
    """A stax convolution layer's parameters from PRNGKey(0) (the shape of `x` is the
    input shape): tf8's random draws and initializers are JAX's, bit for bit."""

    def init(x, layer, *args, **kw):
        init_fun, _ = getattr(_stax_module(root), layer)(*args, **kw)
        return init_fun(root.random.PRNGKey(0), x.shape)[1]

    return init


@program("stax.conv[apply]")
def _stax_apply(root):
    def apply(x, W, b, layer, *args, **kw):
        _, apply_fun = getattr(_stax_module(root), layer)(*args, **kw)
        return apply_fun((W, b), x)

    return apply


STAX = [
    ("Conv", (2, 5, 4, 2), (3, (2, 2)), {"strides": (1, 2), "padding": "SAME"}),
    (
        "GeneralConv",
        (1, 2, 4, 3),
        (("NCHW", "OIHW", "NCHW"), 2, (3, 2)),
        {"padding": ((1, 0), (0, 1))},
    ),
    ("ConvTranspose", (1, 3, 3, 2), (2, (3, 3)), {"strides": (2, 2), "padding": "SAME"}),
    ("Conv1DTranspose", (2, 4, 1), (3, (2,)), {"strides": (2,)}),
    (
        "GeneralConvTranspose",
        (1, 3, 3, 3),
        (("NCHW", "IOHW", "NCHW"), 2, (2, 2)),
        {"strides": (2, 1)},
    ),
]


def _parameter_shapes(layer, shape, args, keywords):
    """The kernel's and the bias's shapes, as stax's init_fun makes them."""
    specs = args[0] if layer.startswith("General") else None
    if specs is None:
        specs = ("NHC", "HIO", "NHC") if layer == "Conv1DTranspose" else ("NHWC", "HWIO", "NHWC")
        args = (specs, *args)
    lhs_spec, rhs_spec, out_spec = specs
    out_chan, sizes = args[1], iter(args[2])
    kernel = [
        out_chan if c == "O" else shape[lhs_spec.index("C")] if c == "I" else next(sizes)
        for c in rhs_spec
    ]
    return tuple(kernel), tuple(out_chan if c == "C" else 1 for c in out_spec)


def _stax(rng: np.random.Generator) -> Iterator[Case]:
    for layer, shape, args, keywords in STAX:
        x = rng.uniform(-1, 1, shape)
        statics = (Static(layer), *map(Static, args))
        yield Case("stax.conv[init]", (x, *statics), keywords, derivatives=False)
        W_shape, b_shape = _parameter_shapes(layer, shape, args, keywords)
        W, b = rng.uniform(-1, 1, W_shape), rng.uniform(-1, 1, b_shape)
        yield Case("stax.conv[apply]", (x, W, b, *statics), keywords)


def _as_array(root, name):
    """`lax.<name>`'s tuple of sizes (or of permutations) as one int array."""
    return lambda *args: root.numpy.asarray(getattr(root.lax, name)(*args))


for _name in (
    "conv_shape_tuple",
    "conv_general_shape_tuple",
    "conv_transpose_shape_tuple",
    "conv_dimension_numbers",
    "conv_general_permutations",
):
    program(f"lax.{_name}[array]")(lambda root, name=_name: _as_array(root, name))

COVERS = {
    "lax.conv_general_dilated[numbers]": ["lax.conv_general_dilated", "lax.ConvDimensionNumbers"]
}
NHWC = ("NHWC", "HWIO", "NHWC")


def _shape_functions() -> Iterator[Case]:
    for args in (
        ((2, 3, 9, 9), (4, 3, 3, 3), (2, 2), "SAME"),
        ((4, 3, 9, 7), (4, 3, 3, 2), (1, 2), ((1, 0), (2, 2)), 2),
        ((1, 3, 8), (6, 3, 3), (3,), "VALID"),
        ((1, 3, 8, 8), (6, 3, 3, 3), (1, 1), "SAME_LOWER"),
    ):
        yield Case("lax.conv_shape_tuple[array]", tuple(map(Static, args)))
    for name in ("conv_general_shape_tuple", "conv_transpose_shape_tuple"):
        for args in (
            ((1, 8, 7, 3), (3, 2, 3, 5), (1, 2), "VALID", NHWC),
            ((1, 4, 5, 3), (3, 3, 3, 5), (2, 2), "SAME", NHWC),
            ((2, 3, 4, 5), (4, 3, 2, 2), (2, 1), ((1, 0), (0, 1)), ("NCHW", "OIHW", "NCHW")),
        ):
            yield Case(f"lax.{name}[array]", tuple(map(Static, args)))
    for numbers in (None, NHWC, ("NCHW", "OIWH", "CWNH"), ("NCHW", "OIHW", "NCHX")):
        yield Case(
            "lax.conv_dimension_numbers[array]",
            (Static((1, 2, 3, 4)), Static((1, 2, 3, 4)), Static(numbers)),
        )
    for numbers in (
        NHWC,
        ("NWC", "WIO", "CNW"),
        ("NCHW", "OIHW", "NCHX"),
        ("NNHW", "OIHW", "NCHW"),
    ):
        yield Case("lax.conv_general_permutations[array]", (Static(numbers),))


def cases() -> Iterator[Case]:
    rng = np.random.default_rng(3100)
    yield from _general(rng)
    yield from _dtypes(rng)
    yield from _refusals(rng)
    yield from _numbers(rng)
    yield from _wrappers(rng)
    yield from _transposes(rng)
    yield from _patches(rng)
    yield from _stax(rng)
    yield from _shape_functions()
