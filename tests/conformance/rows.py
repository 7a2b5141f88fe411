"""A row of the table of deliberate differences (deliberate.py): its patterns, what the user
sees, and the design reason. Rows for a family of functions live in `kept/<group>.py`."""

from __future__ import annotations

from typing import NamedTuple


class Row(NamedTuple):
    name: str | None  # fnmatch pattern over a mismatch's function; None for an API row
    signature: str
    path: str
    what: str  # what the user sees, in README's words (README prints it in bold)
    reason: str  # JAX's behaviour and the design choice, as README states them
    test: str | None = None  # the pytest node id of the test that checks an API row
    differs: str = "*"  # fnmatch pattern over what differs (`no error (JAX raised*`)


def corpus(name: str, signature: str, path: str, what: str, reason: str, differs: str = "*") -> Row:
    """A row that keeps the conformance mismatches its patterns match."""
    return Row(name, signature, path, what, reason, None, differs)


def api(what: str, test: str, reason: str) -> Row:
    """A row for a behaviour outside the corpus, checked by the test `test` names."""
    return Row(None, "", "", what, reason, test)
