"""The docstrings of tf8.example_libraries: their examples run, and every public name that
tf8 defines there has one with an example; the public names are JAX's."""

import doctest
import importlib

import pytest

from tf8.example_libraries import optimizers, stax

MODULES = [
    "tf8.example_libraries",
    "tf8.example_libraries.optimizers",
    "tf8.example_libraries._optimizer_core",
    "tf8.example_libraries._schedules",
    "tf8.example_libraries.stax",
    "tf8.example_libraries._stax_layers",
    "tf8.example_libraries._stax_pool",
    "tf8.example_libraries._stax_conv",
]

# jax 0.10.2's dir() of the two modules, less imported modules and helpers (jax, jnp, lax,
# math, functools, partial, safe_map, ...).
JAX_OPTIMIZERS = """Array InitFn JoinPoint Optimizer OptimizerState Params ParamsFn Schedule State
    Step UpdateFn Updates adagrad adam adamax clip_grads constant exponential_decay
    inverse_time_decay l2_norm make_schedule momentum nesterov optimizer pack_optimizer_state
    piecewise_constant polynomial_decay rmsprop rmsprop_momentum sgd sm3
    unpack_optimizer_state""".split()
JAX_STAX = """AvgPool BatchNorm Conv Conv1DTranspose ConvTranspose Dense Dropout Elu Exp
    FanInConcat FanInSum FanOut Flatten Gelu GeneralConv GeneralConvTranspose Identity
    LeakyRelu LogSoftmax MaxPool Relu Selu Sigmoid Softmax Softplus SumPool Tanh elementwise elu
    gelu glorot glorot_normal leaky_relu log_softmax logsoftmax normal ones parallel randn relu
    selu serial shape_dependent sigmoid softmax softplus standardize zeros""".split()
NOT_YET: set[str] = set()  # every stax name is there now


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, f"{result.failed} doctest failures in {name}"
    if name != "tf8.example_libraries":
        assert result.attempted >= 5, f"only {result.attempted} examples in {name}"


def test_public_names_are_jaxs():
    assert set(optimizers.__all__) == set(JAX_OPTIMIZERS)
    assert set(stax.__all__) == set(JAX_STAX) - NOT_YET
    for module in (optimizers, stax):
        for name in module.__all__:
            assert hasattr(module, name), name
    for name in NOT_YET:
        assert not hasattr(stax, name)


def defined_here(obj):
    if isinstance(obj, tuple):  # the named layers (Relu, Flatten, ...)
        return type(obj) is not tuple
    return getattr(obj, "__module__", "").startswith("tf8.example_libraries")


@pytest.mark.parametrize("module", [optimizers, stax], ids=["optimizers", "stax"])
def test_every_public_name_defined_here_has_an_example(module):
    checked = []
    for name in module.__all__:
        obj = getattr(module, name)
        if not defined_here(obj):
            continue  # a type alias, or tf8.nn's activation or initializer re-exported
        assert obj.__doc__ and ">>>" in obj.__doc__, f"{module.__name__}.{name}"
        checked.append(name)
    assert len(checked) >= 20
