"""The table of deliberate differences (deliberate.py) is well formed: every row states a
reason that names its design choice, and every API row names a test that exists (its file
defines that function; the test itself runs with the rest of the suite). test_replay checks
that README shows the table as it is."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

from .deliberate import DELIBERATE, README, Row, deliberate

ROOT = README.parent
NODE_ID = re.compile(r"tests/[\w/]+\.py::\w+(::\w+)?")


@functools.cache
def _functions(path: Path) -> frozenset[str]:
    """`name` of each module-level function and `Class::name` of each method in `path`."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.update(
                f"{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            )
    return frozenset(names)


@pytest.mark.parametrize("row", DELIBERATE, ids=lambda row: row.what[:60])
def test_each_row_states_its_reason_and_what_checks_it(row: Row):
    assert len(row.what) > 10 and len(row.reason) > 40, f"{row}: a row states what and why"
    assert "DESIGN" in row.reason or "README" in row.reason, (
        f"{row.what}: the reason names its design choice (DESIGN §n or README)"
    )
    assert row.name is not None or row.test is not None, (
        f"{row.what}: a row matches corpus mismatches (name) or names a test (test)"
    )


@pytest.mark.parametrize(
    "row", [row for row in DELIBERATE if row.test is not None], ids=lambda row: row.test
)
def test_each_api_row_names_a_test_that_exists(row: Row):
    assert NODE_ID.fullmatch(row.test), f"{row.test!r} is not tests/<file>.py::test_name"
    path, function = row.test.split("::", 1)
    assert (ROOT / path).is_file(), f"{row.what}: {path} does not exist"
    assert function.rsplit("::", 1)[-1].startswith("test"), f"{row.test} is not a test"
    assert function in _functions(ROOT / path), f"{row.what}: {path} defines no {function}"


def test_rows_are_distinct():
    whats = [row.what for row in DELIBERATE]
    assert len(set(whats)) == len(whats)


def test_only_corpus_rows_keep_mismatches():
    class Mismatch:  # empty fields, which an API row's empty patterns would match
        name = signature = path = what = ""

    row = deliberate(Mismatch())
    assert row is None or row.name is not None
