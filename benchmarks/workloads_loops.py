"""Loops under jit (issue 32): an adaptive ODE solve with its adjoint, and an HMC trajectory.

- loops_odeint: value and gradient, with respect to the parameters θ = (α, β, δ, γ) and y0,
  of L = mean over 50 output times t ∈ [0, 10] of |y(t)|² for the Lotka–Volterra system
  x' = αx − βxz, z' = δxz − γz (θ = (1.5, 1, 1, 3), y0 = (1, 1)).
  "numpy": scipy's `solve_ivp` (DOP853, rtol = atol = 1e-10) of the state together with its
  forward sensitivities dy/dθ and dy/dy0 (hand-written Jacobians), then the chain rule.
  "tf8.jit": `tf8.jit(tf8.value_and_grad(loss, argnums=(0, 1)))` of
  `tf8.experimental.ode.odeint` (adaptive Dormand–Prince at its defaults rtol = atol =
  1.4e-8, gradient by the adjoint method), one row per engine; "jax.jit": the same with
  `jax.experimental.ode.odeint`. tf8 and JAX take the same steps (they agree to ~1e-12);
  both differ from the tightly solved baseline by their own tolerance (~3e-5 absolute in
  the gradient), hence the workload's rtol = 1e-4, atol = 1e-5.
- loops_hmc: one leapfrog HMC trajectory, 50 steps of size 0.05, on a 100-d Gaussian
  U(q) = ½ qᵀAq (A a fixed SPD matrix, eigenvalues in [0.5, 50]), returning the final
  (q, p). "numpy": the same leapfrog with the analytic gradient A q; "tf8.jit" /
  "jax.jit": a `lax.while_loop` whose carry is (step, q, p) and whose body evaluates
  `tf8.grad(U)` / `jax.grad(U)` twice (half kick, drift, half kick), under jit.

Both are steady state: one jitted function, called again and again. Under --tiny the ODE
runs over t ∈ [0, 0.5] at 3 output times, and HMC takes 5 steps in 10 dimensions.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.harness import BASELINE, Options, Variants, Workload, tf8_engines, tf8_variant
from benchmarks.workloads_eager import jax_numpy

# --- odeint: Lotka–Volterra, value and gradient by the adjoint --------------------------------

THETA, Y0 = np.array([1.5, 1.0, 1.0, 3.0]), np.array([1.0, 1.0])
ODE_TIMES, TINY_ODE_TIMES = (10.0, 50), (0.5, 3)
BASELINE_TOLERANCE = 1e-10


def _times(options: Options) -> np.ndarray:
    end, count = TINY_ODE_TIMES if options.tiny else ODE_TIMES
    return np.linspace(0.0, end, count)


def _ode_loss(xp: Any, odeint: Callable[..., Any], ts: np.ndarray) -> Callable[..., Any]:
    def lotka_volterra(y: Any, t: Any, theta: Any) -> Any:
        x, z = y[0], y[1]
        return xp.stack([theta[0] * x - theta[1] * x * z, theta[2] * x * z - theta[3] * z])

    def loss(theta: Any, y0: Any) -> Any:
        ys = odeint(lotka_volterra, y0, ts, theta)
        return xp.sum(ys * ys) / len(ts)

    return loss


def _sensitivity_rhs(t: float, state: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """d/dt of (y, dy/dθ (2 × 4), dy/dy0 (2 × 2)): y' = f, S' = J_y S + J_θ, W' = J_y W."""
    a, b, d, g = theta
    x, z = state[0], state[1]
    s, w = state[2:10].reshape(2, 4), state[10:14].reshape(2, 2)
    jac_y = np.array([[a - b * z, -b * x], [d * z, d * x - g]])
    jac_theta = np.array([[x, -x * z, 0.0, 0.0], [0.0, 0.0, x * z, -z]])
    y_dot = [a * x - b * x * z, d * x * z - g * z]
    return np.concatenate([y_dot, (jac_y @ s + jac_theta).ravel(), (jac_y @ w).ravel()])


def ode_value_and_grad_numpy(theta: np.ndarray, y0: np.ndarray, ts: np.ndarray) -> tuple:
    """(L, (dL/dθ, dL/dy0)) from the forward sensitivity equations, solved tightly."""
    from scipy.integrate import solve_ivp

    start = np.concatenate([y0, np.zeros(8), np.eye(2).ravel()])
    solution = solve_ivp(
        _sensitivity_rhs,
        (ts[0], ts[-1]),
        start,
        method="DOP853",
        t_eval=ts,
        rtol=BASELINE_TOLERANCE,
        atol=BASELINE_TOLERANCE,
        args=(theta,),
    )
    ys = solution.y[:2].T
    d_theta = solution.y[2:10].T.reshape(-1, 2, 4)
    d_y0 = solution.y[10:14].T.reshape(-1, 2, 2)
    scale = 2.0 / len(ts)
    value = np.sum(ys * ys) / len(ts)
    return value, (
        scale * np.einsum("ni,nij->j", ys, d_theta),
        scale * np.einsum("ni,nij->j", ys, d_y0),
    )


