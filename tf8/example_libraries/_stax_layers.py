"""The layers of `tf8.example_libraries.stax`: each is an `(init_fun, apply_fun)` pair, or a
constructor returning one. `init_fun(rng, input_shape)` returns `(output_shape, params)`;
`apply_fun(params, inputs, **kwargs)` returns the outputs (`rng=` a key where the layer is
random)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import tf8.numpy as tnp
import tf8.random as random
from tf8.errors import ParameterError
from tf8.nn import (
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    selu,
    sigmoid,
    softmax,
    softplus,
    standardize,
)
from tf8.nn.initializers import glorot_normal, normal, ones, zeros

_LayerPair = tuple[Callable[..., Any], Callable[..., Any]]
_PUBLIC = "tf8.example_libraries.stax"


class _Layer(tuple):
    """An `(init_fun, apply_fun)` pair that carries a docstring: the layers stax names
    directly (`Relu`, `Flatten`, ...), which JAX makes plain tuples. It unpacks, indexes and
    composes as those tuples do."""

    def __new__(cls, init_fun: Callable[..., Any], apply_fun: Callable[..., Any], doc: str):
        layer = super().__new__(cls, (init_fun, apply_fun))
        layer.__doc__ = doc
        return layer

    def __repr__(self) -> str:
        return f"<stax layer {self.__doc__.split(':')[0]}>"


def Dense(
    out_dim: int,
    W_init: Any = glorot_normal(),  # noqa: B008 - JAX's defaults, built once
    b_init: Any = normal(),  # noqa: B008
) -> _LayerPair:
    """A dense (fully connected) layer: `inputs @ W + b`, with `W` of shape
    `(input_shape[-1], out_dim)` drawn by `W_init` and `b` of shape `(out_dim,)` by `b_init`
    (from the two halves of `random.split(rng)`).

    Parameters: `out_dim`; `W_init`, `b_init`: initializers `init(key, shape)` (glorot_normal
    and normal(1e-2) by default).

    >>> from tf8 import random
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.Dense(4)
    >>> out_shape, (W, b) = init_fun(random.PRNGKey(0), (-1, 3))
    >>> out_shape, W.shape, b.shape
    ((-1, 4), (3, 4), (4,))
    >>> apply_fun((W, b), random.normal(random.PRNGKey(1), (5, 3))).shape
    (5, 4)

    As JAX's.
    """

    def init_fun(rng: Any, input_shape: tuple[int, ...]) -> tuple[Any, Any]:
        output_shape = tuple(input_shape[:-1]) + (out_dim,)
        k1, k2 = random.split(rng)
        return output_shape, (W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,)))

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        W, b = params
        return tnp.dot(inputs, W) + b

    return init_fun, apply_fun


def BatchNorm(
    axis: Any = (0, 1, 2),
    epsilon: float = 1e-5,
    center: bool = True,
    scale: bool = True,
    beta_init: Any = zeros,
    gamma_init: Any = ones,
) -> _LayerPair:
    """Batch normalization: the inputs standardized over `axis` (`tf8.nn.standardize`), then
    scaled by `gamma` and shifted by `beta`, parameters over the other axes. No running
    averages are kept (as JAX's).

    Parameters: `axis`, an int or tuple of the axes normalized over; `epsilon`; `center`,
    `scale`: whether `beta`, `gamma` exist (an absent one is `()`); `beta_init`,
    `gamma_init`: their initializers (zeros, ones).

    >>> import tf8.numpy as tnp
    >>> from tf8 import random
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.BatchNorm(axis=0)
    >>> out_shape, (beta, gamma) = init_fun(random.PRNGKey(0), (4, 3))
    >>> out_shape, beta.shape, gamma.shape
    ((4, 3), (3,), (3,))
    >>> y = apply_fun((beta, gamma), tnp.arange(12.0).reshape(4, 3))
    >>> print(tnp.round(y[:, 0], 4))
    [-1.3416 -0.4472  0.4472  1.3416]

    As JAX's (JAX tests `jnp.isscalar(axis)`; an `np.ndim(axis) == 0` check here, since
    tf8.numpy has no isscalar yet).
    """
    axis = (axis,) if np.ndim(axis) == 0 else tuple(axis)

    def init_fun(rng: Any, input_shape: tuple[int, ...]) -> tuple[Any, Any]:
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params: Any, x: Any, **kwargs: Any) -> Any:
        beta, gamma = params
        ed = tuple(None if i in axis else slice(None) for i in range(tnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if center and scale:
            return gamma[ed] * z + beta[ed]
        if center:
            return z + beta[ed]
        if scale:
            return gamma[ed] * z
        return z

    return init_fun, apply_fun


def elementwise(fun: Callable[..., Any], **fun_kwargs: Any) -> _LayerPair:
    """A layer without parameters that applies `fun(inputs, **fun_kwargs)`; the output shape
    is the input shape.

    >>> import tf8.numpy as tnp
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.elementwise(tnp.clip, min=0.0, max=1.0)
    >>> init_fun(None, (2,))
    ((2,), ())
    >>> print(apply_fun((), tnp.array([-1.0, 0.5, 3.0])))
    [0.  0.5 1. ]

    As JAX's.
    """

    def init_fun(rng: Any, input_shape: Any) -> tuple[Any, Any]:
        return input_shape, ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        return fun(inputs, **fun_kwargs)

    return init_fun, apply_fun


def _named(fun: Callable[..., Any], what: str, example: str, **fun_kwargs: Any) -> _Layer:
    doc = (
        f"{what}: `elementwise({fun.__name__}"
        + "".join(f", {k}={v!r}" for k, v in fun_kwargs.items())
        + ")`, a layer without parameters. As JAX's.\n\n"
        + ">>> import tf8.numpy as tnp\n>>> from tf8.example_libraries import stax\n"
        + f">>> init_fun, apply_fun = stax.{what}\n"
        + ">>> print(tnp.round(apply_fun((), tnp.array([-1.0, 0.0, 2.0])), 4))\n"
        + example
        + "\n"
    )
    return _Layer(*elementwise(fun, **fun_kwargs), doc)


Tanh = _named(tnp.tanh, "Tanh", "[-0.7616  0.      0.964 ]")
Relu = _named(relu, "Relu", "[0. 0. 2.]")
Exp = _named(tnp.exp, "Exp", "[0.3679 1.     7.3891]")
LogSoftmax = _named(log_softmax, "LogSoftmax", "[-3.1698 -2.1698 -0.1698]", axis=-1)
Softmax = _named(softmax, "Softmax", "[0.042  0.1142 0.8438]", axis=-1)
Softplus = _named(softplus, "Softplus", "[0.3133 0.6931 2.1269]")
Sigmoid = _named(sigmoid, "Sigmoid", "[0.2689 0.5    0.8808]")
Elu = _named(elu, "Elu", "[-0.6321  0.      2.    ]")
LeakyRelu = _named(leaky_relu, "LeakyRelu", "[-0.01  0.    2.  ]")
Selu = _named(selu, "Selu", "[-1.1113  0.      2.1014]")
Gelu = _named(gelu, "Gelu", "[-0.1588  0.      1.9546]")


def _flatten_init(rng: Any, input_shape: tuple[int, ...]) -> tuple[Any, Any]:
    return (input_shape[0], math.prod(input_shape[1:])), ()


Flatten = _Layer(
    _flatten_init,
    lambda params, inputs, **kwargs: tnp.reshape(inputs, (inputs.shape[0], -1)),
    """Flatten: the layer that reshapes its inputs to `(leading dim, everything else)`.

    >>> import tf8.numpy as tnp
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.Flatten
    >>> init_fun(None, (2, 3, 4))
    ((2, 12), ())
    >>> apply_fun((), tnp.zeros((2, 3, 4))).shape
    (2, 12)

    As JAX's.
    """,
)

Identity = _Layer(
    lambda rng, input_shape: (input_shape, ()),
    lambda params, inputs, **kwargs: inputs,
    """Identity: the layer that returns its inputs.

    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.Identity
    >>> init_fun(None, (2, 3)), apply_fun((), "x")
    (((2, 3), ()), 'x')

    As JAX's.
    """,
)


def FanOut(num: int) -> _LayerPair:
    """A layer that copies its input `num` times into a list (for `parallel`).

    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.FanOut(2)
    >>> init_fun(None, (3,)), apply_fun((), "x")
    (([(3,), (3,)], ()), ['x', 'x'])

    As JAX's.
    """
    return (lambda rng, input_shape: ([input_shape] * num, ())), (
        lambda params, inputs, **kwargs: [inputs] * num
    )


FanInSum = _Layer(
    lambda rng, input_shape: (input_shape[0], ()),
    lambda params, inputs, **kwargs: sum(inputs),
    """FanInSum: the layer that sums a list of inputs (of one shape) into one.

    >>> import tf8.numpy as tnp
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.FanInSum
    >>> init_fun(None, [(2,), (2,)])
    ((2,), ())
    >>> print(apply_fun((), [tnp.array([1.0, 2.0]), tnp.array([10.0, 20.0])]))
    [11. 22.]

    As JAX's.
    """,
)


def FanInConcat(axis: int = -1) -> _LayerPair:
    """A layer that concatenates a list of inputs along `axis`.

    >>> import tf8.numpy as tnp
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.FanInConcat()
    >>> init_fun(None, [(5, 2), (5, 3)])
    ((5, 5), ())
    >>> apply_fun((), [tnp.zeros((5, 2)), tnp.ones((5, 3))]).shape
    (5, 5)

    As JAX's.
    """

    def init_fun(rng: Any, input_shape: Any) -> tuple[Any, Any]:
        ax = axis % len(input_shape[0])
        concat_size = sum(shape[ax] for shape in input_shape)
        first = tuple(input_shape[0])
        return first[:ax] + (concat_size,) + first[ax + 1 :], ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        return tnp.concatenate(inputs, axis)

    return init_fun, apply_fun


def Dropout(rate: float, mode: str = "train") -> _LayerPair:
    """Dropout. In `mode="train"`, each input is kept with probability `rate` (JAX's
    convention: `rate` is the keep rate) and divided by `rate`, the others set to 0. In any
    other mode it returns its inputs. `apply_fun` needs `rng=` a key in every mode, as JAX's.

    Parameters: `rate`, the probability of keeping an input; `mode`.

    >>> import tf8.numpy as tnp
    >>> from tf8 import random
    >>> from tf8.example_libraries import stax
    >>> init_fun, apply_fun = stax.Dropout(0.5)
    >>> print(apply_fun((), tnp.ones(6), rng=random.PRNGKey(0)))
    [2. 2. 0. 0. 0. 2.]
    >>> print(stax.Dropout(0.5, mode="test")[1]((), tnp.ones(3), rng=random.PRNGKey(0)))
    [1. 1. 1.]

    Differs from JAX: training without a key raises tf8.errors.ParameterError (a
    ValueError, as JAX's ValueError).
    """

    def init_fun(rng: Any, input_shape: Any) -> tuple[Any, Any]:
        return input_shape, ()

    def apply_fun(params: Any, inputs: Any, **kwargs: Any) -> Any:
        rng = kwargs.get("rng", None)
        if rng is None:
            raise ParameterError(
                "Dropout: apply_fun needs a PRNG key: call apply_fun(params, inputs, rng=key) "
                "(a key from tf8.random.PRNGKey or tf8.random.key)"
            )
        if mode == "train":
            keep = random.bernoulli(rng, rate, tnp.shape(inputs))
            return tnp.where(keep, inputs / rate, 0)
        return inputs

    return init_fun, apply_fun


NAMED_LAYERS = {
    name: layer for name, layer in globals().items() if isinstance(layer, _Layer) and name[0] != "_"
}
__test__ = {name: layer.__doc__ for name, layer in NAMED_LAYERS.items()}  # doctest runs these
for _fun in (Dense, BatchNorm, elementwise, FanOut, FanInConcat, Dropout):
    _fun.__module__ = _PUBLIC
