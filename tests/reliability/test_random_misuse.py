"""Misuse of tf8.random: keys, shapes, dtypes and parameters of the samplers."""

from __future__ import annotations

import numpy as np
import pytest
from misuse_table import expect, params

import tf8.numpy as tnp
from tf8 import errors
from tf8 import random as tr

K = tr.PRNGKey(0)

ROWS = [
    (
        "key-float-seed",
        lambda: tr.PRNGKey(1.5),
        errors.DTypeError,
        "PRNGKey: the seed must be an integer scalar, got float64",
    ),
    ("key-string-seed", lambda: tr.PRNGKey("a"), errors.DTypeError, "dtype <U1"),
    (
        "split-negative",
        lambda: tr.split(K, -1),
        errors.ParameterError,
        "split: num must be an int >= 0 or a tuple of them, got -1",
    ),
    (
        "split-num-a-string",
        lambda: tr.split(K, "2"),
        errors.ParameterError,
        "split: num must be an int >= 0 or a tuple of them, got '2'",
    ),
    ("split-num-a-float", lambda: tr.split(K, 2.0), errors.ParameterError, "got 2.0"),
    (
        "normal-of-a-non-key",
        lambda: tr.normal(np.ones(3), (2,)),
        errors.DTypeError,
        r"normal: a key is a uint32 array of shape \(2,\), got dtype float64",
    ),
    (
        "normal-negative-size",
        lambda: tr.normal(K, (-1,)),
        errors.ShapeError,
        r"a shape's sizes must be >= 0, got \(-1,\)",
    ),
    (
        "normal-float-size",
        lambda: tr.normal(K, (2.5,)),
        errors.ShapeError,
        r"a shape is an int or a sequence of ints, got \(2.5,\)",
    ),
    (
        "uniform-string-shape",
        lambda: tr.uniform(K, "ab"),
        errors.ShapeError,
        "a shape is an int or a sequence of ints, got 'ab'",
    ),
    (
        "normal-int-dtype",
        lambda: tr.normal(K, (2,), dtype="int32"),
        errors.DTypeError,
        "normal: dtype must be a float or complex dtype.*got int32",
    ),
    (
        "uniform-minval-does-not-broadcast",
        lambda: tr.uniform(K, (2,), minval=np.ones(3)),
        errors.ShapeError,
        r"uniform: minval of shape \(3,\) does not broadcast to .* \(2,\)",
    ),
    (
        "randint-float-dtype",
        lambda: tr.randint(K, (2,), 0, 5, dtype="float32"),
        errors.DTypeError,
        "randint: dtype must be an integer dtype, got float32",
    ),
    (
        "choice-too-many-without-replacement",
        lambda: tr.choice(K, 3, (5,), replace=False),
        errors.ParameterError,
        r"cannot take a larger sample \(size 5\) than the population",
    ),
    (
        "choice-p-wrong-length",
        lambda: tr.choice(K, 3, (2,), p=np.ones(4) / 4),
        errors.ShapeError,
        "choice: p must be None or a 1-d vector",
    ),
    (
        "choice-empty-population",
        lambda: tr.choice(K, 0, (2,)),
        errors.ParameterError,
        "choice: a must be greater than 0",
    ),
    (
        "permutation-of-a-float",
        lambda: tr.permutation(K, 2.5),
        errors.DTypeError,
        "permutation: x must be an integer or an array",
    ),
    (
        "permutation-axis-out-of-range",
        lambda: tr.permutation(K, np.ones(3), axis=3),
        errors.ShapeError,
        "permutation: axis 3 is out of range",
    ),
    (
        "categorical-axis-out-of-range",
        lambda: tr.categorical(K, np.ones(3), axis=2),
        errors.AxisError,
        r"categorical: axis 2 is out of range for logits of shape \(3,\)",
    ),
    (
        "bernoulli-p-does-not-broadcast",
        lambda: tr.bernoulli(K, np.full(3, 0.5), (2,)),
        errors.ShapeError,
        r"bernoulli: p of shape \(3,\)",
    ),
    (
        "fold-in-array-data",  # a float scalar is truncated, as jnp.uint32(1.5) is in JAX
        lambda: tr.fold_in(K, np.ones(2)),
        errors.DTypeError,
        r"fold_in: data must be a real scalar, got float64\(2,\)",
    ),
    (
        "key-data-of-floats",
        lambda: tr.key_data(np.ones(3)),
        errors.DTypeError,
        "key_data: a key is a uint32 array",
    ),
    (
        "gamma-a-does-not-broadcast",
        lambda: tr.gamma(K, np.ones(3), (2,)),
        errors.ShapeError,
        r"gamma: a of shape \(3,\)",
    ),
    (
        "dirichlet-scalar-alpha",
        lambda: tr.dirichlet(K, 1.0),
        errors.ShapeError,
        "dirichlet: alpha must have at least one axis",
    ),
    (
        "multivariate-normal-cov-shape",
        lambda: tr.multivariate_normal(K, np.zeros(2), np.eye(3)),
        errors.ShapeError,
        r"cov must have shape \(\.\.\., 2, 2\) for a mean of shape \(2,\), got \(3, 3\)",
    ),
    (
        "truncated-normal-bounds-shape",
        lambda: tr.truncated_normal(K, np.zeros(3), 1.0, (2,)),
        errors.ShapeError,
        r"truncated_normal: lower of shape \(3,\)",
    ),
    (
        "wrap-key-data-wrong-width",
        lambda: tr.wrap_key_data(np.ones(3, dtype=np.uint32)),
        errors.ShapeError,
        r"wrap_key_data: a key is a uint32 array of shape \(2,\), got shape",
    ),
    (
        "orthogonal-negative-n",
        lambda: tr.orthogonal(K, -2),
        errors.ShapeError,
        "must be a tuple of sizes >= 0",
    ),
    (
        "bits-float-dtype",
        lambda: tr.bits(K, (2,), dtype="float32"),
        errors.DTypeError,
        "bits: dtype must be uint8 or uint32, got float32",
    ),
    (
        "key-of-a-traced-float",
        lambda: tr.PRNGKey(tnp.asarray(1.0)),
        errors.DTypeError,
        "seed must be an integer scalar",
    ),
]


@pytest.mark.parametrize(("misuse", "error", "message"), params(ROWS))
def test_random_misuse(misuse, error, message):
    expect(misuse, error, message)


def test_integer_shapes_still_work():
    assert tr.normal(K, np.int64(3)).shape == (3,)
    assert tr.uniform(K, (np.int32(2), 1)).shape == (2, 1)
    assert tr.split(K, np.int64(3)).shape == (3, 2)
