"""A notebook-style autodiff tour (JAX's "autodiff cookbook" pattern), written once against
the JAX API: `run(jax)` takes the top-level module (`jax` or `tf8`) and returns named
results. `record.py` runs it under JAX (x64) and stores the numbers; the test runs it on tf8
through a plain renaming and compares them."""

from __future__ import annotations

from typing import Any

import numpy as np


def run(jax: Any) -> dict[str, Any]:
    jnp, random, lax = jax.numpy, jax.random, jax.lax
    out: dict[str, Any] = {}

    # derivatives of a scalar function, to third order
    grad_tanh = jax.grad(jnp.tanh)
    out["grad_tanh"] = grad_tanh(2.0)
    out["grad3_tanh"] = jax.grad(jax.grad(grad_tanh))(2.0)

    # logistic regression on random data, with jax.random
    key = random.PRNGKey(0)
    key, w_key, b_key = random.split(key, 3)
    inputs = jnp.array(
        [[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]]
    )
    targets = jnp.array([True, True, False, True])
    W = random.normal(w_key, (3,))
    b = random.normal(b_key, ())

    def predict(W, b, inputs):
        return jax.nn.sigmoid(jnp.dot(inputs, W) + b)

    def loss(W, b):
        preds = predict(W, b, inputs)
        label_probs = preds * targets + (1 - preds) * (1 - targets)
        return -jnp.sum(jnp.log(label_probs))

    out["W"], out["b"] = W, b
    out["loss"] = loss(W, b)
    out["W_grad"], out["b_grad"] = jax.grad(loss, (0, 1))(W, b)
    value, (gw, gb) = jax.value_and_grad(loss, argnums=(0, 1))(W, b)
    out["value"], out["gw"] = value, gw

    # pytrees of parameters
    def loss2(params):
        return loss(params["W"], params["b"])

    out["dict_grads_W"] = jax.grad(loss2)({"W": W, "b": b})["W"]

    # jacobians, hessians, hvp
    f = lambda W: predict(W, b, inputs)  # noqa: E731
    out["jacfwd"] = jax.jacfwd(f)(W)
    out["jacrev"] = jax.jacrev(f)(W)
    out["hessian"] = jax.hessian(lambda W: loss(W, b))(W)

    def hvp(f, x, v):
        return jax.grad(lambda x: jnp.vdot(jax.grad(f)(x), v))(x)

    out["hvp"] = hvp(lambda W: loss(W, b), W, jnp.array([1.0, -0.5, 0.25]))
    _, out["jvp_hvp"] = jax.jvp(
        jax.grad(lambda W: loss(W, b)), (W,), (jnp.array([1.0, -0.5, 0.25]),)
    )

    # vmap: per-example gradients
    def example_loss(W, x, t):
        p = predict(W, b, x)
        return -(t * jnp.log(p) + (1 - t) * jnp.log(1 - p))

    out["per_example"] = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(W, inputs, targets)
    out["jit_per_example"] = jax.jit(jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0)))(
        W, inputs, targets
    )

    # vjp and jvp
    y, f_vjp = jax.vjp(jnp.sin, jnp.array([0.3, 1.2]))
    out["vjp"] = f_vjp(jnp.array([1.0, 2.0]))[0]
    out["jvp"] = jax.jvp(lambda x: jnp.sin(x) * x, (jnp.array([0.3, 1.2]),), (jnp.ones(2),))[1]

    # has_aux, stop_gradient
    def with_aux(x):
        y = jnp.sin(x)
        return jnp.sum(y * jax.lax.stop_gradient(y)), {"y": y}

    g, aux = jax.grad(with_aux, has_aux=True)(jnp.array([0.1, 0.2, 0.3]))
    out["aux_grad"], out["aux_y"] = g, aux["y"]

    # custom_jvp: a numerically stable log1pexp
    @jax.custom_jvp
    def log1pexp(x):
        return jnp.log(1.0 + jnp.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        (x,), (x_dot,) = primals, tangents
        return log1pexp(x), x_dot * (1.0 - 1.0 / (1.0 + jnp.exp(x)))

    out["log1pexp_grad"] = jax.vmap(jax.grad(log1pexp))(jnp.array([0.0, 2.0, 10.0, 100.0]))

    # custom_vjp: gradient clipping
    @jax.custom_vjp
    def clip_gradient(lo, hi, x):
        return x

    def clip_fwd(lo, hi, x):
        return x, (lo, hi)

    def clip_bwd(res, g):
        lo, hi = res
        return (None, None, jnp.clip(g, lo, hi))

    clip_gradient.defvjp(clip_fwd, clip_bwd)
    out["clipped"] = jax.grad(lambda x: clip_gradient(-0.75, 0.75, 10.0 * jnp.sin(x)))(0.3)

    # a loop with a carried state, differentiated
    def rollout(theta):
        def step(carry, t):
            x, v = carry
            v = v - 0.1 * theta * x
            x = x + 0.1 * v
            return (x, v), x * t

        (x, v), xs = lax.scan(step, (1.0, 0.0), jnp.arange(20.0))
        return jnp.sum(xs) + x

    out["scan_grad"] = jax.grad(rollout)(0.7)
    out["fori"] = jax.grad(lambda a: lax.fori_loop(0, 5, lambda i, x: x * a + i, 1.0))(1.3)
    out["cond"] = jax.grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))(0.4)
    return {k: np.asarray(v) for k, v in out.items()}