def loops_odeint(options: Options) -> Variants:
    import tf8
    import tf8.numpy as tnp
    from tf8.experimental.ode import odeint

    ts = _times(options)
    variants: Variants = {BASELINE: lambda: ode_value_and_grad_numpy(THETA, Y0, ts)}
    for engine in tf8_engines():
        jitted = tf8.jit(
            tf8.value_and_grad(_ode_loss(tnp, odeint, ts), argnums=(0, 1)), engine=engine
        )
        variants[tf8_variant(engine)] = functools.partial(jitted, THETA, Y0)
    if (found := jax_numpy()) is not None:
        jax, jnp = found
        from jax.experimental.ode import odeint as jax_odeint

        jax_fn = jax.jit(jax.value_and_grad(_ode_loss(jnp, jax_odeint, ts), argnums=(0, 1)))
        jtheta, jy0 = jnp.asarray(THETA), jnp.asarray(Y0)
        variants["jax.jit"] = lambda: jax.block_until_ready(jax_fn(jtheta, jy0))
    return variants


# --- HMC: a leapfrog trajectory in a while_loop, the gradient by grad --------------------------

HMC_DIMENSION, HMC_STEPS, TINY_HMC = 100, 50, (10, 5)
HMC_STEP_SIZE = 0.05


def hmc_problem(dimension: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A, q0, p0): a fixed SPD precision with eigenvalues in [0.5, 50], a start and a momentum."""
    rng = np.random.default_rng(32)
    basis, _ = np.linalg.qr(rng.standard_normal((dimension, dimension)))
    precision = (basis * np.linspace(0.5, 50.0, dimension)) @ basis.T
    precision = (precision + precision.T) / 2
    return precision, rng.standard_normal(dimension), rng.standard_normal(dimension)


def _hmc_trajectory(lax: Any, xp: Any, grad: Callable[..., Any], steps: int) -> Callable:
    def trajectory(precision: Any, q0: Any, p0: Any) -> tuple[Any, Any]:
        grad_u = grad(lambda q: 0.5 * xp.dot(q, precision @ q))

        def body(carry: tuple) -> tuple:
            step, q, p = carry
            p = p - HMC_STEP_SIZE / 2 * grad_u(q)
            q = q + HMC_STEP_SIZE * p
            p = p - HMC_STEP_SIZE / 2 * grad_u(q)
            return step + 1, q, p

        _, q, p = lax.while_loop(lambda carry: carry[0] < steps, body, (0, q0, p0))
        return q, p

    return trajectory


def hmc_numpy(precision: np.ndarray, q: np.ndarray, p: np.ndarray, steps: int) -> tuple:
    """The same leapfrog with the analytic gradient A q."""
    for _ in range(steps):
        p = p - HMC_STEP_SIZE / 2 * (precision @ q)
        q = q + HMC_STEP_SIZE * p
        p = p - HMC_STEP_SIZE / 2 * (precision @ q)
    return q, p


def loops_hmc(options: Options) -> Variants:
    import tf8
    import tf8.numpy as tnp

    dimension, steps = TINY_HMC if options.tiny else (HMC_DIMENSION, HMC_STEPS)
    args = hmc_problem(dimension)
    variants: Variants = {BASELINE: lambda: hmc_numpy(*args, steps)}
    for engine in tf8_engines():
        jitted = tf8.jit(_hmc_trajectory(tf8.lax, tnp, tf8.grad, steps), engine=engine)
        variants[tf8_variant(engine)] = functools.partial(jitted, *args)
    if (found := jax_numpy()) is not None:
        jax, jnp = found
        jax_fn = jax.jit(_hmc_trajectory(jax.lax, jnp, jax.grad, steps))
        jargs = [jnp.asarray(a) for a in args]
        variants["jax.jit"] = lambda: jax.block_until_ready(jax_fn(*jargs))
    return variants


WORKLOADS = [
    Workload(
        "loops_odeint",
        "jit(value_and_grad) of odeint (adjoint) of Lotka–Volterra, 50 times in [0, 10]",
        loops_odeint,
        rtol=1e-4,
        atol=1e-5,
        max_rounds=11,
    ),
    Workload(
        "loops_hmc",
        "jit of a 50-step leapfrog HMC trajectory (while_loop, grad inside) on a 100-d Gaussian",
        loops_hmc,
        rtol=1e-10,
        atol=1e-12,
    ),
]
