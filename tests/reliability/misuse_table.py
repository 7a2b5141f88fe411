"""The rows of the per-area misuse catalogues (test_*_misuse.py in this folder).

A row is (id, code that misuses tf8, the tf8.errors class it must raise, a regex the message
must match: it names what was wrong). `params` turns rows into pytest parameters; `expect`
checks one row, and that the error is tf8's own (not a raw numpy or Python error).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tf8 import errors

Row = tuple[str, Callable[[], Any], type[Exception], str]


def params(rows: list[Row]) -> list[Any]:
    ids = [row[0] for row in rows]
    assert len(ids) == len(set(ids)), "duplicate misuse ids"
    return [pytest.param(*row[1:], id=row[0]) for row in rows]


def expect(misuse: Callable[[], Any], error: type[Exception], message: str) -> None:
    assert issubclass(error, errors.Tf8Error)
    with pytest.raises(error, match=message) as caught:
        misuse()
    assert type(caught.value).__module__ == "tf8.errors"
