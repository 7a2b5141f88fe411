"""tf8.numpy: numpy's names and semantics on traced values.

`__all__` is also the table numpy's dispatch (`np.f(traced)` → `tf8.numpy.f`) is built from;
functions tf8 cannot express (putmask, copyto, ...) exist and raise UnsupportedOperationError.
"""

from __future__ import annotations

from tf8 import fft

from . import linalg
from ._along import cross, take_along_axis
from ._arithmetic import (
    abs,
    absolute,
    add,
    clip,
    conj,
    conjugate,
    divide,
    floor_divide,
    fmod,
    imag,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    positive,
    power,
    real,
    reciprocal,
    remainder,
    sign,
    square,
    subtract,
    true_divide,
)
from ._contract import dot, inner, kron, matmul, outer, tensordot, vdot, vecdot
from ._core import (
    array,
    asarray,
    astype,
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    ndim,
    result_type,
    shape,
    shape_of,
    size,
    stack,
)
from ._creation import (
    arange,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    identity,
    linspace,
    logspace,
    meshgrid,
    ones,
    ones_like,
    tri,
    zeros,
    zeros_like,
)
from ._cumulative import cumlogsumexp, cummax, cummin
from ._einsum import einsum
from ._extremes import amax, amin, argmax, argmin, max, min, ptp
from ._float_ufuncs import (
    arccos,
    arcsin,
    arctan,
    arctan2,
    ceil,
    cos,
    cosh,
    erf,
    exp,
    exp2,
    expm1,
    fix,
    floor,
    isfinite,
    isinf,
    isnan,
    isneginf,
    isposinf,
    log,
    log1p,
    log2,
    log10,
    logistic,
    rint,
    round,
    rsqrt,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
    trunc,
)
from ._index_tricks import (
    c_,
    diag_indices,
    diag_indices_from,
    einsum_path,
    ix_,
    r_,
    tril_indices,
    tril_indices_from,
    triu_indices,
    triu_indices_from,
)
from ._indexing import take
from ._joining import (
    array_split,
    column_stack,
    dsplit,
    dstack,
    hsplit,
    hstack,
    row_stack,
    split,
    vsplit,
    vstack,
)
from ._logaddexp import logaddexp, logaddexp2
from ._logic import (
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    equal,
    greater,
    greater_equal,
    invert,
    left_shift,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    not_equal,
    right_shift,
)
from ._long_tail import (
    append,
    array_equiv,
    convolve,
    correlate,
    gradient,
    histogram,
    interp,
    rollaxis,
    select,
)
from ._math import (
    allclose,
    angle,
    arccosh,
    arcsinh,
    arctanh,
    array_equal,
    cbrt,
    copysign,
    deg2rad,
    degrees,
    divmod_,
    fabs,
    float_power,
    fmax,
    fmin,
    heaviside,
    hypot,
    i0,
    isclose,
    nan_to_num,
    rad2deg,
    radians,
    real_if_close,
    signbit,
    sinc,
)
from ._matrix import diag, diagflat, diagonal, trace, tril, triu
from ._nonzero import argwhere, bincount, compress, extract, flatnonzero, nonzero, where
from ._pad import pad
from ._put import fill_diagonal, place, put, put_along_axis, trim_zeros
from ._rearrange import diff, flip, fliplr, flipud, repeat, roll, rot90, tile
from ._reductions import (
    all,
    any,
    average,
    count_nonzero,
    cumprod,
    cumsum,
    mean,
    nanmean,
    nanprod,
    nansum,
    prod,
    std,
    sum,
    var,
)
from ._scalar_types import (
    bool_,
    can_cast,
    cdouble,
    complex64,
    complex128,
    complex_,
    complexfloating,
    csingle,
    double,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    float_,
    floating,
    generic,
    half,
    iinfo,
    inexact,
    int32,
    int64,
    int_,
    integer,
    issubdtype,
    ndarray,
    number,
    promote_types,
    signedinteger,
    single,
    uint8,
    uint32,
    unsignedinteger,
)
from ._shape import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    concatenate,
    expand_dims,
    moveaxis,
    ravel,
    reshape,
    squeeze,
    swapaxes,
    transpose,
)
from ._types import copy, iscomplex, iscomplexobj, isreal, isrealobj, isscalar
from ._unsupported import UNSUPPORTED
from .quantiles import median, nanmedian, nanpercentile, nanquantile, percentile, quantile
from .sorting import (
    argpartition,
    argsort,
    lexsort,
    partition,
    searchsorted,
    sort,
    unique,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
)

around = round
bool = bool_  # noqa: A001 - numpy's name
divmod = divmod_  # noqa: A001 - numpy's name
pi = 3.141592653589793
e = 2.718281828459045
inf = float("inf")
nan = float("nan")
newaxis = None
globals().update(UNSUPPORTED)

__all__ = sorted(
    name
    for name, value in globals().items()
    if not name.startswith("_")
    and callable(value)
    and not isinstance(value, type)
    and name not in ("annotations", "divmod_", "can_cast", "issubdtype")
)
