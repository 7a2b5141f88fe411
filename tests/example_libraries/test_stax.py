"""tf8.example_libraries.stax against jax.example_libraries.stax.

tf8.random's streams are bit-exact with jax.random's, so initial parameters and dropout masks
equal JAX's. The expected numbers come from jax 0.10.2 with x64 enabled (JAX_ENABLE_X64=1):
the same programs run under JAX, printed to 10 significant digits and pasted here.
"""

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import random
from tf8.errors import ParameterError
from tf8.example_libraries import optimizers, stax

RTOL, ATOL = 1e-6, 1e-12
X = np.arange(6.0).reshape(2, 3) / 5 - 0.5


def close(got, want):
    np.testing.assert_allclose(np.asarray(got), want, rtol=RTOL, atol=ATOL)


# fmt: off
# jax 0.10.2, x64: serial(Dense(4), Relu, Dense(2), LogSoftmax) initialized with PRNGKey(0)
# for input shape (-1, 3), and its outputs on X.
MLP_W1 = [[-0.02724592769, -0.8315956396, 0.4534177695, -0.5194143018],
          [-0.1304543001, -0.108186215, 0.7717280665, -0.3098073553],
          [0.2823973877, 0.7538487972, 0.7818898967, -0.6882785766]]
MLP_B1 = [0.01268347036, -0.0007036952476, 0.006075157929, -0.01449559534]
MLP_W2 = [[-0.3012747579, -0.4727880792], [1.146701675, -0.4181527705],
          [0.5311869636, 0.6959027845], [-0.0362247941, 0.718021165]]
MLP_B2 = [-0.002608960232, 0.01198997165]
MLP_OUT = [[-0.5684444312, -0.8356462907], [-0.5537491643, -0.8551739501]]
# jax 0.10.2, x64: each elementwise layer on XE.
XE = np.array([[-1.5, -0.3, 0.0, 0.7, 2.5]])
ELEMENTWISE = {
    "Tanh": [-0.9051482536, -0.2913126125, 0, 0.6043677771, 0.9866142982],
    "Relu": [0, 0, 0, 0.7, 2.5],
    "Exp": [0.2231301601, 0.7408182207, 1, 2.013752707, 12.18249396],
    "LogSoftmax": [-4.282551123, -3.082551123, -2.782551123, -2.082551123, -0.2825511229],
    "Softmax": [0.01380739276, 0.04584215837, 0.06188044123, 0.1246119061, 0.7538581016],
    "Softplus": [0.201413278, 0.5543552445, 0.6931471806, 1.103186049, 2.578889734],
    "Sigmoid": [0.1824255238, 0.4255574832, 0.5, 0.6681877722, 0.92414182],
    "Elu": [-0.7768698399, -0.2591817793, 0, 0.7, 2.5],
    "LeakyRelu": [-0.015, -0.003, 0, 0.7, 2.5],
    "Selu": [-1.365814353, -0.4556673154, 0, 0.7354906911, 2.626752468],
    "Gelu": [-0.100428423, -0.1146290765, 0, 0.5305701347, 2.484915734],
}
# fmt: on


def test_mlp_init_and_apply_match_jax():
    init_fun, apply_fun = stax.serial(stax.Dense(4), stax.Relu, stax.Dense(2), stax.LogSoftmax)
    out_shape, params = init_fun(random.PRNGKey(0), (-1, 3))
    assert out_shape == (-1, 2)
    assert len(params) == 4 and params[1] == () and params[3] == ()
    (w1, b1), (w2, b2) = params[0], params[2]
    assert [np.shape(p) for p in (w1, b1, w2, b2)] == [(3, 4), (4,), (4, 2), (2,)]
    assert np.asarray(w1).dtype == np.float64
    for got, want in [(w1, MLP_W1), (b1, MLP_B1), (w2, MLP_W2), (b2, MLP_B2)]:
        close(got, want)
    close(apply_fun(params, X), MLP_OUT)


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_layers_match_jax(name):
    init_fun, apply_fun = getattr(stax, name)
    assert init_fun(random.PRNGKey(0), (1, 5)) == ((1, 5), ())
    close(apply_fun((), XE), [ELEMENTWISE[name]])


def test_named_layers_unpack_as_tuples():
    for layer in (stax.Relu, stax.Flatten, stax.Identity, stax.FanInSum):
        init_fun, apply_fun = layer
        assert isinstance(layer, tuple) and len(layer) == 2 and callable(apply_fun)
    assert stax.logsoftmax is stax.log_softmax
    assert stax.glorot is stax.glorot_normal and stax.randn is stax.normal


