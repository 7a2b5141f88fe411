"""The conformance corpus, recorded from JAX (record.py), replayed through tf8 without JAX:
each case eagerly, under jit and under vmap, with its JVP and VJP where JAX defines them.
Values are compared to tolerances per dtype, dtypes and (eagerly) weak types exactly.

A mismatch must be in the ledger (ledger.py): a deliberate difference with its reason, or an
open one still to fix. A new mismatch fails, and so does a ledger entry that now matches."""

from __future__ import annotations

import collections

from .cases import BINARY, REDUCTIONS, UNARY
from .corpus import load
from .ledger import DELIBERATE, deliberate, keys, open_mismatches
from .replay import CORPUS, replay


def test_every_mismatch_with_jax_is_in_the_ledger_and_every_entry_still_differs():
    found = keys(m for m in replay() if deliberate(m) is None)
    ledger = open_mismatches()
    new = sorted(set(found) - set(ledger))
    fixed = sorted(set(ledger) - set(found))
    print(f"conformance: {len(found)} open mismatches, {len(DELIBERATE)} deliberate rows")
    assert not new, f"{len(new)} new mismatches with JAX: " + "; ".join(
        f"{k}: {found[k]}" for k in new[:8]
    )
    assert not fixed, (
        f"{len(fixed)} ledger entries now match JAX; run `python tests/conformance/ledger.py` "
        f"and commit the smaller ledger: {fixed[:8]}"
    )


def test_every_function_of_the_grid_is_recorded_from_jax():
    corpus = load(CORPUS)
    counts = collections.Counter(entry["name"] for entry in corpus.index)
    recorded = {
        name
        for name in counts
        if not any(e.get("missing") for e in corpus.index if e["name"] == name)
    }
    assert set(UNARY) | set(BINARY) | set(REDUCTIONS) <= recorded
    assert min(counts.values()) >= 12
    assert len(corpus.index) >= 1000


def test_each_deliberate_difference_names_its_reason_and_still_applies():
    mismatched = list(replay())
    for row, reason in DELIBERATE.items():
        assert len(reason) > 20, f"{row}: a deliberate difference needs its design reason"
        assert any(deliberate(m) == reason for m in mismatched), f"{row} matches nothing now"
