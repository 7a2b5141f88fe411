"""The corpus's families: each module's `cases()` is recorded into `corpus/<module>.npz`
(modules whose names start with `_` hold shared values)."""

from pathlib import Path

FAMILIES = sorted(p.stem for p in Path(__file__).parent.glob("*.py") if not p.stem.startswith("_"))
