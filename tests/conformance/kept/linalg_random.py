"""Deliberate differences in the conformance corpus: numpy.linalg, numpy.fft, scipy.linalg, random.
See deliberate.py."""

from __future__ import annotations

from ..rows import Row, corpus  # noqa: F401

ROWS: list[Row] = [
    corpus(
        "scipy.linalg.cholesky",
        "*",
        "vjp*",
        "A Cholesky factor read from one triangle has a gradient in that triangle only.",
        "`scipy.linalg.cholesky` reads one triangle of A, as scipy's and JAX's do, and tf8 "
        "differentiates that function: its gradient matches central differences and is zero "
        "in the triangle that is not read. JAX's cholesky rule applies the symmetric-input "
        "formula to the whole tangent, so its gradient has entries in the unread triangle and "
        "disagrees with differences of its own output. tf8's transforms differentiate the "
        "function they compute (DESIGN §4); with JAX's `numpy.linalg` default "
        "`symmetrize_input=True`, which tf8 follows (DESIGN §7), the two agree.",
        differs="values *",
    ),
    corpus(
        "numpy.linalg.cholesky",
        "*symmetrize_input=False*",
        "vjp*",
        "`cholesky(symmetrize_input=False)` has a gradient in the lower triangle only.",
        "It reads A's lower triangle, as numpy's does, and tf8 differentiates that function "
        "(DESIGN §4), matching central differences; JAX's rule applies the symmetric-input "
        "formula to the whole tangent. The default, `symmetrize_input=True`, is JAX's "
        "(DESIGN §7) and agrees with JAX.",
        differs="values *",
    ),
    corpus(
        "scipy.linalg.[ics]*",
        "float64[[]2,2]*",
        "*",
        "`inv`, `solve_triangular` and `cholesky` of a singular or indefinite matrix raise.",
        "tf8 raises `tf8.errors.LinAlgError` naming the function, where JAX returns inf or NaN "
        "(an inverse or a factor that does not exist): no silent wrong answer, and README's "
        "`tf8.linalg` contract (a matrix a kernel cannot factor raises when the program runs; "
        "tf8's kernels are numpy's, DESIGN §6, so a compiled program raises too). `det` of a "
        "singular matrix is 0, as JAX's.",
        differs="raised LinAlgError*",
    ),
    corpus(
        "numpy.linalg.eigvals",
        "*",
        "*2",
        "`eigvals` differentiates twice.",
        "JAX raises NotImplementedError for a second derivative of `eigvals` (its eig JVP is "
        "not itself differentiable); tf8's eig rule is written in differentiable ops "
        "(DESIGN §4), so the second derivative is computed, and is correct where the "
        "eigenvalues are distinct (checked against differences in tests/ops).",
        differs="no error (JAX raised NotImplementedError)",
    ),
    corpus(
        "scipy.linalg.svd",
        "float64[[][24],[24]]",
        "*",
        "A full SVD of a non-square matrix differentiates.",
        "JAX raises NotImplementedError for derivatives of `svd(full_matrices=True)` of a "
        "non-square matrix; tf8 differentiates it, the extra columns of U (or rows of Vh) "
        "without rotating inside their complement, as README's `tf8.linalg` section says "
        "(only functions independent of that basis, such as U Uᴴ, have meaningful "
        "derivatives; DESIGN §4).",
        differs="no error (JAX raised NotImplementedError)",
    ),
    corpus(
        "scipy.linalg.expm*",
        "float32[[]3,3]*",
        "jvp*",
        "float32 `expm` derivatives are computed in double precision.",
        "tf8's expm and expm_frechet kernels are scipy's (DESIGN §6), run in float64 for "
        "float32 input and rounded, so the derivative is the float64 one to the last float32 "
        "digit; JAX iterates its Padé approximant in float32, and where an entry cancels "
        "(0.0312850 exact, JAX 0.0312804) it differs by more than the float32 tolerance.",
        differs="values *",
    ),
    corpus(
        "scipy.linalg.expm",
        "float64[[]3,3], upper_triangular=True",
        "[jv][vj]p*",
        "`expm(upper_triangular=True)` differentiates as the exponential of the whole matrix.",
        "The flag is JAX's hint that A is upper triangular; tf8 accepts it and computes expm "
        "(scipy's kernel, DESIGN §6), whose derivative in a direction below the diagonal is the "
        "exponential's. JAX's follows its triangular solve, which reads the hint as true for "
        "the perturbed matrix too (README: names and signatures are JAX's, DESIGN §7).",
        differs="values *",
    ),
    corpus(
        "scipy.linalg.expm_frechet",
        "complex128[[]3,3], float64[[]3,3]*",
        "eager",
        "`expm_frechet` takes a complex A with a real direction E.",
        "JAX raises TypeError for operands of different dtypes; tf8 promotes them (JAX's "
        "lattice, DESIGN §2) and computes the complex derivative, the obvious result.",
        differs="no error (JAX raised TypeError)",
    ),
    corpus(
        "random.*",
        "*dtype='float32'*",
        "eager",
        "A float64 parameter is cast to a sampler's requested float32 dtype.",
        "`t`, `chisquare`, `lognormal`, `pareto` and `rayleigh` with `dtype=float32` and a "
        "float64 parameter raise JAX's TypePromotionError (it will not cast down implicitly), "
        "while its `gamma` casts; tf8 casts in every sampler, as the `dtype` argument asks "
        "(DESIGN §2, §7).",
        differs="no error (JAX raised TypePromotionError)",
    ),
    corpus(
        "random.*",
        "*",
        "vjp2",
        "Gamma-family draws differentiate twice in reverse mode.",
        "`gamma`, `loggamma`, `beta`, `dirichlet`, `chisquare`, `t` and `generalized_normal` "
        "differentiate in their shape parameters through g = dx/da; JAX computes g with "
        "loops it can differentiate in forward mode only, so its second reverse-mode "
        "derivative raises. tf8 carries the second derivative in its own kernel "
        "(tf8.random.gamma_second), so `vjp` of `vjp` gives the number JAX's forward-over-"
        "forward gives (the transforms are one set of rules, DESIGN §4).",
        differs="no error (JAX raised ValueError)",
    ),
    corpus(
        "random.truncated_normal",
        "uint32[[]2], float64[[]], float64[[]], shape=(3,)",
        "[jv][vj]p*",
        "`truncated_normal`'s derivatives deep in a tail agree with JAX's to 1e-10, not 1e-11.",
        "Between lower = 5 and upper = 6 the draw is √2 erfinv(u) with u within 1e-6 of 1, "
        "where d erfinv = (√π/2) exp(erfinv(u)²) amplifies the last ulp of u and of erf by "
        "1e5: tf8's kernels are scipy's (DESIGN §6), JAX's are XLA's, and both derivatives are "
        "within that conditioning of the exact one (mpmath: tf8 2e-11, JAX 1e-11 relative). "
        "Values agree to 1e-11.",
        differs="values *",
    ),
]
