"""tf8.example_libraries.optimizers against jax.example_libraries.optimizers.

The expected numbers come from jax 0.10.2 with x64 enabled (JAX_ENABLE_X64=1): the same
programs run under JAX, their results printed to 10 significant digits and pasted here.
"""

import pickle

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import tree
from tf8.errors import ParameterError, TreeStructureError
from tf8.example_libraries import optimizers

RTOL, ATOL = 1e-6, 1e-12


def params0():
    return {"w": np.arange(6.0).reshape(2, 3) / 4 - 0.5, "b": np.array([0.5, -1.0, 2.0])}


def grads(k):
    """The fixed gradient of step k (w[0, 0]'s is 0 at every step)."""
    return {
        "w": np.sin(np.arange(6.0).reshape(2, 3) * (k + 1)),
        "b": np.cos(np.arange(3.0) + k) - 0.5,
    }


CONFIGS = {
    "sgd": lambda: optimizers.sgd(0.1),
    "sgd_exp": lambda: optimizers.sgd(optimizers.exponential_decay(0.1, 2, 0.5)),
    "momentum": lambda: optimizers.momentum(0.1, 0.9),
    "momentum_pw": lambda: optimizers.momentum(
        optimizers.piecewise_constant([1], [0.1, 0.01]), 0.9
    ),
    "nesterov": lambda: optimizers.nesterov(0.1, 0.9),
    "adagrad": lambda: optimizers.adagrad(0.1),
    "rmsprop": lambda: optimizers.rmsprop(0.1),
    "rmsprop_momentum": lambda: optimizers.rmsprop_momentum(0.1),
    "adam": lambda: optimizers.adam(0.1),
    "adam_inv": lambda: optimizers.adam(optimizers.inverse_time_decay(0.1, 2, 0.5, staircase=True)),
    "adamax": lambda: optimizers.adamax(0.1),
    "sm3": lambda: optimizers.sm3(0.1),
    "sm3_poly": lambda: optimizers.sm3(optimizers.polynomial_decay(0.1, 2, 0.01, power=2.0)),
}

# jax 0.10.2, x64: params after 4 updates (steps 0..3) with grads(0..3), from params0().
# fmt: off
JAX_PARAMS = {
    "sgd": ([[-0.5, -0.3635085924, -0.08624376799], [0.2762749923, 0.5591920483, 0.7439712295]],
            [0.6865837027, -0.6480519352, 2.377612077]),
    "sgd_exp": ([[-0.5, -0.3787431277, -0.05842404639], [0.2540104517, 0.5427296223, 0.8195686482]],
                [0.5456367284, -0.8239617803, 2.262303941]),
    "momentum": ([[-0.5, -0.7369340263, -0.1534607889], [0.2525452088, 0.6228874794, 1.012354564]],
                 [0.6401952237, -0.3671212338, 2.959676933]),
    "momentum_pw": ([[-0.5, -0.5244217095, -0.1027237143],
                     [0.2512703943, 0.5526597324, 0.9891734074]],
                    [0.4248923148, -0.8611506024, 2.386728127]),
    "nesterov": ([[-0.5, -0.8017492161, -0.224358478], [0.2785656802, 0.6697907798, 0.9800903374]],
                 [0.8127594041, -0.07846104564, 3.241321317]),
    "adagrad": ([[-0.5, -0.3012418748, -0.01899886825], [0.2318672975, 0.5224586519, 0.7823028008]],
                [0.4882865714, -0.9856303942, 2.068963429]),
    "rmsprop": ([[-0.5, -0.6629032638, -0.2441537946], [0.1971385226, 0.7661509608, 0.8587219688]],
                [0.7057359731, -0.5449930247, 2.807372583]),
    "rmsprop_momentum": ([[-0.5, -1.875276912, -0.5880617947],
                          [-0.3181857953, 1.219287934, 1.752987875]],
                         [0.1439504146, -0.5301861167, 4.209729745]),
    "adam": ([[-0.5, -0.5629801044, -0.121323031], [0.1748329019, 0.6156617977, 0.9625113446]],
             [0.4175292561, -0.8562951276, 2.383620775]),
    "adam_inv": ([[-0.5, -0.5253623524, -0.1155065654], [0.1786332918, 0.6043020512, 0.9566762291]],
                 [0.3874292853, -0.9137305727, 2.321907774]),
    "adamax": ([[-0.5, -0.5362065368, -0.1176112012], [0.1697571941, 0.6086259414, 0.9401554896]],
               [0.4048834515, -0.9302843586, 2.323190234]),
    "sm3": ([[-0.5, -0.3012418748, -0.01890199822], [0.2318672975, 0.5230084977, 0.7830081096]],
            [0.4882865714, -0.9856303942, 2.068963429]),
    "sm3_poly": ([[-0.5, -0.2678005754, -0.01147584629],
                  [0.2391701141, 0.5116119279, 0.7654360634]],
                 [0.4876228831, -1.007340213, 2.019838017]),
}
STEPS = [0, 1, 3, 10]
JAX_SCHEDULES = {  # jax 0.10.2, x64: each schedule at STEPS
    "constant": (optimizers.constant(0.5), [0.5, 0.5, 0.5, 0.5]),
    "exponential_decay": (optimizers.exponential_decay(0.1, 5, 0.5),
                          [0.1, 0.08705505633, 0.06597539554, 0.025]),
    "inverse_time_decay": (optimizers.inverse_time_decay(0.1, 5, 0.5),
                           [0.1, 0.09090909091, 0.07692307692, 0.05]),
    "inverse_time_decay_stair": (optimizers.inverse_time_decay(0.1, 5, 0.5, staircase=True),
                                 [0.1, 0.1, 0.1, 0.05]),
    "polynomial_decay": (optimizers.polynomial_decay(0.1, 5, 0.01, power=2.0),
                         [0.1, 0.0676, 0.0244, 0.01]),
    "piecewise_constant": (optimizers.piecewise_constant([2, 5], [1.0, 0.5, 0.1]),
                           [1.0, 1.0, 0.5, 0.1]),
}
# fmt: on


