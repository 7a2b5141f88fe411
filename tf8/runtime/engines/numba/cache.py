"""The disk cache of compiled regions: generated source in a file, numba's cache beside it.

`numba.njit(cache=True)` caches machine code next to the function's source file, so each
generated module is written to `<cache dir>/tf8_<digest>.py`, the digest being a SHA-256 of
its source (which is a function of the program's fingerprint, the placement and this
engine's code generator; identical regions of different programs share one entry). A second
process imports the same file and numba loads the compiled code instead of compiling.

Never trusted blindly:
- a file whose text is not exactly the expected source (stale, truncated, written by an
  older tf8, or half written by a concurrent process) is rewritten atomically (a temporary
  file, then `os.replace`), and numba, which keys its index on the file's timestamp and
  size, then recompiles;
- if loading numba's cached code fails (a corrupt index or object file), the entry's
  numba files are removed and the module compiled afresh.

The directory is `$TF8_CACHE_DIR/numba`, else `$XDG_CACHE_HOME/tf8/numba`, else
`~/.cache/tf8/numba`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

_LOADED: dict[str, ModuleType] = {}  # digest → module, within this process


def cache_dir() -> Path:
    root = os.environ.get("TF8_CACHE_DIR")
    if root:
        return Path(root) / "numba"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tf8" / "numba"


def entry_path(source: str) -> Path:
    digest = hashlib.sha256(source.encode()).hexdigest()[:32]
    return cache_dir() / f"tf8_{digest}.py"


def _write(path: Path, source: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=path.stem, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as file:
            file.write(source)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _import(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba's cached code finds its globals by module name
    spec.loader.exec_module(module)
    return module


def purge(path: Path) -> None:
    """Remove numba's cached code for the module at `path` (its index and object files)."""
    for stale in (path.parent / "__pycache__").glob(f"{path.stem}.*"):
        stale.unlink(missing_ok=True)


def _dispatchers(module: ModuleType) -> list[Any]:
    """The module's own caching functions (not the lanes.py folds it holds: those are
    compiled into the functions calling them)."""
    return [
        f
        for f in vars(module).values()
        if hasattr(f, "stats")
        and f.stats.cache_path is not None
        and getattr(f, "py_func", None) is not None
        and f.py_func.__module__ == module.__name__
    ]


ENTRY_POINTS = ("run", "run_parallel")  # the functions a generated module offers its caller


def _warm_all(module: ModuleType, warm: Callable[[Any], Any]) -> None:
    for name in ENTRY_POINTS:
        if hasattr(module, name):
            warm(getattr(module, name))


def load(source: str, warm: Callable[[Any], Any]) -> tuple[ModuleType, Path, bool]:
    """The module of `source`, its entry points (`run`, and `run_parallel` where there is
    one) compiled, or loaded from the disk cache when a valid entry is there, by `warm(f)`,
    a call on arguments of the real types. Returns (module, cache file, whether everything
    came from the disk cache)."""
    path = entry_path(source)
    module = _LOADED.get(path.stem)
    if module is None:
        try:
            current = path.read_text()
        except (OSError, UnicodeDecodeError):
            current = None
        if current != source:
            _write(path, source)
        module = _import(path)
    try:
        _warm_all(module, warm)
    except Exception:  # a corrupt numba cache entry: drop it and compile afresh
        purge(path)
        _write(path, source)
        module = _import(path)
        _warm_all(module, warm)
    _LOADED[path.stem] = module
    stats = [f.stats for f in _dispatchers(module)]
    hit = all(sum(st.cache_hits.values()) and not sum(st.cache_misses.values()) for st in stats)
    return module, path, hit
