"""`tf8.example_libraries.optimizers`: `jax.example_libraries.optimizers` on tf8.

An optimizer is a triple of functions `(init_fun, update_fun, get_params)`:
`init_fun(params)` makes an `OptimizerState` from a pytree of parameters,
`update_fun(step, grads, opt_state)` returns the next state from an int step and a gradient
pytree shaped as the parameters, and `get_params(opt_state)` gives the parameters back. The
state is a pytree, so it passes through `tf8.jit`, `tf8.lax.fori_loop` and friends.

>>> import tf8
>>> import tf8.numpy as tnp
>>> from tf8.example_libraries import optimizers
>>> opt_init, opt_update, get_params = optimizers.momentum(0.1, mass=0.5)
>>> loss = lambda p: tnp.sum(p["w"] ** 2)
>>> state = opt_init({"w": tnp.array([1.0, -2.0])})
>>> for i in range(3):
...     state = opt_update(i, tf8.grad(loss)(get_params(state)), state)
>>> print(get_params(state)["w"])
[ 0.302 -0.604]

As JAX's, except that errors are tf8.errors exceptions (see each function).
"""

from __future__ import annotations

import functools
from typing import Any

import tf8.numpy as tnp
from tf8.example_libraries._optimizer_core import (
    Array,
    InitFn,
    JoinPoint,
    Optimizer,
    OptimizerState,
    Params,
    ParamsFn,
    State,
    Step,
    UpdateFn,
    Updates,
    optimizer,
    pack_optimizer_state,
    unpack_optimizer_state,
)
from tf8.example_libraries._schedules import (
    Schedule,
    clip_grads,
    constant,
    exponential_decay,
    inverse_time_decay,
    l2_norm,
    make_schedule,
    piecewise_constant,
    polynomial_decay,
)

__all__ = [
    "Array", "InitFn", "JoinPoint", "Optimizer", "OptimizerState", "Params", "ParamsFn",
    "Schedule", "State", "Step", "UpdateFn", "Updates", "adagrad", "adam", "adamax",
    "clip_grads", "constant", "exponential_decay", "inverse_time_decay", "l2_norm",
    "make_schedule", "momentum", "nesterov", "optimizer", "pack_optimizer_state",
    "piecewise_constant", "polynomial_decay", "rmsprop", "rmsprop_momentum", "sgd", "sm3",
    "unpack_optimizer_state",
]  # fmt: skip


def _first(state: Any) -> Any:
    return state[0]


@optimizer
def sgd(step_size: float | Schedule) -> Optimizer:
    """Stochastic gradient descent: `x - step_size(i) * g`.

    Parameters: `step_size`, a positive scalar or a schedule (a function of the step index).

    >>> from tf8.example_libraries import optimizers
    >>> init, update, get_params = optimizers.sgd(0.1)
    >>> print(get_params(update(0, 2.0, init(1.0))))
    0.8

    As JAX's.
    """
    step_size = make_schedule(step_size)
    return Optimizer(lambda x0: x0, lambda i, g, x: x - step_size(i) * g, lambda x: x)


@optimizer
def momentum(step_size: float | Schedule, mass: float) -> Optimizer:
    """SGD with (heavy-ball) momentum: `v = mass * v + g; x = x - step_size(i) * v`.

    Parameters: `step_size`, a positive scalar or schedule; `mass`, the momentum coefficient.

    >>> from tf8.example_libraries import optimizers
    >>> init, update, get_params = optimizers.momentum(0.5, mass=0.5)
    >>> state = update(1, 1.0, update(0, 1.0, init(0.0)))
    >>> print(get_params(state))
    -1.25

    As JAX's.
    """
    step_size = make_schedule(step_size)

    def update(i: Step, g: Any, state: Any) -> Any:
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * velocity, velocity

    return lambda x0: (x0, tnp.zeros_like(x0)), update, _first


