"""The conformance corpus, recorded from JAX (record.py), replayed through tf8 without JAX:
each case eagerly, under jit on every installed engine and under vmap, with its derivatives
to second order where JAX defines them. Values are compared to tolerances per dtype, dtypes
exactly, weak types exactly (eagerly).

A mismatch must be in the ledger: a deliberate difference (deliberate.py, with its reason)
or an open one still to fix (open/<family>.json). A new mismatch fails, and so does a ledger
entry that now matches. The CI profile replays every SAMPLE-th case, `TF8_HYPOTHESIS_PROFILE=long`
every case; `jit` on the other engines (numba, Dask) runs every ENGINE_SAMPLE-th case in both
(their compilations dominate), and ledger.py records the same."""

from __future__ import annotations

import os

import pytest

from .deliberate import DELIBERATE, README, deliberate, section
from .families import FAMILIES
from .ledger import case_of, keys, open_mismatches
from .replay import ENGINE_SAMPLE, engines, replay

LONG = os.environ.get("TF8_HYPOTHESIS_PROFILE") == "long"
SAMPLE = 1 if LONG else 4
MATCHED: set = set()  # the deliberate rows that some mismatch needed
REPLAYED: dict[str, int] = {}


@pytest.mark.parametrize("family", FAMILIES)
def test_every_mismatch_with_jax_is_in_the_ledger_and_every_entry_still_differs(family):
    visited: set[str] = set()
    mismatches = list(replay(family, lambda i: i % SAMPLE == 0, ("numpy",), visited))
    others = tuple(e for e in engines() if e != "numpy")
    if others:
        sample = lambda i: i % ENGINE_SAMPLE == 0  # noqa: E731
        found = replay(family, sample, others)
        mismatches += [m for m in found if m.path.startswith("jit[")]
    REPLAYED[family] = len(visited)
    MATCHED.update(row for row in map(deliberate, mismatches) if row is not None)
    found = keys(m for m in mismatches if deliberate(m) is None)
    ledger = open_mismatches(family)
    new = sorted(set(found) - set(ledger))
    fixed = sorted(k for k in ledger if case_of(k) in visited and k not in found)
    print(f"conformance {family}: {len(visited)} cases replayed, {len(found)} open mismatches")
    assert not new, f"{len(new)} new mismatches with JAX: " + "; ".join(
        f"{k}: {found[k]}" for k in new[:8]
    )
    assert not fixed, (
        f"{len(fixed)} ledger entries now match JAX; run `python tests/conformance/ledger.py "
        f"{family}` and commit the smaller ledger: {fixed[:8]}"
    )


def test_each_deliberate_difference_has_its_reason_and_still_applies():
    if len(REPLAYED) < len(FAMILIES):
        pytest.skip("run with the replay above: it collects which rows mismatches needed")
    for row in DELIBERATE:
        assert len(row.reason) > 40, f"{row}: a deliberate difference states its design reason"
        if LONG and row.name is not None:  # a corpus row; the CI sample may miss its cases
            assert row in MATCHED, f"{row} matches no mismatch now: remove it"


def test_readme_lists_the_deliberate_differences_as_the_table_has_them():
    assert section() in README.read_text(), (
        "README's 'Differences from JAX' is out of date: run python tests/conformance/deliberate.py"
    )
