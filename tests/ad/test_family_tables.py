"""Every built-in extension family class has a kernel, a shape rule and a JVP rule, looked up
through `definition(op)` — the same completeness check the catalog rows get. (The control-flow
family carries its kernels as methods, which run sub-programs through tf8.ops.evaluate.)"""

from __future__ import annotations

import pytest
from family_classes import family_classes

from tf8.ad.linearize import JVP, TRANSPOSE
from tf8.ops.extension.kernels import FAMILY_KERNELS

CLASSES = family_classes()


def test_the_family_classes_are_found():
    names = {c.__name__ for c in CLASSES}
    assert {"Einsum", "FFT", "Svd", "Eigh", "Qr", "Solve", "Expm"} <= names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_family_class_has_a_kernel_and_a_jvp_rule(cls):
    assert cls in FAMILY_KERNELS or callable(getattr(cls, "kernel", None)), (
        f"{cls.__name__} has no kernel in FAMILY_KERNELS and no kernel method"
    )
    assert cls in JVP.rules, f"{cls.__name__} has no JVP rule"


def test_linear_families_have_transpose_rules():
    from tf8.ops.extension.einsum import Einsum
    from tf8.ops.extension.fft import FFT
    from tf8.ops.extension.linalg import ExpmFrechet

    for cls in (Einsum, FFT, ExpmFrechet):
        assert cls in TRANSPOSE.rules
