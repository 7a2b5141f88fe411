"""Misuse of the AD transforms raises a tf8.errors exception that names the problem (issue 5)."""

from __future__ import annotations

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import ArgnumsError, DifferentiationError


def test_grad_of_a_non_scalar_output():
    with pytest.raises(DifferentiationError, match=r"scalar output.*\(3,\)"):
        tf8.grad(lambda x: x * 2.0)(np.ones(3))
    with pytest.raises(DifferentiationError, match="scalar output"):
        tf8.value_and_grad(lambda x: tnp.stack([x, x]))(1.0)


@pytest.mark.parametrize("argnums", [2, -3, (0, 2)])
def test_argnums_out_of_range(argnums):
    with pytest.raises(ArgnumsError, match=r"argnums .* out of range for 2 positional"):
        tf8.grad(lambda x, y: x * y, argnums=argnums)(1.0, 2.0)


def test_argnums_error_is_a_differentiation_error_and_a_value_error():
    assert issubclass(ArgnumsError, DifferentiationError)
    assert issubclass(ArgnumsError, ValueError)


@pytest.mark.parametrize(
    "value", [np.arange(3), np.int32(3), np.array([True, False])], ids=["int64", "int32", "bool"]
)
def test_integer_or_bool_input_to_grad(value):
    with pytest.raises(DifferentiationError, match=r"(?s)inputs.*dtype (int|bool).*integer"):
        tf8.grad(lambda x: tnp.sum(x * 1.5))(value)


def test_integer_input_with_integer_output_names_the_input():
    with pytest.raises(DifferentiationError, match="input"):
        tf8.grad(lambda x: x * 2)(3)


def test_integer_input_with_integer_output_is_refused():
    with pytest.raises(DifferentiationError, match="int64"):
        tf8.grad(lambda x: x * 2)(3)


def test_complex_output_without_holomorphic():
    with pytest.raises(DifferentiationError, match=r"real-valued outputs.*holomorphic=True"):
        tf8.grad(lambda z: z * z)(1 + 1j)
    assert tf8.grad(lambda z: z * z, holomorphic=True)(1 + 1j) == pytest.approx(2 + 2j)


def test_holomorphic_with_real_input():
    with pytest.raises(DifferentiationError, match="holomorphic=True requires complex inputs"):
        tf8.grad(lambda z: z * z, holomorphic=True)(1.0)


def test_has_aux_without_a_pair():
    with pytest.raises(DifferentiationError, match=r"has_aux=True.*\(output, aux\) pair"):
        tf8.grad(lambda x: x * x, has_aux=True)(1.0)


def test_jvp_tangent_shape_mismatch():
    with pytest.raises(ValueError, match="tangent shape"):
        tf8.jvp(lambda x: x * 2.0, (np.ones(3),), (np.ones(2),))