@optimizer
def nesterov(step_size: float | Schedule, mass: float) -> Optimizer:
    """SGD with Nesterov momentum: `v = mass * v + g; x = x - step_size(i) * (mass * v + g)`.

    Parameters: `step_size`, a positive scalar or schedule; `mass`, the momentum coefficient.

    >>> from tf8.example_libraries import optimizers
    >>> init, update, get_params = optimizers.nesterov(0.1, mass=0.9)
    >>> print(get_params(update(0, 1.0, init(0.0))))
    -0.19

    As JAX's.
    """
    step_size = make_schedule(step_size)

    def update(i: Step, g: Any, state: Any) -> Any:
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * (mass * velocity + g), velocity

    return lambda x0: (x0, tnp.zeros_like(x0)), update, _first


@optimizer
def adagrad(step_size: float | Schedule, momentum: float = 0.9) -> Optimizer:
    """Adagrad (Duchi et al. 2011) with momentum: the gradient is scaled by the inverse
    square root of the running sum of its squares (0 where that sum is 0) and averaged into a
    momentum `m`; `x = x - step_size(i) * m`.

    Parameters: `step_size`, a positive scalar or schedule; `momentum` (default 0.9).

    >>> from tf8.example_libraries import optimizers
    >>> init, update, get_params = optimizers.adagrad(1.0)
    >>> print(round(float(get_params(update(0, 4.0, init(0.0)))), 6))
    -0.1

    As JAX's.
    """
    step_size = make_schedule(step_size)

    def update(i: Step, g: Any, state: Any) -> Any:
        x, g_sq, m = state
        g_sq = g_sq + tnp.square(g)
        g_sq_inv_sqrt = tnp.where(g_sq > 0, 1.0 / tnp.sqrt(g_sq), 0.0)
        m = (1.0 - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        return x - step_size(i) * m, g_sq, m

    return lambda x0: (x0, tnp.zeros_like(x0), tnp.zeros_like(x0)), update, _first


@optimizer
def rmsprop(step_size: float | Schedule, gamma: float = 0.9, eps: float = 1e-8) -> Optimizer:
    """RMSProp: `a = gamma * a + (1 - gamma) * g**2; x = x - step_size(i) * g / sqrt(a + eps)`.

    Parameters: `step_size`, a positive scalar or schedule; `gamma`, the decay of the average
    of squared gradients (default 0.9); `eps` (default 1e-8).

    >>> from tf8.example_libraries import optimizers
    >>> init, update, get_params = optimizers.rmsprop(0.1)
    >>> print(round(float(get_params(update(0, 1.0, init(0.0)))), 6))
    -0.316228

    As JAX's.
    """
    step_size = make_schedule(step_size)

    def update(i: Step, g: Any, state: Any) -> Any:
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + tnp.square(g) * (1.0 - gamma)
        return x - step_size(i) * g / tnp.sqrt(avg_sq_grad + eps), avg_sq_grad

    return lambda x0: (x0, tnp.zeros_like(x0)), update, _first


@optimizer
def rmsprop_momentum(
    step_size: float | Schedule, gamma: float = 0.9, eps: float = 1e-8, momentum: float = 0.9
) -> Optimizer:
    """RMSProp with momentum: the RMSProp step `step_size(i) * g / sqrt(a + eps)` is added to
    a momentum `mom = momentum * mom + step`, and `x = x - mom`.

    Parameters: `step_size`, a positive scalar or schedule; `gamma` (default 0.9); `eps`
    (default 1e-8); `momentum` (default 0.9).

    >>> from tf8.example_libraries import optimizers
    >>> init, update, get_params = optimizers.rmsprop_momentum(0.1)
    >>> print(round(float(get_params(update(0, 1.0, init(0.0)))), 6))
    -0.316228

    As JAX's.
    """
    step_size = make_schedule(step_size)

    def update(i: Step, g: Any, state: Any) -> Any:
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + tnp.square(g) * (1.0 - gamma)
        mom = momentum * mom + step_size(i) * g / tnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom

    return lambda x0: (x0, tnp.zeros_like(x0), tnp.zeros_like(x0)), update, _first


def _bias(beta: float, m: Any, i: Step) -> Any:
    """1 - beta ** (i + 1), beta in m's dtype (JAX's bias correction)."""
    return 1 - tnp.asarray(beta, tnp.asarray(m).dtype) ** (i + 1)


@optimizer
def adam(
    step_size: float | Schedule, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8
) -> Optimizer:
    """Adam (Kingma & Ba 2015): bias-corrected moving averages `mhat`, `vhat` of the gradient
    and its square; `x = x - step_size(i) * mhat / (sqrt(vhat) + eps)`.

    Parameters: `step_size`, a positive scalar or schedule; `b1`, `b2`, the decay rates of
    the first and second moment estimates (0.9, 0.999); `eps` (1e-8).

    >>> from tf8.example_libraries import optimizers
    >>> init, update, get_params = optimizers.adam(0.1)
    >>> print(round(float(get_params(update(0, 3.0, init(0.0)))), 6))
    -0.1

    As JAX's.
    """
    step_size = make_schedule(step_size)

    def update(i: Step, g: Any, state: Any) -> Any:
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * tnp.square(g) + b2 * v
        mhat, vhat = m / _bias(b1, m, i), v / _bias(b2, m, i)
        return x - step_size(i) * mhat / (tnp.sqrt(vhat) + eps), m, v

    return lambda x0: (x0, tnp.zeros_like(x0), tnp.zeros_like(x0)), update, _first


@optimizer
def adamax(
    step_size: float | Schedule, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8
) -> Optimizer:
    """AdaMax, Adam with an infinity norm: `u = max(b2 * u, |g|)` replaces the second
    moment; `x = x - step_size(i) / (1 - b1**(i+1)) * m / (u + eps)`.

    Parameters: `step_size`, a positive scalar or schedule; `b1`, `b2` (0.9, 0.999); `eps`
    (1e-8).

    >>> from tf8.example_libraries import optimizers
    >>> init, update, get_params = optimizers.adamax(0.1)
    >>> print(round(float(get_params(update(0, 3.0, init(0.0)))), 6))
    -0.1

    As JAX's.
    """
    step_size = make_schedule(step_size)

    def update(i: Step, g: Any, state: Any) -> Any:
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = tnp.maximum(b2 * u, tnp.abs(g))
        return x - (step_size(i) / _bias(b1, m, i)) * m / (u + eps), m, u

    return lambda x0: (x0, tnp.zeros_like(x0), tnp.zeros_like(x0)), update, _first


@optimizer
def sm3(step_size: float | Schedule, momentum: float = 0.9) -> Optimizer:
    """SM3 (Anil et al. 2019), a memory-efficient Adagrad: one accumulator vector per axis of
    each parameter (their broadcast minimum plus g**2 stands for the sum of squares), with
    momentum as `adagrad`'s. A scalar parameter is kept as a vector of one.

    Parameters: `step_size`, a positive scalar or schedule; `momentum` (default 0.9).

    >>> import tf8.numpy as tnp
    >>> from tf8.example_libraries import optimizers
    >>> init, update, get_params = optimizers.sm3(1.0)
    >>> print(get_params(update(0, tnp.array([[2.0, -4.0]]), init(tnp.zeros((1, 2))))))
    [[-0.1  0.1]]

    As JAX's (the state keeps the parameter's shape as int leaves, as JAX's does), except
    that Python scalars are accepted as parameters and gradients (JAX's needs arrays).
    """
    step_size = make_schedule(step_size)

    def init(x0: Any) -> Any:
        x_shape = tnp.shape(x0)
        x0 = tnp.atleast_1d(x0)
        vs = [tnp.zeros(size, dtype=x0.dtype) for size in x0.shape]
        return x0, tnp.zeros_like(x0), vs, x_shape

    def update(i: Step, g: Any, state: Any) -> Any:
        x, m, vs, x_shape = state
        g = tnp.asarray(g)
        # accumulator j, a vector along axis j, broadcast against g
        vs = [
            v[tuple(slice(None) if a == j else None for a in range(g.ndim))]
            for j, v in enumerate(vs)
        ]
        accum = functools.reduce(tnp.minimum, vs) + tnp.square(g)
        accum_inv_sqrt = tnp.where(accum > 0, 1.0 / tnp.sqrt(accum), 0)
        m = (1.0 - momentum) * (g * accum_inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        others = [tuple(a for a in range(x.ndim) if a != j) for j in range(x.ndim)]
        return x, m, [accum.max(axes) for axes in others], x_shape

    def get_params(state: Any) -> Any:
        x, _, _, x_shape = state
        return x.reshape(x_shape)

    return init, update, get_params