def test_dropout_train_matches_jax_and_test_mode_is_identity():
    x = np.arange(1.0, 11.0).reshape(2, 5)
    _, apply_fun = stax.Dropout(0.7)
    got = apply_fun((), x, rng=random.PRNGKey(3))
    # jax 0.10.2, x64: kept entries divided by the keep rate 0.7
    want = [[0, 2.857142857, 4.285714286, 5.714285714, 7.142857143],
            [8.571428571, 0, 11.42857143, 0, 0]]  # fmt: skip
    close(got, want)
    other = np.asarray(apply_fun((), x, rng=random.PRNGKey(4)))
    assert not np.array_equal(other, np.asarray(got))  # another key, another mask
    _, test_apply = stax.Dropout(0.7, mode="test")
    np.testing.assert_array_equal(np.asarray(test_apply((), x, rng=random.PRNGKey(3))), x)
    with pytest.raises(ParameterError, match="PRNG key"):
        apply_fun((), x)


def test_serial_passes_split_keys_to_dropout():
    init_fun, apply_fun = stax.serial(stax.Dense(4), stax.Dropout(0.5), stax.Dense(2))
    _, params = init_fun(random.PRNGKey(4), (-1, 3))
    got = apply_fun(params, X, rng=random.PRNGKey(5))
    close(got, [[-0.5333709163, 0.05231298939], [0.6784653223, -0.07329217744]])  # jax


def test_batchnorm_matches_jax():
    xb = np.sin(np.arange(24.0)).reshape(2, 2, 2, 3)
    init_fun, apply_fun = stax.BatchNorm()
    out_shape, (beta, gamma) = init_fun(random.PRNGKey(0), xb.shape)
    assert out_shape == xb.shape and np.shape(beta) == np.shape(gamma) == (3,)
    np.testing.assert_array_equal(np.asarray(beta), 0.0)
    np.testing.assert_array_equal(np.asarray(gamma), 1.0)
    y = np.asarray(apply_fun((beta + 0.5, gamma * 2.0), xb))
    # jax 0.10.2, x64
    close(y[0, 0], [[0.2751565678, 3.443068049, 2.410189576],
                    [0.8115806409, -2.567402619, -1.533784771]])  # fmt: skip
    close(y[1, 1], [[-2.579489228, 0.8422590191, 2.417890441],
                    [3.455444265, 0.2453442112, -1.295857349]])  # fmt: skip
    mean = (y - 0.5).mean(axis=(0, 1, 2))
    np.testing.assert_allclose(mean, 0.0, atol=1e-12)

    init_fun, apply_fun = stax.BatchNorm(axis=0, center=False)
    out_shape, params = init_fun(random.PRNGKey(0), (4, 6))
    assert out_shape == (4, 6) and params[0] == () and np.shape(params[1]) == (6,)
    y = apply_fun(params, xb.reshape(4, 6))
    close(np.asarray(y)[:, 0], [1.393426821, 0.3995503783, -0.5151544364, -1.277822762])
    close(np.asarray(y)[3], [-1.277822762, -1.415971031, -0.9501274581, 1.252313611,
                             1.394682582, 1.658489173])  # fmt: skip


def test_fanout_parallel_faninsum_matches_jax():
    init_fun, apply_fun = stax.serial(
        stax.Dense(3), stax.FanOut(2), stax.parallel(stax.Dense(3), stax.Identity), stax.FanInSum
    )
    out_shape, params = init_fun(random.PRNGKey(1), (-1, 3))
    assert out_shape == (-1, 3)
    assert params[1] == () and len(params[2]) == 2 and params[2][1] == ()
    got = apply_fun(params, X)
    close(got, [[1.129806822, -0.09409619423, -0.04241238994],
                [-0.8426978142, -0.4402759632, 0.2028728208]])  # fmt: skip