def run(name, steps=4):
    init, update, get_params = CONFIGS[name]()
    state = init(params0())
    for k in range(steps):
        state = update(k, grads(k), state)
    return state, get_params


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_optimizer_matches_jax(name):
    state, get_params = run(name)
    params = get_params(state)
    assert set(params) == {"w", "b"}
    want_w, want_b = JAX_PARAMS[name]
    np.testing.assert_allclose(np.asarray(params["w"]), want_w, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(np.asarray(params["b"]), want_b, rtol=RTOL, atol=ATOL)
    assert np.asarray(params["w"]).dtype == np.float64
    assert np.asarray(params["w"]).shape == (2, 3)


def test_sm3_scalar_parameter():
    init, update, get_params = optimizers.sm3(0.1)
    state = init(tnp.array(1.5))
    for k in range(3):
        state = update(k, tnp.array(0.5 * (k + 1)), state)
    result = get_params(state)
    assert np.shape(result) == ()
    np.testing.assert_allclose(float(result), 1.447888046, rtol=RTOL)  # jax 0.10.2, x64


@pytest.mark.parametrize("name", sorted(JAX_SCHEDULES))
def test_schedule_matches_jax(name):
    schedule, want = JAX_SCHEDULES[name]
    got = [float(schedule(i)) for i in STEPS]
    np.testing.assert_allclose(got, want, rtol=RTOL)


def test_make_schedule():
    schedule = optimizers.make_schedule(0.3)
    assert schedule(0) == schedule(100) == 0.3
    decay = optimizers.exponential_decay(1.0, 1, 0.5)
    assert optimizers.make_schedule(decay) is decay
    with pytest.raises(ParameterError, match="make_schedule"):
        optimizers.make_schedule(np.ones(2))


def test_piecewise_constant_rejects_bad_lengths():
    with pytest.raises(ParameterError, match="one longer"):
        optimizers.piecewise_constant([1, 2], [0.1, 0.2])
    with pytest.raises(ParameterError, match="1-d"):
        optimizers.piecewise_constant([[1]], [[0.1, 0.2]])


def test_optimizer_state_is_a_pytree_with_treedefs_as_aux():
    init, _, _ = optimizers.adam(0.1)
    state = init(params0())
    assert isinstance(state, optimizers.OptimizerState)
    assert state.tree_def == tree.structure(params0())
    leaves, treedef = tree.flatten(state)
    assert len(leaves) == 6  # two params, each (x, m, v)
    rebuilt = tree.unflatten(treedef, leaves)
    assert rebuilt.tree_def == state.tree_def and rebuilt.subtree_defs == state.subtree_defs
    doubled = tree.map(lambda x: x * 2, state)
    assert isinstance(doubled, optimizers.OptimizerState)
    np.testing.assert_allclose(np.asarray(doubled.packed_state[0][0]), 2 * params0()["b"])


def test_gradient_tree_of_another_structure_is_rejected():
    init, update, _ = optimizers.sgd(0.1)
    state = init(params0())
    with pytest.raises(TreeStructureError, match="gradient tree"):
        update(0, {"w": np.zeros((2, 3))}, state)
    with pytest.raises(TreeStructureError):
        update(0, [np.zeros(3), np.zeros((2, 3))], state)


def test_update_that_changes_structure_is_rejected():
    @optimizers.optimizer
    def bad():
        return (lambda x: (x, x)), (lambda i, g, s: (s[0], s[1], g)), (lambda s: s[0])

    init, update, _ = bad()
    with pytest.raises(TreeStructureError, match="structure"):
        update(0, 1.0, init(1.0))


def test_jit_update_matches_python_loop():
    init, update, get_params = optimizers.adam(0.1)
    jit_update = tf8.jit(update)
    state = init(params0())
    ref_state = init(params0())
    for k in range(4):
        state = jit_update(k, grads(k), state)
        ref_state = update(k, grads(k), ref_state)
    want = get_params(ref_state)
    got = get_params(state)
    assert isinstance(state, optimizers.OptimizerState)
    for key in ("w", "b"):
        np.testing.assert_allclose(np.asarray(got[key]), np.asarray(want[key]), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(got[key]), JAX_PARAMS["adam"][key == "b"], rtol=RTOL)


@pytest.mark.parametrize("name", ["momentum", "adam", "sm3", "momentum_pw"])
def test_fori_loop_of_steps_matches_python_loop(name):
    init, update, get_params = CONFIGS[name]()
    g = grads(0)

    def body(i, state):
        return update(i, g, state)

    state = tf8.lax.fori_loop(0, 4, body, init(params0()))
    ref = init(params0())
    for k in range(4):
        ref = update(k, g, ref)
    got, want = get_params(state), get_params(ref)
    for key in ("w", "b"):
        np.testing.assert_allclose(np.asarray(got[key]), np.asarray(want[key]), rtol=1e-12)
    assert not np.allclose(np.asarray(got["b"]), params0()["b"])  # it moved


def test_jitted_fori_loop():
    init, update, get_params = optimizers.nesterov(0.1, 0.9)

    @tf8.jit
    def train(state):
        return tf8.lax.fori_loop(0, 4, lambda i, s: update(i, grads(0), s), state)

    got = get_params(train(init(params0())))
    ref = init(params0())
    for k in range(4):
        ref = update(k, grads(0), ref)
    np.testing.assert_allclose(np.asarray(got["w"]), np.asarray(get_params(ref)["w"]), rtol=1e-12)


def test_pack_unpack_round_trip():
    state, get_params = run("adam", steps=2)
    marked = optimizers.unpack_optimizer_state(state)
    assert set(marked) == {"w", "b"}
    assert isinstance(marked["w"], optimizers.JoinPoint)
    x, m, v = marked["w"].subtree
    np.testing.assert_allclose(np.asarray(x), np.asarray(get_params(state)["w"]))
    restored = pickle.loads(pickle.dumps(marked))  # the serialization it is for
    assert isinstance(restored["b"], optimizers.JoinPoint)
    back = optimizers.pack_optimizer_state(restored)
    assert back.tree_def == state.tree_def and back.subtree_defs == state.subtree_defs
    for got, want in zip(tree.leaves(back), tree.leaves(state)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    # the packed state keeps optimizing
    _, update, _ = CONFIGS["adam"]()
    np.testing.assert_allclose(
        np.asarray(get_params(update(2, grads(2), back))["b"]),
        np.asarray(get_params(update(2, grads(2), state))["b"]),
    )


def test_pack_rejects_unmarked_leaves():
    with pytest.raises(TreeStructureError, match="JoinPoint"):
        optimizers.pack_optimizer_state({"w": np.ones(2)})


def test_l2_norm_and_clip_grads_against_numpy():
    g = grads(0)
    norm = np.sqrt(sum(np.sum(x**2) for x in g.values()))
    np.testing.assert_allclose(float(optimizers.l2_norm(g)), norm, rtol=1e-12)
    np.testing.assert_allclose(float(optimizers.l2_norm(g)), 2.034218565, rtol=RTOL)  # jax
    clipped = optimizers.clip_grads(g, 1.0)
    for key in g:
        np.testing.assert_allclose(np.asarray(clipped[key]), g[key] / norm, rtol=1e-12)
    np.testing.assert_allclose(
        np.asarray(clipped["w"]),  # jax 0.10.2, x64
        [[0, 0.4136580992, 0.4470008497], [0.06937308041, -0.3720359791, -0.4713968751]],
        rtol=RTOL,
        atol=ATOL,
    )
    unclipped = optimizers.clip_grads(g, 10.0)
    for key in g:
        np.testing.assert_array_equal(np.asarray(unclipped[key]), g[key])
    np.testing.assert_allclose(float(optimizers.l2_norm(np.array([3.0, 4.0]))), 5.0)
