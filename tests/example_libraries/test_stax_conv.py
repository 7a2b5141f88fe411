"""stax's convolution layers against jax.example_libraries.stax.

tf8.random's streams are bit-exact with jax.random's, so the initial parameters equal JAX's.
The expected numbers come from jax 0.10.2 with x64 enabled (JAX_ENABLE_X64=1): the programs
below, run under JAX (`jax` for `tf8`), printed to 10 significant digits and pasted here
(flattened). The conformance family lax_conv replays more layers (`stax.conv[init]`,
`stax.conv[apply]`) with their derivatives.
"""

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import lax, random
from tf8.errors import ParameterError
from tf8.example_libraries import optimizers, stax

X = np.arange(18.0).reshape(2, 3, 3, 1) / 9 - 1


def close(got, want, shape):
    np.testing.assert_allclose(np.asarray(got), np.reshape(want, shape), rtol=1e-8, atol=1e-12)


# fmt: off
# serial(Conv(2, (2, 2), padding="SAME"), Relu, Flatten, Dense(3)), PRNGKey(0), (-1, 3, 3, 1)
CONV_W = [-0.020809421, -0.635141661, 0.3463035417, -0.3967092258,
          -0.0996361175, -0.0826285866, 0.5894170468, -0.2366192761]
CONV_B = [1.2683470355e-06, -7.0369524762e-08]
NET_OUT = [0.4034226628, 0.3033232176, -0.8172695281, 0.6183359267, 0.0309994234, -0.1823342484]
# ConvTranspose(2, (2, 2), strides=(2, 2)), PRNGKey(1), (1, 2, 2, 1), on X[:1, :2, :2]
T_W = [0.4733906152, 0.1467962342, -0.3939887367, -0.5869352417,
       0.190181652, 0.6702876992, 0.0179576285, -0.3452265193]
T_OUT = [-0.0179569127, 0.3452265588, -0.1901809361, -0.6702876596, -0.0159616206, 0.3068680567,
         -0.1690496414, -0.5958112486, 0.3939894525, 0.5869352813, -0.4733898993, -0.1467961947,
         0.3502129262, 0.5217202544, -0.4207909421, -0.130485502, -0.0119710365, 0.2301510524,
         -0.1267870521, -0.4468584266, -0.0099757444, 0.1917925503, -0.1056557574, -0.3723820155,
         0.2626598737, 0.3912902007, -0.3155930276, -0.0978641166, 0.2188833474, 0.3260751738,
         -0.2629940703, -0.0815534239]
# GeneralConv(("NCHW", "OIHW", "NCHW"), 2, (2, 1), strides=(1, 2), padding=((1, 0), (0, 0))),
# PRNGKey(2), (-1, 1, 3, 3), on X[:, :, :, 0][:, None]
G_W = [-0.1748211821, -0.5901085192, 0.5175080019, 0.7961720728]
G_OUT = [5.9011083214e-01, 4.5897560565e-01, 5.6822917453e-01, 3.9824479645e-01,
         3.1325260741e-01, 1.4326822933e-01, -7.9617181514e-01, -6.1924468785e-01,
         -1.0482891261e+00, -7.5636022060e-01, -6.1039576786e-01, -3.1846686236e-01,
         2.3129082819e-06, -1.3113291359e-01, -1.9670052684e-01, -3.6668490492e-01,
         -4.5167709396e-01, -6.2166147204e-01, 2.5769341983e-07, 1.7692738499e-01,
         2.6539094864e-01, 5.5731985414e-01, 7.0328430689e-01, 9.9521321238e-01]
# Conv1DTranspose(1, (3,), padding="SAME"), PRNGKey(3), (2, 3, 1), on X[:, 0]
T1_OUT = [2.6621218894e-01, 8.2395855156e-01, 7.2878488973e-01,
          -5.5136506992e-05, -2.9640394891e-02, -1.2432005505e-01]
# fmt: on


def test_conv_net_initializes_and_applies_as_jax():
    init_fun, apply_fun = stax.serial(
        stax.Conv(2, (2, 2), padding="SAME"), stax.Relu, stax.Flatten, stax.Dense(3)
    )
    shape, params = init_fun(random.PRNGKey(0), (-1, 3, 3, 1))
    assert shape == (-1, 3)
    close(params[0][0], CONV_W, (2, 2, 1, 2))
    close(params[0][1], CONV_B, (1, 1, 1, 2))
    close(apply_fun(params, X), NET_OUT, (2, 3))