def test_fanout_parallel_faninconcat_matches_jax():
    init_fun, apply_fun = stax.serial(
        stax.FanOut(2), stax.parallel(stax.Dense(2), stax.Dense(3)), stax.FanInConcat()
    )
    out_shape, params = init_fun(random.PRNGKey(2), (-1, 3))
    assert out_shape == (-1, 5)
    got = apply_fun(params, X)
    # fmt: off
    close(got, [[-0.008090718771, -0.0559017015, -0.1895891152, 0.3152354872, -0.06142801876],
                [0.7645104069, -0.3437510463, 0.6048294099, 0.4956853262, -0.5219809695]])
    # fmt: on
    init_fun, apply_fun = stax.FanInConcat(axis=0)
    assert init_fun(None, [(2, 3), (4, 3)]) == ((6, 3), ())


def test_parallel_shapes_and_fanout():
    init_fun, apply_fun = stax.parallel(stax.Dense(2), stax.Flatten)
    out_shapes, params = init_fun(random.PRNGKey(0), [(5, 3), (5, 2, 2)])
    assert tuple(out_shapes) == ((5, 2), (5, 4))
    outs = apply_fun(params, [np.ones((5, 3)), np.ones((5, 2, 2))])
    assert [np.shape(o) for o in outs] == [(5, 2), (5, 4)]
    init_fun, apply_fun = stax.FanOut(3)
    assert init_fun(None, (2,)) == ([(2,), (2,), (2,)], ())
    assert len(apply_fun((), X)) == 3


def test_flatten_and_identity():
    init_fun, apply_fun = stax.Flatten
    assert init_fun(None, (2, 3, 4)) == ((2, 12), ())
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(np.asarray(apply_fun((), x)), x.reshape(2, 12))
    init_fun, apply_fun = stax.Identity
    assert init_fun(None, (7,)) == ((7,), ())
    np.testing.assert_array_equal(np.asarray(apply_fun((), X)), X)


def test_shape_dependent_matches_jax():
    init_fun, apply_fun = stax.shape_dependent(lambda shape: stax.Dense(shape[-1] + 1))
    out_shape, params = init_fun(random.PRNGKey(6), (2, 3))
    assert out_shape == (2, 4) and np.shape(params[0]) == (3, 4)
    want = [[0.2041707294, -0.3644656129, 0.1258238769, -0.4409542208],
            [0.07432297453, 0.3038767163, -0.1433692471, 0.2968220121]]  # fmt: skip
    close(apply_fun(params, X), want)  # jax 0.10.2, x64


def test_training_loop_matches_jax():
    """JAX's mnist_classifier pattern on 12 synthetic examples, 20 jitted momentum steps."""
    rs = np.random.RandomState(0)
    inputs = rs.randn(12, 5)
    labels = (inputs[:, 0] + inputs[:, 1] > 0).astype(int) + (inputs[:, 2] > 0.5).astype(int)
    batch = (inputs, np.eye(3)[labels])
    init_random_params, predict = stax.serial(
        stax.Dense(8), stax.Relu, stax.Dense(3), stax.LogSoftmax
    )

    def loss(params, batch):
        x, targets = batch
        return -tnp.mean(tnp.sum(predict(params, x) * targets, axis=1))

    opt_init, opt_update, get_params = optimizers.momentum(0.1, mass=0.9)

    @tf8.jit
    def update(i, opt_state, batch):
        return opt_update(i, tf8.grad(loss)(get_params(opt_state), batch), opt_state)

    _, init_params = init_random_params(random.PRNGKey(0), (-1, 5))
    opt_state = opt_init(init_params)
    close(loss(init_params, batch), 1.175569597)  # jax 0.10.2, x64
    for i in range(20):
        opt_state = update(i, opt_state, batch)
    params = get_params(opt_state)
    # jax 0.10.2, x64: the loss and parameters after the 20 steps
    # fmt: off
    close(loss(params, batch), 0.1093169716)
    close(params[0][0][0], [1.220732182, -0.2353964291, 0.4833549892, -0.7619573552,
                            -0.2283341039, 0.9846129229, 0.4959423746, -0.3527116524])
    close(params[0][0][4], [0.5287030764, -0.2528315241, -1.01949499, 0.2168697702,
                            -0.2345328694, -1.312120372, 0.1765765724, 0.1716193868])
    close(params[0][1], [0.08282706461, -0.3453832757, -0.009714389408, 0.1947407695,
                         0.001615363691, 0.2095019441, -0.06496479277, 0.14689689])
    close(params[2][0][0], [-0.559816745, -0.5328416988, 1.367870465])
    close(params[2][0][7], [1.229964272, -0.6326011854, -0.09340253276])
    close(params[2][1], [0.714156023, 0.2257940297, -0.9124362866])
    # fmt: on
