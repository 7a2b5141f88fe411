"""Deliberate differences in the conformance corpus: elementwise numpy and lax functions,
numpy products.
See deliberate.py."""

from __future__ import annotations

from ..rows import Row, corpus  # noqa: F401

ROWS: list[Row] = [
    corpus(
        "numpy.logaddexp*",
        "float*[[]10], float*[[]10]*",
        "[jv][vj]p*",
        "The derivatives of `logaddexp`/`logaddexp2` at an infinite or NaN operand are those "
        "of the limit: 1 toward the larger infinite operand, 0 toward the other, and no NaN "
        "from a NaN operand beside a finite derivative path.",
        "JAX's custom JVP evaluates exp(x - out) after replacing +inf by 0 in x and out, so "
        "at (inf, -2.5) it gives d/dx2 = exp(-2.5) (not 0) and at NaN operands NaN; everywhere "
        "else tf8 computes JAX's exp(x1 - out), exp(x2 - out) to every order. At these "
        "non-finite inputs JAX's numbers are artefacts of its substitution, so tf8 keeps the "
        "derivatives of the expression it evaluates (README: never a silent wrong answer; "
        "DESIGN §4: derivatives come from the rules of the ops evaluated).",
    ),
    corpus(
        "numpy.hypot",
        "*py-*",
        "[jv][vj]p2",
        "The second derivative of `hypot` where |x1| == |x2| is the true one, y²/r³.",
        "hypot is smooth off the origin, yet JAX's second derivative at |x1| == |x2| is 0: it "
        "orders the operands with max/min, whose kink at the tie zeroes the curvature. tf8 "
        "differentiates one expression symmetric in both operands, so its second derivative "
        "(0.0442 for hypot(2, 2) with tangents 0.5) is the closed form's (README: never a "
        "silent wrong answer).",
    ),
    corpus(
        "numpy.[fd][lim][ov]*",  # floor_divide, fmod, divmod
        "*, bool[[]3]",
        "*",
        "Integer division by zero gives 0 (`//`, `divmod`, `fmod`), as numpy's does.",
        "The divisor False is 0: JAX returns what XLA's integer division by zero leaves "
        "(-1 as quotient, so floor_divide gives -2; all ones for unsigned ints; fmod gives "
        "the dividend), a meaningless value at a singular point; tf8 keeps the 0 of numpy, "
        "whose kernels its integer rows are (DESIGN §2: a row's kernel is numpy's), rather "
        "than imitate one backend's overflow.",
        differs="*values [[]0*",
    ),
    corpus(
        "numpy.angle",
        "float16[[]2,3]",
        "[jv][vj]p2",
        "The second derivative of `angle` of a tiny float16 is 0, not NaN.",
        "angle(x) = arctan2(0, x) for real x, whose derivatives are 0 off the origin; JAX's "
        "second derivative divides 0 by (x²)², which underflows to 0 in float16 for "
        "|x| = 0.0126, giving NaN. tf8's rule keeps the exact 0 there (README: never a "
        "silent wrong answer).",
        differs="values [[]-0.[]], JAX [[]nan[]]",
    ),
    corpus(
        "numpy.arc[cst][oia][sn]h",
        "float*",
        "[jv][vj]p*",
        "The derivatives of `arcsinh`, `arccosh` and `arctanh` at ±inf, at the ends of their "
        "domains and outside them (where the value is NaN) are those of the expression "
        "evaluated: NaN, or the limit.",
        "JAX evaluates its derivative formulas, 1/sqrt(x² + 1), rsqrt(x² - 1), "
        "1/((1 + x)(1 - x)), wherever they give a number: 0.218 for arccosh at x = -2.5, "
        "where arccosh is NaN, -0 for arctanh at ±inf, NaN for arcsinh's second derivative "
        "at ±inf. tf8 differentiates the accurate expressions it evaluates (DESIGN §4: "
        "derivatives come from the ops' rules), so a value of NaN has a NaN derivative "
        "rather than a number that looks like a slope (README: never a silent wrong answer). "
        "In the domain, ±inf excepted, the derivatives are JAX's.",
    ),
    corpus(
        "numpy.arccosh",
        "complex*",
        "[jv][vj]p*",
        "The derivative of complex `arccosh` where Re x < 0 is the true one.",
        "JAX's JVP rule for acosh is rsqrt(x² - 1), which for Re x < 0 is on the other "
        "sheet of the square root from the function it differentiates (JAX's own finite "
        "difference at x = -0.495 + 0.225j is -0.147 - 1.084j, its JVP +0.147 + 1.084j). "
        "tf8 differentiates log(x + sqrt(x + 1) sqrt(x - 1)), the expression it evaluates, "
        "so its derivative matches the finite difference (README: never a silent wrong "
        "answer).",
    ),
    corpus(
        "*pow*",  # numpy.power, numpy.float_power, lax.pow
        "float64[[]*], float64[[]*]*",
        "[jv][vj]p*",
        "The derivatives of `x ** y` at x = y = 0 are 0 (d/dx x**0 = 0, log 0 read as 0).",
        "At 0 ** 0 JAX's rules give NaN (0 · 0**-1 for x, log 0 · 1 for y). tf8's `pow` "
        "rule pins d/dx to 0 where x = y = 0, so x ** 0 = 1 has the derivative 0 everywhere, "
        "and reads log 0 as 0 in d/dy as JAX itself does where x = 0 (DESIGN §4: one JVP rule "
        "per primitive): a singular point where tf8 keeps the limit along y = 0.",
    ),
    corpus(
        "numpy*power",
        "bool[[]3], py-complex",
        "*",
        "0 raised to a complex power with a positive real part is 0.",
        "JAX computes 0 ** c as exp(c · log 0) and returns NaN + NaNj; the limit, and "
        "Python's `0j ** c`, is 0, which tf8's kernel gives (README: never a silent wrong "
        "answer). Other bases are JAX's.",
        differs="values [[]0.+0.j[]], JAX [[]nan+nanj[]]",
    ),
    corpus(
        "numpy.power",
        "int*[[]4], int*[[]4]",
        "*",
        "An integer raised to a negative integer power is 0 (numpy's C semantics).",
        "JAX's integer power runs six rounds of binary exponentiation on the exponent's "
        "bits, so -7 ** -4 gives -422604639, an overflowed meaningless value (numpy "
        "refuses the power outright). tf8's integer `pow` rows are numpy's kernels with a "
        "negative exponent read as C does, 0 for |x| > 1 (DESIGN §2: a row's kernel is "
        "numpy's), rather than imitate one backend's overflow.",
    ),
    corpus(
        "numpy.power",
        "*bool*, py-int",
        "jit*",
        "Under `jit`, a bool raised to a Python int argument is int64 (int32 eagerly), as in "
        "JAX's own `jit`.",
        "The corpus records JAX's eager result: there a concrete Python int exponent takes "
        "`lax.integer_pow`, which casts a bool base to int32. Under `jit` the exponent is a "
        "traced weak int64 scalar, and JAX's `jit` promotes the bool with it to int64 "
        "(`jax.jit(jnp.power)(True, 2)` is int64 in JAX 0.10.2). tf8 takes both of JAX's "
        "paths: eagerly (and with a static exponent) int32, traced int64 (DESIGN §2: JAX's "
        "promotion lattice, Python scalars weak).",
        differs="dtype int64, JAX int32",
    ),
    corpus(
        "lax.pow",
        "[iu]*",
        "eager",
        "`lax.pow` raises an integer to an integer power.",
        "JAX's `lax.pow` refuses integer operands (TypeError) out of strictness, though "
        "`jnp.power` computes them; tf8's `pow` row accepts them and computes numpy's integer "
        "power (DESIGN §2: a row's dtypes are the ones its numpy kernel serves).",
        differs="no error (JAX raised TypeError)",
    ),
    corpus(
        "lax.abs",
        "uint*",
        "eager",
        "`lax.abs` of an unsigned integer is the operand itself.",
        "JAX's `lax.abs` refuses unsigned integers (TypeError) out of strictness; |x| = x "
        "there, which tf8's `abs` row computes (DESIGN §2).",
        differs="no error (JAX raised TypeError)",
    ),
    corpus(
        "lax.real",
        "[fiu]*",
        "eager",
        "`lax.real` of a real operand is the operand itself.",
        "JAX's `lax.real` refuses real operands (TypeError) out of strictness; tf8's `real` "
        "row returns the operand, as `tnp.real` does (DESIGN §2).",
        differs="no error (JAX raised TypeError)",
    ),
    corpus(
        "lax.imag",
        "[fiu]*",
        "eager",
        "`lax.imag` of a real operand is zeros of its dtype.",
        "JAX's `lax.imag` refuses real operands (TypeError) out of strictness; tf8's `imag` "
        "row gives zeros, as `tnp.imag` does (DESIGN §2).",
        differs="no error (JAX raised TypeError)",
    ),
    corpus(
        "lax.conj",
        "[fiu]*",
        "eager",
        "`lax.conj` of a float16 or integer operand computes: float16 as complex64, an "
        "integer is returned unchanged (its own conjugate).",
        "JAX's `lax.conj` converts float32/float64 to complex but refuses float16 and "
        "integers (TypeError) out of strictness; tf8 computes them, as `tnp.conj` does "
        "(DESIGN §2).",
        differs="no error (JAX raised TypeError)",
    ),
    corpus(
        "numpy.*prod",  # prod, nanprod, cumprod
        "float64[[]2,2], axis=*",
        "[jv][vj]p*",
        "Derivatives of products over a row holding inf or NaN are NaN where JAX's are "
        "numbers, and the reverse.",
        "On the rows [1, NaN] and [inf, 2], JAX's and tf8's product rules meet 0 · inf in "
        "different places: tf8 multiplies the other factors (exact at zeros, no division by "
        "x), so a non-finite factor meets a zero tangent; JAX's second derivatives give "
        "0.5 in some slots and NaN in others. A singular input where NaN is defensible "
        "(DESIGN §4: one JVP rule per primitive, exact at zeros), as for `lax.reduce_prod`.",
    ),
    corpus(
        "lax.complex",
        "float16*",
        "eager",
        "`lax.complex` of float16 parts is complex64.",
        "JAX's `lax.complex` refuses float16 parts (TypeError: there is no complex32) out of "
        "strictness; tf8 builds the complex64 number, as `tnp` promotes float16 with a "
        "complex value (DESIGN §2).",
        differs="no error (JAX raised TypeError)",
    ),
    corpus(
        "*.m[ai][xn]*",  # lax.max, lax.min, numpy.maximum, numpy.minimum
        "float*",
        "[ejv]*",
        "The maximum or minimum of -0.0 and +0.0 may be either zero.",
        "XLA orders -0 below +0, so JAX's min(-0, +0) is -0 and max is +0; numpy's ufuncs "
        "return the first operand of a tie, and IEEE 754 leaves the choice open (the two "
        "are equal). tf8's maximum/minimum rows are numpy's ufuncs, which the numpy engine "
        "fuses in place (`relu` is `maximum`): a fix-up pass for the sign of a zero would "
        "cost every call an extra sweep (DESIGN §2: a row's kernel is numpy's; §6 fusion).",
        differs="the sign of a zero",
    ),
    corpus(
        "numpy.*",
        "float64[[]2,3,2], axis=(0, 2)",
        "eager",
        "Reductions take `axis` as a list as well as a tuple.",
        "The corpus passes axis=[0, 2]; JAX refuses a list (ValueError: it must be hashable "
        "for jit's static arguments) out of strictness, where numpy and tf8 reduce over both "
        "axes (README: tf8 accepts numpy's spellings where the meaning is plain).",
        differs="no error (JAX raised ValueError)",
    ),
    corpus(
        "numpy.*median",
        "float64[[]0,3], axis=0",
        "eager",
        "`median`/`nanmedian` over an empty axis is NaN, as numpy's.",
        "JAX fails inside XLA (TypeError: a gather slice out of range) on an empty axis; "
        "numpy and tf8 give NaN for each column, the median of no values (README: never a "
        "silent wrong answer: NaN says there is none).",
        differs="no error (JAX raised TypeError)",
    ),
    corpus(
        "numpy.argm[ai][xn]",
        "complex*",
        "eager",
        "`argmax`/`argmin` of complex values order them lexicographically, as numpy's.",
        "JAX refuses complex operands (TypeError) out of strictness; numpy orders complex "
        "numbers by real part, then imaginary part, and so do tf8's comparisons and "
        "`max`/`min` (DESIGN §2: a row's kernel is numpy's).",
        differs="no error (JAX raised TypeError)",
    ),
    corpus(
        "numpy.[amp][mait]*",  # amax, amin, max, min, ptp
        "float64[[]2,2], axis=1",
        "vjp",
        "The gradient of `max`/`min`/`ptp` over a row holding NaN is NaN.",
        "The row [1, NaN] has no maximum to differentiate; JAX's jit-compiled program gives "
        "0 there. tf8 keeps the NaN at a NaN input rather than a 0 that looks like a real "
        "derivative, as for `lax.reduce_max` (README: never a silent wrong answer).",
        differs="values [[]nan nan[]], JAX [[]0. 0.[]]",
    ),
    corpus(
        "numpy.std",
        "float64[[]]",
        "[jv][vj]p*",
        "The derivative of `std` of a single value is 0.",
        "std of one value is 0 for every input, so its derivative is 0; JAX differentiates "
        "sqrt(var) at var = 0 and gets inf · 0 = NaN. tf8's value is the same and its "
        "derivative the true one (README: never a silent wrong answer).",
        differs="values [[]0.[]], JAX [[]nan[]]",
    ),
    corpus(
        "numpy.cbrt",
        "float*[[]10]",
        "vjp2",
        "The second derivative of `cbrt` at ±0 in reverse-over-reverse mode is NaN, where "
        "JAX's is ∓inf.",
        "cbrt's first derivative at ±0 is JAX's +inf (the limit), and so is its forward-mode "
        "second derivative; the reverse pullback of that pullback meets inf · 0 at the "
        "singular point, where no finite derivative exists (DESIGN §4: derivatives come from "
        "the ops' rules).",
    ),
]