def test_transposed_and_general_layers_as_jax():
    init_fun, apply_fun = stax.ConvTranspose(2, (2, 2), strides=(2, 2))
    shape, (W, b) = init_fun(random.PRNGKey(1), (1, 2, 2, 1))
    assert (shape, W.shape, b.shape) == ((1, 4, 4, 2), (2, 2, 1, 2), (1, 1, 1, 2))
    close(W, T_W, (2, 2, 1, 2))
    close(apply_fun((W, b), X[:1, :2, :2]), T_OUT, (1, 4, 4, 2))

    init_fun, apply_fun = stax.GeneralConv(
        ("NCHW", "OIHW", "NCHW"), 2, (2, 1), strides=(1, 2), padding=((1, 0), (0, 0))
    )
    shape, (W, b) = init_fun(random.PRNGKey(2), (-1, 1, 3, 3))
    assert (shape, W.shape, b.shape) == ((-1, 2, 3, 2), (2, 1, 2, 1), (1, 2, 1, 1))
    close(W, G_W, (2, 1, 2, 1))
    close(apply_fun((W, b), X[:, :, :, 0][:, None]), G_OUT, (2, 2, 3, 2))

    init_fun, apply_fun = stax.Conv1DTranspose(1, (3,), padding="SAME")
    shape, (W, b) = init_fun(random.PRNGKey(3), (2, 3, 1))
    assert (shape, W.shape, b.shape) == ((2, 3, 1), (3, 1, 1), (1, 1, 1))
    close(apply_fun((W, b), X[:, 0]), T1_OUT, (2, 3, 1))


def test_apply_is_the_convolution_plus_the_bias_and_custom_initializers_are_used():
    ones = lambda key, shape: tnp.ones(shape)  # noqa: E731
    init_fun, apply_fun = stax.GeneralConvTranspose(
        ("NCHW", "IOHW", "NCHW"), 3, (2, 2), strides=(2, 1), W_init=ones, b_init=ones
    )
    shape, (W, b) = init_fun(random.PRNGKey(0), (4, 2, 3, 3))
    assert W.shape == (2, 3, 2, 2) and np.all(np.asarray(W) == 1) and b.shape == (1, 3, 1, 1)
    x = np.random.default_rng(0).uniform(-1, 1, (4, 2, 3, 3))
    out = apply_fun((W, b), x)
    expected = lax.conv_transpose(x, W, (2, 1), "VALID", dimension_numbers=("NCHW", "IOHW", "NCHW"))
    assert out.shape == shape
    np.testing.assert_allclose(np.asarray(out), np.asarray(expected) + 1, rtol=1e-13)


def test_a_small_convnet_trains():
    """The gradient of a conv net's loss reaches every parameter, and descends."""
    init_fun, apply_fun = stax.serial(
        stax.Conv(3, (3, 3), padding="SAME"), stax.Relu, stax.Conv(2, (2, 2), strides=(2, 2)),
        stax.Flatten, stax.Dense(1),
    )  # fmt: skip
    _, params = init_fun(random.PRNGKey(0), (-1, 6, 6, 1))
    images = np.random.default_rng(1).uniform(-1, 1, (8, 6, 6, 1))
    targets = images.mean(axis=(1, 2, 3))[:, None]
    loss = lambda p: tnp.mean((apply_fun(p, images) - targets) ** 2)  # noqa: E731
    opt_init, opt_update, get_params = optimizers.adam(1e-2)
    step = tf8.jit(lambda i, state: opt_update(i, tf8.grad(loss)(get_params(state)), state))
    state, before = opt_init(params), float(loss(params))
    for i in range(60):
        state = step(i, state)
    assert float(loss(get_params(state))) < 0.5 * before


def test_shape_mistakes_raise():
    init_fun, _ = stax.Conv(2, (3,))
    with pytest.raises(ParameterError, match="filter_shape"):
        init_fun(random.PRNGKey(0), (1, 5, 5, 1))
