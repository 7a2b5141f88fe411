"""Every public callable of tf8.tree_util, tf8.tree and tf8.flatten_util has a docstring
with an example, and every example runs (doctest)."""

from __future__ import annotations

import doctest
import importlib
import inspect
from typing import Any

import pytest

import tf8  # noqa: F401 - the examples use the whole library

PUBLIC = ["tf8.tree_util", "tf8.tree", "tf8.flatten_util"]
MODULES = [
    *PUBLIC,
    "tf8.tree_util._keys",
    "tf8.tree_util._kinds",
    "tf8.tree_util._ops",
    "tf8.tree_util._partial",
    "tf8.tree_util._register",
    "tf8.tree_util._registry",
    "tf8.tree_util._treedef",
]


def _public_callables() -> list[tuple[str, Any]]:
    out = []
    for name in PUBLIC:
        module = importlib.import_module(name)
        for attr in module.__all__:
            obj = getattr(module, attr)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                out.append((f"{name}.{attr}", obj))
                if inspect.isclass(obj) and obj.__module__.startswith("tf8."):
                    for meth, member in vars(obj).items():
                        fun = member.__func__ if isinstance(member, staticmethod) else member
                        if not meth.startswith("_") and inspect.isfunction(fun):
                            out.append((f"{name}.{attr}.{meth}", fun))
    return out


CALLABLES = _public_callables()


def test_the_public_names_are_many() -> None:
    assert len(CALLABLES) > 50


@pytest.mark.parametrize(("name", "obj"), CALLABLES, ids=[n for n, _ in CALLABLES])
def test_docstring_has_an_example(name: str, obj: Any) -> None:
    doc = inspect.getdoc(obj) or ""
    assert ">>>" in doc, f"{name} has no example in its docstring"


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} doctest failures in {name}"
    if name in PUBLIC or name.endswith(("_keys", "_ops", "_register", "_treedef")):
        assert result.attempted > 0
