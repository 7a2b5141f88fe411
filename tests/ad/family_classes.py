"""The built-in extension family classes, found by walking tf8's packages (for the rule
completeness tests)."""

from __future__ import annotations

import importlib
import pkgutil

import tf8.ad
import tf8.ops.extension as extension
from tf8.ops.extension import ExtensionOp


def family_classes(modules: tuple[str, ...] = ("tf8.ops.extension",)) -> list[type]:
    """Every concrete ExtensionOp subclass (one that names itself) defined in `modules`."""
    for package in (extension, tf8.ad):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)
    found, stack = [], list(ExtensionOp.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith(modules) and "name" in cls.__dict__:
            found.append(cls)
    return sorted(set(found), key=lambda c: c.__name__)
