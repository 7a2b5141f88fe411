"""tf8.lax: JAX's `lax` names on tf8's primitives (tracing level, no dtype promotion).

`tf8.lax.dynamic_slice(x, (i, 0), (2, 3))` takes traced starts, as in JAX. The builders that
tf8's own libraries and rules are written in live in `tf8.lax.builders`, and for the extension
families in `tf8.lax.einsum`, `tf8.lax.fft`, `tf8.lax.linalg` and `tf8.lax.matrix`.
"""

from .approx import approx_max_k, approx_min_k
from .arithmetic import pow, rem, round  # noqa: A004
from .control import cond, fori_loop, map, scan, switch, while_loop
from .control.solves import custom_linear_solve, custom_root
from .conv_patches import conv_general_dilated_local, conv_general_dilated_patches
from .conv_shapes import (
    ConvDimensionNumbers,
    ConvGeneralDilatedDimensionNumbers,
    conv_dimension_numbers,
    conv_general_permutations,
    conv_general_shape_tuple,
    conv_shape_tuple,
    conv_transpose_shape_tuple,
)
from .convolution import conv, conv_general_dilated, conv_transpose, conv_with_general_padding
from .dimension_numbers import GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers
from .elementwise import (
    acosh,
    asinh,
    atanh,
    cbrt,
    clz,
    erfc,
    exp2,
    is_finite,
    mulhi,
    nextafter,
    population_count,
    reciprocal,
    reduce_precision,
)
from .fft import fft  # JAX's lax.fft; the attribute shadows the module, still importable by path
from .gather_api import gather
from .in_dim import (
    dynamic_update_index_in_dim,
    index_in_dim,
    index_take,
    select_n,
    slice_in_dim,
)
from .ops import (
    abs,
    acos,
    add,
    asin,
    atan,
    atan2,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    broadcast,
    broadcast_in_dim,
    broadcasted_iota,
    ceil,
    clamp,
    complex,
    concatenate,
    conj,
    convert_element_type,
    cos,
    cosh,
    div,
    dynamic_index_in_dim,
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_update_slice,
    dynamic_update_slice_in_dim,
    eq,
    erf,
    erf_inv,
    exp,
    expm1,
    floor,
    ge,
    gt,
    imag,
    integer_pow,
    iota,
    le,
    log,
    log1p,
    logistic,
    lt,
    max,
    min,
    mul,
    ne,
    neg,
    pad,
    real,
    reshape,
    rev,
    rsqrt,
    select,
    shift_left,
    shift_right_arithmetic,
    shift_right_logical,
    sign,
    sin,
    sinh,
    slice,
    sqrt,
    square,
    squeeze,
    sub,
    tan,
    tanh,
    transpose,
)
from .platform import platform_dependent, stage
from .precision import DotDimensionNumbers, FftType, Precision, PrecisionLike
from .reduce_monoid import reduce, reduce_and, reduce_or, reduce_xor
from .reduce_window import reduce_window, reduce_window_shape_tuple
from .scans import associative_scan, cumlogsumexp, cummax, cummin, cumprod
from .scatter import (
    scatter,
    scatter_add,
    scatter_apply,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_sub,
)
from .small import (
    batch_matmul,
    broadcast_like,
    broadcast_shapes,
    broadcast_to_rank,
    collapse,
    dtype,
    empty,
    full,
    full_like,
    split,
    stack,
    tile,
    unstack,
)
from .sorting import sort, sort_key_val, top_k
from .special import (
    bessel_i0e,
    bessel_i1e,
    betainc,
    digamma,
    igamma,
    igamma_grad_a,
    igammac,
    lgamma,
    ndtri,
    polygamma,
    random_gamma_grad,
    zeta,
)
from .stop import stop_gradient
from .structure import (
    argmax,
    argmin,
    bitcast_convert_type,
    cumsum,
    dot,
    dot_general,
    expand_dims,
    reduce_max,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from .windows import padtype_to_pads
