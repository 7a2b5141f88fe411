"""The ledger of the corpus's mismatches with JAX.

- `deliberate.py`'s table: differences tf8 keeps on purpose, each with the design choice
  that makes it (README's "Differences from JAX" section is generated from it);
- `open/<family>.json`: the differences still to fix, one key per (function, arguments,
  path), with what differs.

The replay test fails on a mismatch in neither, and on an open entry that no longer differs
(so a fix shrinks the ledger). Regenerate the open list after a fix, and read its diff:

    python tests/conformance/ledger.py [family ...]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
OPEN = HERE / "open"


def keys(mismatches: Iterable) -> dict[str, str]:
    """Each mismatch's ledger key (function(arguments) path) and what differs."""
    found: dict[str, str] = {}
    for m in mismatches:
        key = f"{m.name}({m.signature}) {m.path}"
        while key in found:  # two cases of one signature
            key += "'"
        found[key] = m.what
    return found


def case_of(key: str) -> str:
    """The case (`name(signature)`) of a ledger key."""
    return key.rstrip("'").rsplit(" ", 1)[0]


def open_mismatches(family: str) -> dict[str, str]:
    path = OPEN / f"{family}.json"
    return json.loads(path.read_text()) if path.exists() else {}


def write(family: str, found: dict[str, str]) -> None:
    OPEN.mkdir(exist_ok=True)
    text = json.dumps(found, indent=0, sort_keys=True, ensure_ascii=False) + "\n"
    (OPEN / f"{family}.json").write_text(text)


if __name__ == "__main__":
    # tests/ and the checkout (tf8), and not this folder, which Python put first: its
    # coverage.py would shadow the `coverage` module numba imports
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
    sys.path[:0] = [str(HERE.parent), str(HERE.parents[1])]
    from conformance.deliberate import deliberate
    from conformance.families import FAMILIES
    from conformance.replay import ENGINE_SAMPLE, engines, replay

    others = tuple(e for e in engines() if e != "numpy")
    for family in sys.argv[1:] or FAMILIES:
        mismatches = list(replay(family))
        if others:
            sample = replay(family, lambda i: i % ENGINE_SAMPLE == 0, others)
            mismatches += [m for m in sample if m.path.startswith("jit[")]
        found = keys(m for m in mismatches if deliberate(m) is None)
        write(family, found)
        print(f"{family}: {len(found)} open mismatches")
