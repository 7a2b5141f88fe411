"""Every built-in extension family class has a kernel, a shape rule and a JVP rule, looked up
through `definition(op)` — the same completeness check the catalog rows get."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import tf8.ops.extension as extension
from tf8.ad.linearize import JVP, TRANSPOSE
from tf8.ops.extension import ExtensionOp
from tf8.ops.extension.kernels import FAMILY_KERNELS


def _family_classes() -> list[type]:
    for info in pkgutil.walk_packages(extension.__path__, extension.__name__ + "."):
        importlib.import_module(info.name)
    found, stack = [], list(ExtensionOp.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith("tf8.ops.extension") and "name" in cls.__dict__:
            found.append(cls)
    return sorted(set(found), key=lambda c: c.__name__)


CLASSES = _family_classes()


def test_the_family_classes_are_found():
    names = {c.__name__ for c in CLASSES}
    assert {"Einsum", "FFT", "Svd", "Eigh", "Qr", "Solve", "Expm"} <= names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_family_class_has_a_kernel_and_a_jvp_rule(cls):
    assert cls in FAMILY_KERNELS, f"{cls.__name__} has no kernel in FAMILY_KERNELS"
    assert cls in JVP.rules, f"{cls.__name__} has no JVP rule"


def test_linear_families_have_transpose_rules():
    from tf8.ops.extension.einsum import Einsum
    from tf8.ops.extension.fft import FFT
    from tf8.ops.extension.linalg import ExpmFrechet

    for cls in (Einsum, FFT, ExpmFrechet):
        assert cls in TRANSPOSE.rules
