"""tf8.nn.initializers against jax.nn.initializers: draws recorded with JAX 0.10.2 (x64 on,
key `jax.random.PRNGKey(20261201)`), bit for bit for the uniform and constant ones and to
1e-13 relative for the (truncated) normals and orthogonals (erf/erf_inv and LAPACK rounding);
their moments, and their errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from random_jax_vectors import assert_recorded

import tf8
import tf8.nn.initializers as I  # noqa: N812 - JAX's customary alias
import tf8.random as random
from tf8.errors import ParameterError, ShapeError

f32 = np.float32
RECORDED = {
    "glorot_uniform": (
        "float64",
        (3, 4),
        [
            0.6155955073294421,
            0.48049810490548883,
            0.0907166782891341,
            -0.21213531126712087,
            -0.7126349863140664,
            -0.10193405691243601,
            -0.1608498610014714,
            -0.1459923506564498,
            -0.11521683145433965,
            -0.6707151052730602,
            0.051636807026047706,
            -0.43324294370263355,
        ],
    ),
    "glorot_normal": (
        "float64",
        (3, 4),
        [
            0.5500914623092996,
            0.40546352752416337,
            0.07139414288378526,
            -0.1687100233399493,
            -0.6769304672075752,
            -0.0802708944842557,
            -0.12722172969470008,
            -0.11532087074945652,
            -0.09080442560984886,
            -0.6188261086246168,
            0.040575065483175236,
            -0.36020772983282895,
        ],
    ),
    "lecun_uniform_f32": (
        "float32",
        (4, 2),
        [
            -0.7956765294075012,
            0.5973190665245056,
            0.8583555817604065,
            0.6954916715621948,
            -0.18297414481639862,
            0.7334009408950806,
            0.6328743696212769,
            0.07223499566316605,
        ],
    ),
    "lecun_normal": (
        "float64",
        (4, 2),
        [
            0.5145634458377175,
            0.37927640070705126,
            0.06678310552337734,
            -0.15781377626318135,
            -0.6332104707398898,
            -0.07508654632249175,
            -0.11900503116758307,
            -0.10787279697222674,
        ],
    ),
    "he_uniform_conv": (
        "float64",
        (2, 2, 3, 2),
        [
            0.47016883496865186,
            0.3669864895020391,
            0.06928600750915236,
            -0.16202102024243334,
            -0.5442839612763382,
            -0.07785342194919577,
            -0.12285111059372801,
            -0.11150349962795286,
            -0.08799830857874676,
            -0.5122671232773456,
            0.039438262807115196,
            -0.33089476397046835,
            0.2602208696053363,
            -0.1680033735055702,
            0.16460428707659033,
            -0.554182456201375,
            0.3967901082379174,
            0.41611368934943865,
            0.3826113823627534,
            0.2001483787814698,
            -0.6865587165257137,
            0.6609696948422328,
            0.14461145239186643,
            -0.26374731776979043,
        ],
    ),
    "he_normal_conv": (
        "float64",
        (2, 3, 2),
        [
            1.029126891675435,
            0.7585528014141025,
            0.13356621104675467,
            -0.3156275525263627,
            -1.2664209414797796,
            -0.1501730926449835,
            -0.23801006233516614,
            -0.21574559394445347,
            -0.16987952491742792,
            -1.1577176402319356,
            0.0759089967419795,
            -0.6738869565510383,
        ],
    ),
    "variance_scaling_normal_geo": (
        "float64",
        (3, 5),
        [
            0.3463441308694861,
            0.25319827241036275,
            0.044236290597398344,
            -0.10464377489297809,
            -0.4310475555314065,
            -0.04973935656286411,
            -0.0788664621915627,
            -0.07147970317482306,
            -0.05627090071287528,
            -0.39177875318900346,
            0.025136745534386558,
            -0.22452506420840107,
            0.1720796551953674,
            -0.10862518811015039,
            0.10636140221317887,
        ],
    ),
    "variance_scaling_batch": (
        "float64",
        (2, 3, 4),
        [
            0.5758368693160147,
            0.44946482088762557,
            0.08485768235603346,
            -0.19843441359955302,
            -0.6666089901538933,
            -0.09535057925256288,
            -0.15046126764442927,
            -0.1365633393115492,
            -0.10777547712295454,
            -0.6273965320164518,
            0.04830181010960798,
            -0.4052616651431614,
            0.318704175478195,
            -0.20576127007743267,
            0.2015982564061228,
            -0.6787321210478279,
            0.4859666500833028,
            0.5096331069465578,
            0.4686013282848284,
            0.24513070042994625,
            -0.8408592669740595,
            0.8095192439032881,
            0.17711213466142733,
            -0.3230231747818385,
        ],
    ),
    "normal": (
        "float64",
        (2, 3),
        [
            0.48196516451928384,
            0.352345358680973,
            0.06155828603757155,
            -0.1456200630731015,
            -0.5998366581116297,
            -0.06921623620045636,
        ],
    ),
    "uniform": (
        "float64",
        (2, 3),
        [
            1.664919143017825,
            1.5189972706614752,
            1.0979852115021274,
            0.770867675783625,
            0.23026624018085018,
            0.8898986348022921,
        ],
    ),
    "truncated_normal": (
        "float64",
        (2, 3),
        [
            0.42696199448185107,
            0.3324073059910366,
            0.10590278543937402,
            -0.05375999669667957,
            -0.34066685622253484,
            0.004117441398386491,
        ],
    ),
    "orthogonal": (
        "float64",
        (3, 3),
        [
            1.8705973158573772,
            -0.5682674288120306,
            -0.42182675502928946,
            -0.5651788120230976,
            -1.9169693527230638,
            0.07616699521892434,
            -0.42595609204158186,
            0.04796488373678527,
            -1.9535252180560096,
        ],
    ),
    "orthogonal_axis0": (
        "float64",
        (2, 2, 3),
        [
            0.614437677731619,
            0.07847814137312167,
            -0.764707224423599,
            -0.13991438445409393,
            -0.09982834549869872,
            0.04459426961590202,
            0.23718262687028702,
            -0.2515943630889349,
            0.25092263191164854,
            -0.08245579495968697,
            -0.7600959544886522,
            -0.4826361907429506,
        ],
    ),
    "delta_orthogonal": (
        "float64",
        (3, 2, 2),
        [
            0.0,
            0.0,
            0.0,
            0.0,
            0.9919418103444821,
            0.1266942969928463,
            0.1266942969928463,
            -0.991941810344482,
            0.0,
            0.0,
            0.0,
            0.0,
        ],
    ),
    "constant": ("float64", (2, 2), [-7.0, -7.0, -7.0, -7.0]),
    "zeros": ("float64", (2,), [0.0, 0.0]),
    "ones_f32": ("float32", (2,), [1.0, 1.0]),
}
CALLS = {
    "glorot_uniform": lambda k: I.glorot_uniform()(k, (3, 4)),
    "glorot_normal": lambda k: I.glorot_normal()(k, (3, 4)),
    "lecun_uniform_f32": lambda k: I.lecun_uniform()(k, (4, 2), f32),
    "lecun_normal": lambda k: I.lecun_normal()(k, (4, 2)),
    "he_uniform_conv": lambda k: I.he_uniform()(k, (2, 2, 3, 2)),
    "he_normal_conv": lambda k: I.he_normal(in_axis=0, out_axis=(1, 2))(k, (2, 3, 2)),
    "variance_scaling_normal_geo": lambda k: I.variance_scaling(0.5, "fan_geo_avg", "normal")(
        k, (3, 5)
    ),
    "variance_scaling_batch": lambda k: I.variance_scaling(1.0, "fan_out", "uniform", batch_axis=0)(
        k, (2, 3, 4)
    ),
    "normal": lambda k: I.normal(0.5)(k, (2, 3)),
    "uniform": lambda k: I.uniform(2.0)(k, (2, 3)),
    "truncated_normal": lambda k: I.truncated_normal(0.5, lower=-1.0, upper=1.5)(k, (2, 3)),
    "orthogonal": lambda k: I.orthogonal(2.0)(k, (3, 3)),
    "orthogonal_axis0": lambda k: I.orthogonal(column_axis=0)(k, (2, 2, 3)),
    "delta_orthogonal": lambda k: I.delta_orthogonal()(k, (3, 2, 2)),
    "constant": lambda k: I.constant(-7.0)(k, (2, 2)),
    "zeros": lambda k: I.zeros(k, (2,)),
    "ones_f32": lambda k: I.ones(k, (2,), f32),
}
EXACT = {
    "glorot_uniform",
    "lecun_uniform_f32",
    "he_uniform_conv",
    "variance_scaling_batch",
    "uniform",
    "constant",
    "zeros",
    "ones_f32",
}


def key(seed: int = 20261201):
    return random.PRNGKey(seed)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_initializers_match_jax(name):
    assert set(CALLS) == set(RECORDED)
    assert_recorded(CALLS[name](key()), RECORDED[name], name in EXACT, rtol=1e-13)


@pytest.mark.parametrize(
    ("builder", "variance"),
    [
        (I.glorot_normal, 2 / (200 + 300)),
        (I.glorot_uniform, 2 / (200 + 300)),
        (I.lecun_normal, 1 / 200),
        (I.lecun_uniform, 1 / 200),
        (I.he_normal, 2 / 200),
        (I.he_uniform, 2 / 200),
        (I.xavier_normal, 2 / 500),
        (I.kaiming_uniform, 2 / 200),
    ],
)
def test_variance_scaling_gives_the_stated_variance(builder, variance):
    weights = np.asarray(builder()(key(5), (200, 300)))
    assert abs(weights.mean()) < 5 * np.sqrt(variance / weights.size)
    assert abs(weights.var() / variance - 1) < 0.02


def test_orthogonal_initializer_has_orthonormal_columns():
    w = np.asarray(I.orthogonal(3.0)(key(5), (4, 6)))
    np.testing.assert_allclose(w @ w.T, 9 * np.eye(4), atol=1e-12)
    tall = np.asarray(I.orthogonal()(key(5), (2, 5, 3)))  # 10 rows of 3 orthonormal columns
    flat = tall.reshape(10, 3)
    np.testing.assert_allclose(flat.T @ flat, np.eye(3), atol=1e-12)


def test_initializers_run_under_jit_and_vmap():
    init = I.he_normal()
    eager = np.asarray(init(key(), (3, 4)))
    np.testing.assert_array_equal(
        np.asarray(tf8.jit(lambda k: init(k, (3, 4)))(np.asarray(key()))), eager
    )
    keys = np.asarray(random.split(key(), 3))
    batched = np.asarray(tf8.vmap(lambda k: init(k, (3, 4)))(keys))
    np.testing.assert_array_equal(batched, np.stack([np.asarray(init(k, (3, 4))) for k in keys]))


def test_bad_initializer_arguments_are_refused():
    with pytest.raises(ParameterError, match="mode must be one of"):
        I.variance_scaling(1.0, "fan_sum", "normal")
    with pytest.raises(ParameterError, match="distribution must be one of"):
        I.variance_scaling(1.0, "fan_in", "cauchy")
    with pytest.raises(ShapeError, match="no input axis -2"):
        I.lecun_normal()(key(), (5,))
    with pytest.raises(ShapeError, match="at least 2 axes"):
        I.orthogonal()(key(), (5,))
    with pytest.raises(ShapeError, match="3, 4 or 5 axes"):
        I.delta_orthogonal()(key(), (2, 2))


def test_complex_draws_equal_jax():
    """Complex weights as JAX 0.10.2 draws them (x64; numbers recorded from JAX): normal's
    split real and imaginary parts, and variance_scaling's polar draws."""
    key = np.array([0, 7], np.uint32)
    normal = I.normal(0.5)(key, (2, 2), "complex64")
    expected = [
        [0.39387515 + 0.16056044j, 0.05007422 + 0.33204418j],
        [-0.18471545 - 0.09508575j, -0.15310496 - 0.06747695j],
    ]
    assert np.asarray(normal).dtype == np.complex64
    np.testing.assert_allclose(np.asarray(normal), expected, rtol=2e-6)
    uniform = I.variance_scaling(1.0, "fan_in", "uniform")(key, (2, 2), "complex128")
    expected = [
        [-0.25289092 + 0.75728378j, -0.24914385 + 0.24927174j],
        [0.06071677 - 0.69129986j, -0.63790442 - 0.56898424j],
    ]
    np.testing.assert_allclose(np.asarray(uniform), expected, rtol=1e-7)
    truncated = I.variance_scaling(1.0, "fan_in", "truncated_normal")(key, (2, 2), "complex128")
    expected = [
        [-0.23297069 + 0.69763251j, -0.18912223 + 0.18921931j],
        [0.05193253 - 0.59128555j, -0.62228902 - 0.55505594j],
    ]
    np.testing.assert_allclose(np.asarray(truncated), expected, rtol=1e-7)


