"""The ledger of the corpus's mismatches: `DELIBERATE`, the differences tf8 keeps on purpose
(each with the design choice that makes it), and open_mismatches.json, the differences still
to fix, one key per (function, arguments, path). The replay test fails on any mismatch in
neither, and on a ledger entry that no longer mismatches (so a fix updates the ledger).

Regenerate the open list after fixing something (and read the diff):

    python tests/conformance/ledger.py
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
OPEN = HERE / "open_mismatches.json"

# (function, arguments' signature or "*", path or "*") -> the design choice (DESIGN or README)
DELIBERATE: dict[tuple[str, str, str], str] = {}


def keys(mismatches: Iterable) -> dict[str, str]:
    """Each mismatch's ledger key (function(arguments) path) and what differs."""
    found: dict[str, str] = {}
    for m in mismatches:
        key = f"{m.name}({m.signature}) {m.path}"
        while key in found:  # two cases of one signature
            key += "'"
        found[key] = m.what
    return found


def deliberate(m: object) -> str | None:
    """The reason a mismatch is kept on purpose, or None."""
    for (name, signature, path), reason in DELIBERATE.items():
        if name == m.name and signature in ("*", m.signature) and path in ("*", m.path):
            return reason
    return None


def open_mismatches() -> dict[str, str]:
    return json.loads(OPEN.read_text()) if OPEN.exists() else {}


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    from conformance.replay import replay

    found = keys(m for m in replay() if deliberate(m) is None)
    OPEN.write_text(json.dumps(found, indent=0, sort_keys=True) + "\n")
    print(f"{len(found)} open mismatches written to {OPEN.name}")
