"""The transforms (grad, value_and_grad, jacfwd, jacrev, hessian, jvp, linearize,
linear_transpose, vmap, jit, checkpoint/remat, custom_jvp, custom_vjp, clear_caches) and
`experimental.ode.odeint`, applied to fixed test functions written once against `root.numpy`:
Rosenbrock, a softmax cross-entropy, functions of two arguments, of pytrees, with auxiliary
outputs, holomorphic ones. Each program is one row of BUILDERS below; the replay then runs it
eagerly, under jit and vmap, and differentiates it to second order as JAX did."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..spec import Case, program

# --- the test functions, each of `np_` (jax.numpy or tf8.numpy) --------------------------------

LABELS = np.eye(4)[np.arange(5) % 4]  # one-hot labels of 5 examples over 4 classes
MIX = np.array([[1.0, -0.5, 0.25], [0.3, 2.0, -1.0], [0.0, 0.7, 1.5]])


def rosenbrock(np_: Any) -> Callable:
    return lambda x: np_.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def cross_entropy(np_: Any) -> Callable:
    """Mean softmax cross-entropy of logits x @ w (x: (5, 3), w: (3, 4)) against LABELS."""

    def loss(w: Any, x: Any) -> Any:
        logits = x @ w
        top = np_.max(logits, axis=-1, keepdims=True)
        shifted = logits - top
        logp = shifted - np_.log(np_.sum(np_.exp(shifted), axis=-1, keepdims=True))
        return -np_.mean(np_.sum(np_.asarray(LABELS, logits.dtype) * logp, axis=-1))

    return loss


def two_args(np_: Any) -> Callable:
    return lambda x, y: np_.sum(np_.sin(x) * y**2) + np_.dot(x, y) ** 2 / 4


def vector(np_: Any) -> Callable:
    """A map R^3 -> R^3 with a full Jacobian."""
    return lambda x: np_.tanh(np_.asarray(MIX, x.dtype) @ x) * x + np_.exp(x[::-1]) / 3


def with_aux(np_: Any) -> Callable:
    return lambda x: (np_.sum(x**3) / 3, {"mean": np_.mean(x), "square": x**2})


def of_dict(np_: Any) -> Callable:
    return lambda p: np_.sum(p["w"] * np_.tanh(p["b"])) + p["b"][0] ** 2 * p["w"][-1]


def holomorphic(np_: Any) -> Callable:
    return lambda z: z**3 / 3 + np_.sin(z) * z


def softplus_custom_jvp(root: Any) -> Callable:
    np_ = root.numpy
    f = root.custom_jvp(lambda x: np_.log1p(np_.exp(x)))

    @f.defjvp
    def rule(primals: tuple, tangents: tuple) -> tuple:
        (x,), (t,) = primals, tangents
        return np_.log1p(np_.exp(x)), t / (1.0 + np_.exp(-x))

    return f


def product_custom_jvps(root: Any) -> Callable:
    np_ = root.numpy
    f = root.custom_jvp(lambda x, y: x * np_.sin(y))
    f.defjvps(lambda tx, out, x, y: tx * np_.sin(y), lambda ty, out, x, y: ty * x * np_.cos(y))
    return f


def power_custom_jvp(root: Any) -> Callable:
    """A custom_jvp function with a non-differentiable integer argument."""
    f = root.custom_jvp(lambda n, x: x**n, nondiff_argnums=(0,))

    @f.defjvp
    def rule(n: int, primals: tuple, tangents: tuple) -> tuple:
        (x,), (t,) = primals, tangents
        return x**n, n * x ** (n - 1) * t

    return f


def clipped_custom_vjp(root: Any) -> Callable:
    """Identity forward; the backward pass clips the cotangent to [-0.1, 0.1]."""
    np_ = root.numpy
    f = root.custom_vjp(lambda x: x * 1.0)
    f.defvjp(lambda x: (x * 1.0, None), lambda res, g: (np_.clip(g, -0.1, 0.1),))
    return f


def product_custom_vjp(root: Any) -> Callable:
    np_ = root.numpy
    f = root.custom_vjp(lambda x, y: x * np_.sin(y))
    f.defvjp(
        lambda x, y: (x * np_.sin(y), (x, y)),
        lambda res, g: (g * np_.sin(res[1]), g * res[0] * np_.cos(res[1])),
    )
    return f


def odeint(root: Any, dynamics: Callable) -> Callable:
    ode = importlib.import_module(f"{root.__name__}.experimental.ode")
    return lambda y0, ts, *args, **kw: ode.odeint(dynamics, y0, ts, *args, **kw)


def odeint_of_dict(root: Any) -> Callable:
    """odeint of a dict state {a: (), b: (2,)}."""
    np_ = root.numpy
    dynamics = lambda s, t: {"a": -np_.sum(s["b"]), "b": s["a"] * np_.cos(t) - s["b"] / 2}  # noqa: E731
    return lambda a, b, ts: odeint(root, dynamics)({"a": a, "b": b}, ts, rtol=1e-10, atol=1e-10)


def clear_then_jit(root: Any) -> Callable:
    def fn(x: Any) -> Any:
        root.clear_caches()
        return root.jit(root.numpy.sin)(x) * 2

    return fn


# name -> builder(root) -> the function of the case's arguments
BUILDERS: dict[str, Callable[[Any], Callable]] = {
    "grad_rosenbrock": lambda r: r.grad(rosenbrock(r.numpy)),
    "value_and_grad_rosenbrock": lambda r: r.value_and_grad(rosenbrock(r.numpy)),
    "grad_cross_entropy_both": lambda r: r.grad(cross_entropy(r.numpy), argnums=(0, 1)),
    "grad_cross_entropy_second": lambda r: r.grad(cross_entropy(r.numpy), argnums=1),
    "value_and_grad_two_args": lambda r: r.value_and_grad(two_args(r.numpy), argnums=(0, 1)),
    "grad_has_aux": lambda r: r.grad(with_aux(r.numpy), has_aux=True),
    "value_and_grad_has_aux": lambda r: r.value_and_grad(with_aux(r.numpy), has_aux=True),
    "grad_of_dict": lambda r: lambda w, b: r.grad(of_dict(r.numpy))({"w": w, "b": b}),
    "grad_holomorphic": lambda r: (
        lambda z: r.grad(lambda z: r.numpy.sum(holomorphic(r.numpy)(z)), holomorphic=True)(z)
    ),
    "grad_of_vector_output": lambda r: r.grad(vector(r.numpy)),  # refused
    "grad_of_complex_output": lambda r: r.grad(lambda z: r.numpy.sum(z**2)),  # refused
    "jacfwd_vector": lambda r: r.jacfwd(vector(r.numpy)),
    "jacrev_vector": lambda r: r.jacrev(vector(r.numpy)),
    "jacfwd_two_args": lambda r: r.jacfwd(lambda x, y: vector(r.numpy)(x * y), argnums=(0, 1)),
    "jacrev_two_args": lambda r: r.jacrev(lambda x, y: vector(r.numpy)(x * y), argnums=(0, 1)),
    "jacfwd_has_aux": lambda r: r.jacfwd(lambda x: (vector(r.numpy)(x), x.sum()), has_aux=True),
    "jacrev_of_dict": lambda r: (
        lambda w, b: r.jacrev(lambda p: {"f": vector(r.numpy)(p["w"]), "g": p["b"] * p["w"]})(
            {"w": w, "b": b}
        )
    ),
    "jacfwd_holomorphic": lambda r: r.jacfwd(holomorphic(r.numpy), holomorphic=True),
    "jacrev_holomorphic": lambda r: r.jacrev(holomorphic(r.numpy), holomorphic=True),
    "hessian_rosenbrock": lambda r: r.hessian(rosenbrock(r.numpy)),
    "hessian_two_args": lambda r: r.hessian(two_args(r.numpy), argnums=(0, 1)),
    "hessian_cross_entropy": lambda r: r.hessian(cross_entropy(r.numpy)),
    "hessian_of_dict": lambda r: lambda w, b: r.hessian(of_dict(r.numpy))({"w": w, "b": b}),
    "jvp_vector": lambda r: lambda x, t: r.jvp(vector(r.numpy), (x,), (t,)),
    "jvp_of_dict": lambda r: (
        lambda w, b, tw, tb: r.jvp(of_dict(r.numpy), ({"w": w, "b": b},), ({"w": tw, "b": tb},))
    ),
    "jvp_two_args": lambda r: lambda x, y, tx, ty: r.jvp(two_args(r.numpy), (x, y), (tx, ty)),
    "linearize_vector": lambda r: lambda x, t: _linearized(r, vector(r.numpy), (x,), (t,)),
    "linearize_two_args": lambda r: (
        lambda x, y, tx, ty: _linearized(r, two_args(r.numpy), (x, y), (tx, ty))
    ),
    "linear_transpose_weighted": lambda r: (
        lambda w, ct: r.linear_transpose(
            lambda x: w * x[::-1] + r.numpy.cumsum(x), r.numpy.zeros_like(ct)
        )(ct)
    ),
    "linear_transpose_pair": lambda r: (
        lambda ct: r.linear_transpose(
            lambda x, y: {"sum": x + 2.0 * y, "left": x @ r.numpy.asarray(MIX, x.dtype)},
            r.numpy.zeros_like(ct),
            r.numpy.zeros_like(ct),
        )({"sum": ct, "left": ct[::-1]})
    ),
    "vmap_rows": lambda r: r.vmap(lambda row: row @ row * r.numpy.sin(row)),
    "vmap_in_axes_none": lambda r: r.vmap(two_args(r.numpy), in_axes=(0, None)),
    "vmap_in_axis_1": lambda r: r.vmap(vector(r.numpy), in_axes=1),
    "vmap_in_axis_negative": lambda r: r.vmap(vector(r.numpy), in_axes=-1, out_axes=-1),
    "vmap_out_axes_1": lambda r: r.vmap(lambda row: r.numpy.outer(row, row[:2]), out_axes=1),
    "vmap_tuple_out_axes": lambda r: r.vmap(lambda row: (row.sum(), row * 2), out_axes=(0, 1)),
    "vmap_nested": lambda r: r.vmap(r.vmap(lambda x: r.numpy.sin(x) * x.sum())),
    "vmap_dict_in_axes": lambda r: (
        lambda a, b: r.vmap(
            lambda p: {"prod": p["a"] * p["b"], "a": p["a"]}, in_axes=({"a": 0, "b": None},)
        )({"a": a, "b": b})
    ),
    "vmap_axis_size": lambda r: r.vmap(lambda x: x * 2.0, in_axes=None, axis_size=3),
    "vmap_of_grad": lambda r: r.vmap(r.grad(two_args(r.numpy)), in_axes=(0, None)),
    "vmap_of_jacrev": lambda r: r.vmap(r.jacrev(vector(r.numpy))),
    "jit_of_vmap": lambda r: r.jit(r.vmap(vector(r.numpy))),
    "vmap_sizes_differ": lambda r: r.vmap(lambda x, y: x * y),  # refused
    "jit_rosenbrock": lambda r: r.jit(rosenbrock(r.numpy)),
    "jit_static_argnums": lambda r: lambda x: r.jit(lambda x, n: x**n, static_argnums=1)(x, 3),
    "jit_static_argnames": lambda r: (
        lambda x: r.jit(
            lambda x, kind: r.numpy.sin(x) if kind == "sin" else x, static_argnames="kind"
        )(x, kind="sin")
    ),
    "jit_of_grad": lambda r: r.jit(r.grad(rosenbrock(r.numpy))),
    "jit_pytree": lambda r: (
        lambda x, y: r.jit(lambda p: {"s": p[0] + p[1], "d": p[0] * p[1]})((x, y))
    ),
    "checkpoint_grad": lambda r: r.grad(
        r.checkpoint(lambda x: r.numpy.sum(r.numpy.sin(r.numpy.sin(x)) ** 2))
    ),
    "checkpoint_value": lambda r: r.checkpoint(vector(r.numpy)),
    "checkpoint_no_cse": lambda r: r.grad(r.checkpoint(rosenbrock(r.numpy), prevent_cse=False)),
    "checkpoint_static_argnums": lambda r: (
        lambda x: r.checkpoint(lambda x, n: x**n, static_argnums=(1,))(x, 3)
    ),
    "remat_grad": lambda r: r.grad(lambda x: r.remat(vector(r.numpy))(x).sum()),
    "checkpoint_of_dict": lambda r: (
        lambda a, b: r.checkpoint(lambda p: {"y": p["a"] * r.numpy.sin(p["b"])})({"a": a, "b": b})
    ),
    "custom_jvp_softplus": softplus_custom_jvp,
    "custom_jvp_defjvps": product_custom_jvps,
    "custom_jvp_nondiff": lambda r: lambda x: power_custom_jvp(r)(3, x),
    "grad_custom_jvp": lambda r: r.grad(lambda x: softplus_custom_jvp(r)(x).sum()),
    "custom_vjp_clipped": clipped_custom_vjp,
    "custom_vjp_product": product_custom_vjp,
    "grad_custom_vjp": lambda r: r.grad(lambda x, y: product_custom_vjp(r)(x, y).sum(), (0, 1)),
    "clear_caches_then_jit": clear_then_jit,
    "odeint_decay": lambda r: odeint(r, lambda y, t, k: -k * y + r.numpy.sin(t)),
    "odeint_oscillator": lambda r: odeint(
        r, lambda y, t, w: r.numpy.stack([y[1], -(w**2) * y[0] - 0.1 * y[1]])
    ),
    "odeint_pytree": odeint_of_dict,
}
for _name, _builder in BUILDERS.items():
    program(f"transforms.{_name}")(_builder)


def _linearized(root: Any, fn: Callable, primals: tuple, tangents: tuple) -> tuple:
    out, f_jvp = root.linearize(fn, *primals)
    return out, f_jvp(*tangents)


# --- cases -------------------------------------------------------------------------------------


def arguments(rng: np.random.Generator) -> dict[str, list[tuple]]:
    """Each program's argument tuples (float64 first, then float32 and others)."""
    x3, y3, t3 = (rng.uniform(-1.0, 1.0, 3) for _ in range(3))
    x4 = rng.uniform(-1.5, 1.5, 4)
    w, xs = rng.normal(size=(3, 4)), rng.normal(size=(5, 3))
    rows = rng.normal(size=(4, 3))
    z = (rng.uniform(-1, 1, 3) + 1j * rng.uniform(-1, 1, 3)).astype(np.complex128)
    ts = np.linspace(0.0, 1.5, 4)
    f32 = lambda *a: tuple(np.asarray(v, np.float32) for v in a)  # noqa: E731
    one = [(x3,), f32(x3)]
    return {
        "grad_rosenbrock": [(x4,), f32(x4), (np.array([0.5, 2.0]),), (np.arange(3),)],
        "value_and_grad_rosenbrock": [(x4,), f32(x4)],
        "grad_cross_entropy_both": [(w, xs), f32(w, xs)],
        "grad_cross_entropy_second": [(w, xs)],
        "value_and_grad_two_args": [(x3, y3), f32(x3, y3), (x3, np.float32(y3))],
        "grad_has_aux": one,
        "value_and_grad_has_aux": one,
        "grad_of_dict": [(x3, y3), f32(x3, y3)],
        "grad_holomorphic": [(z,), (z.astype(np.complex64),), (x3,)],
        "grad_of_vector_output": [(x3,)],
        "grad_of_complex_output": [(z,)],
        "jacfwd_vector": [*one, (z,)],
        "jacrev_vector": [*one, (np.array([1, 2, 3]),)],
        "jacfwd_two_args": [(x3, y3)],
        "jacrev_two_args": [(x3, y3), f32(x3, y3)],
        "jacfwd_has_aux": one,
        "jacrev_of_dict": [(x3, y3)],
        "jacfwd_holomorphic": [(z,), (z.astype(np.complex64),)],
        "jacrev_holomorphic": [(z,)],
        "hessian_rosenbrock": [(x4,), f32(x4)],
        "hessian_two_args": [(x3, y3)],
        "hessian_cross_entropy": [(w, xs)],
        "hessian_of_dict": [(x3, y3)],
        "jvp_vector": [(x3, t3), f32(x3, t3), (x3, t3.astype(np.float32))],
        "jvp_of_dict": [(x3, y3, t3, x3[::-1].copy())],
        "jvp_two_args": [(x3, y3, t3, t3)],
        "linearize_vector": [(x3, t3), f32(x3, t3)],
        "linearize_two_args": [(x3, y3, t3, t3)],
        "linear_transpose_weighted": [(x3, t3), f32(x3, t3)],
        "linear_transpose_pair": [(t3,), f32(t3)],
        "vmap_rows": [(rows,), f32(rows), (np.zeros((0, 3)),)],
        "vmap_in_axes_none": [(rows, y3), f32(rows, y3)],
        "vmap_in_axis_1": [(rows.T.copy(),)],
        "vmap_in_axis_negative": [(rows.T.copy(),)],
        "vmap_out_axes_1": [(rows,)],
        "vmap_tuple_out_axes": [(rows,)],
        "vmap_nested": [(rng.normal(size=(2, 3, 4)),)],
        "vmap_dict_in_axes": [(rows, y3)],
        "vmap_axis_size": [(x3,)],
        "vmap_of_grad": [(rows, y3)],
        "vmap_of_jacrev": [(rows,), f32(rows)],
        "jit_of_vmap": [(rows,)],
        "vmap_sizes_differ": [(x3, x4)],
        "jit_rosenbrock": [(x4,), f32(x4)],
        "jit_static_argnums": one,
        "jit_static_argnames": one,
        "jit_of_grad": [(x4,)],
        "jit_pytree": [(x3, y3), (x3, 2.0)],
        "checkpoint_grad": one,
        "checkpoint_value": one,
        "checkpoint_no_cse": [(x4,)],
        "checkpoint_static_argnums": [(x3,)],
        "remat_grad": one,
        "checkpoint_of_dict": [(x3, y3)],
        "custom_jvp_softplus": [*one, (rng.uniform(-30, 30, 5),)],
        "custom_jvp_defjvps": [(x3, y3), f32(x3, y3)],
        "custom_jvp_nondiff": one,
        "grad_custom_jvp": one,
        "custom_vjp_clipped": one,
        "custom_vjp_product": [(x3, y3), f32(x3, y3)],
        "grad_custom_vjp": [(x3, y3)],
        "clear_caches_then_jit": [(x3,)],
        "odeint_decay": [(np.array(1.0), ts, np.array(0.7)), (np.array([1.0, -2.0]), ts, 1.3)],
        "odeint_oscillator": [(np.array([1.0, 0.0]), ts, np.array(2.0))],
        "odeint_pytree": [(np.array(1.0), np.array([0.5, -0.5]), ts)],
    }


KEYWORDS: dict[str, list[dict]] = {
    "odeint_decay": [{"rtol": 1e-10, "atol": 1e-10}, {}],
    "odeint_oscillator": [{"rtol": 1e-9, "atol": 1e-9}, {"rtol": 1e-6, "atol": 1e-8}],
}


def cases() -> Iterator[Case]:
    table = arguments(np.random.default_rng(5))
    missing = set(BUILDERS) ^ set(table)
    assert not missing, f"programs and their arguments differ: {missing}"
    for name, argument_tuples in table.items():
        for args in argument_tuples:
            for keywords in KEYWORDS.get(name, [{}]):
                yield Case(f"transforms.{name}", args, keywords)


# which shared names each program calls (test_coverage); jvp and vjp also run on every case
_TRANSFORMS = """grad value_and_grad hessian jacfwd jacrev jvp vjp linearize linear_transpose vmap
jit checkpoint remat custom_jvp custom_vjp clear_caches""".split()
COVERS: dict[str, list[str]] = {
    f"transforms.{name}": [t for t in _TRANSFORMS if re.search(rf"(^|_){t}(_|$)", name)]
    + (["experimental.ode.odeint"] if name.startswith("odeint") else [])
    for name in BUILDERS
}