def test_complex_orthogonal_draws_equal_jax():
    """orthogonal of a complex dtype: the Q of a complex normal matrix's QR, its columns'
    phases fixed by R's diagonal (numbers recorded from JAX 0.10.2, x64), under jit too; and
    random.normal's complex draws beneath it."""
    key = np.array([0, 7], np.uint32)
    expected = [
        [0.832068 + 0.339187j, -0.341125 + 0.276134j],
        [-0.390214 - 0.20087j, -0.745547 + 0.501542j],
    ]
    draw = lambda k: I.orthogonal()(k, (2, 2), "complex64")  # noqa: E731
    for q in (draw(key), tf8.jit(draw)(key)):
        assert np.asarray(q).dtype == np.complex64
        np.testing.assert_allclose(np.asarray(q), expected, rtol=2e-6, atol=1e-6)
    tall = np.asarray(I.orthogonal()(key, (3, 2), "complex128"))
    np.testing.assert_allclose(tall.conj().T @ tall, np.eye(2), atol=1e-12)
    normal = random.normal(key, (3,), "complex64")
    expected = [0.78775 + 0.321121j, 0.100148 + 0.664088j, -0.369431 - 0.190172j]
    np.testing.assert_allclose(np.asarray(normal), expected, rtol=2e-6, atol=1e-6)


def test_empty_fans_and_constant_dtype():
    """A zero fan: JAX raises ZeroDivisionError, tf8 names the shape; constant: strong dtype."""
    with pytest.raises(ShapeError, match=r"\(0, 3\)"):
        I.glorot_normal()(np.array([0, 1], np.uint32), (0, 3), "float32")
    out = I.constant(0.5)(None, (3, 4), "float64")
    assert np.asarray(out).dtype == np.float64 and not out._weak
