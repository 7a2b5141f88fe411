"""Replaying the corpus through tf8 (no JAX needed). Each case runs eagerly, under `jit` on each
installed engine, and under `vmap` (on two stacked copies of its array arguments); its
recorded derivatives run to second order. A mismatch is (case number, function, arguments'
signature, path, what differs).

Where JAX refused a case, tf8 must refuse it too, with one of `tf8.errors`' exceptions (never
a numpy error from deep inside). The corpus records JAX's eager outcome: a ConcretizationError
under `jit` or `vmap` (a shape that depends on values) matches, as JAX raises there too."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

import tf8
from tf8.errors import ConcretizationError, Tf8Error

from . import derivatives
from .corpus import Corpus, load
from .spec import function, thaw

CORPUS = Path(__file__).resolve().parent / "corpus"
ENGINE_SAMPLE = 40  # `jit` on the engines other than numpy: every 40th case (test_replay.py)

# Tolerances per dtype (kind, itemsize) -> (rtol, atol): XLA's and numpy's transcendental
# functions differ in the last ulps.
TOLERANCES = {
    ("f", 2): (2e-3, 1e-3),
    ("f", 4): (2e-6, 1e-6),
    ("f", 8): (1e-11, 1e-13),
    ("c", 8): (2e-6, 1e-6),
    ("c", 16): (1e-11, 1e-13),
}
SCALARS = {"float": float, "int": int, "bool": bool, "complex": complex}


class Mismatch(NamedTuple):
    case: int
    name: str
    signature: str
    path: str
    what: str


def signature(entry: dict, args: list[Any]) -> str:
    """The arguments as `float32[2,3], py-float, (3, 4), axis=1` (what a ledger key names)."""
    parts = []
    for kind, arg in zip(entry["kinds"], args):
        if kind == "array":
            parts.append(f"{arg.dtype}[{','.join(map(str, arg.shape))}]")
        elif kind == "static":
            parts.append(repr(arg))
        else:
            parts.append(f"py-{kind}")
    parts += [f"{k}={thaw(v)!r}" for k, v in sorted(entry.get("keywords", {}).items())]
    return ", ".join(parts)


def _arguments(corpus: Corpus, entry: dict) -> list[Any]:
    args = []
    for kind, ref in zip(entry["kinds"], entry["in"]):
        if kind == "static":
            args.append(thaw(ref))
        elif kind == "array":
            args.append(corpus.array(ref))
        else:
            args.append(SCALARS[kind](corpus.array(ref)))
    return args


def values_differ(value: Any, expected: np.ndarray) -> str | None:
    """What differs between a tf8 array and JAX's (dtype, shape, values, signs of zeros)."""
    value = np.asarray(value)
    if value.dtype != expected.dtype:
        return f"dtype {value.dtype}, JAX {expected.dtype}"
    if value.shape != expected.shape:
        return f"shape {value.shape}, JAX {expected.shape}"
    kind, size = expected.dtype.kind, expected.dtype.itemsize
    if kind not in "fc":
        if np.array_equal(value, expected):
            return None
        bad = value != expected
        return f"values {value[bad][:3]}, JAX {expected[bad][:3]}"
    rtol, atol = TOLERANCES.get((kind, size), (1e-11, 1e-13))
    close = np.isclose(value, expected, rtol=rtol, atol=atol, equal_nan=True)
    if kind == "c":  # NaN in either part, in both
        close |= np.isnan(value) & np.isnan(expected)
    if not close.all():
        return f"values {value[~close][:3]}, JAX {expected[~close][:3]}"
    if kind == "f":
        zeros = (value == 0) & (expected == 0)
        if np.any(np.signbit(value[zeros]) != np.signbit(expected[zeros])):
            return "the sign of a zero"
    return None


def _leaves_differ(out: Any, entry: dict, weak: bool) -> str | None:
    found = derivatives.leaves(out, entry.get("select"))
    if len(found) != len(entry["facts"]):
        return f"{len(found)} outputs, JAX {len(entry['facts'])}"
    for k, (leaf, facts, expected) in enumerate(zip(found, entry["facts"], entry["_out"])):
        where = f"output {k}: " if len(found) > 1 else ""
        if weak and bool(getattr(leaf, "_weak", False)) != facts["weak"]:
            return f"{where}weak type {not facts['weak']}, JAX {facts['weak']}"
        what = values_differ(leaf, expected)
        if what is not None:
            return where + what
    return None


def engines() -> list[str]:
    """The engines installed here (the replay runs `jit` on each)."""
    import importlib.util

    from tf8.runtime.engines import ENGINES

    return [n for n, spec in ENGINES.items() if not spec[2] or importlib.util.find_spec(spec[2])]


def replay(
    family: str,
    which: Callable[[int], bool] = lambda i: True,
    on: tuple[str, ...] = ("numpy",),
    visited: set[str] | None = None,
) -> Iterator[Mismatch]:
    """Every mismatch of the cases of `family` that `which` selects, `jit` on engines `on`;
    each case replayed is added to `visited` as `name(signature)`."""
    importlib.import_module(f"{__package__}.families.{family}")  # its PROGRAMS
    corpus = load(CORPUS / f"{family}.npz")
    seen: dict[str, int] = {}
    for i, entry in enumerate(corpus.index):
        entry = dict(entry, keywords=thaw(entry.get("keywords", {})))
        args = _arguments(corpus, entry)
        sig = signature(entry, args)
        seen[entry["name"] + sig] = count = seen.get(entry["name"] + sig, 0) + 1
        if count > 1:  # a second case of one signature (other values): its own ledger keys
            sig += f", #{count}"
        if not which(i) or entry.get("missing"):
            continue
        if "out" in entry:
            entry["_out"] = [corpus.array(ref) for ref in entry["out"]]
        if visited is not None:
            visited.add(f"{entry['name']}({sig})")
        fn = function(tf8, entry["name"])
        if fn is None:
            yield Mismatch(i, entry["name"], sig, "eager", "missing in tf8")
            continue
        for path, run in _paths(fn, args, entry, corpus, on):
            try:
                what = run()
            except ConcretizationError:
                # JAX's corpus holds eager outcomes; under jit and vmap a value-dependent shape
                # raises JAX's ConcretizationTypeError too, so the same refusal here matches.
                what = None if path != "eager" else "raised ConcretizationError"
            except Exception as exc:  # noqa: BLE001 - a difference to report
                what = f"raised {type(exc).__name__}: {str(exc)[:80]}"
            if what is not None:
                yield Mismatch(i, entry["name"], sig, path, what)


def _paths(
    fn: Callable, args: list[Any], entry: dict, corpus: Corpus, on: tuple[str, ...]
) -> Iterator[tuple[str, Callable[[], str | None]]]:
    kw = entry["keywords"]
    if "error" in entry:

        def refuses() -> str | None:
            try:
                fn(*args, **kw)
            except Tf8Error:
                return None
            except Exception as exc:  # noqa: BLE001 - the wrong kind of refusal
                return f"raised {type(exc).__name__}, not a tf8.errors exception"
            return f"no error (JAX raised {entry['error']})"

        yield "eager", refuses
        return
    traced = [k for k, kind in enumerate(entry["kinds"]) if kind != "static"]

    def call(*values: Any) -> Any:
        full = list(args)
        for k, v in zip(traced, values):
            full[k] = v
        return fn(*full, **kw)

    yield "eager", lambda: _leaves_differ(fn(*args, **kw), entry, weak=True)
    for engine in on:
        label = "jit" if engine == "numpy" else f"jit[{engine}]"
        yield (
            label,
            lambda e=engine: _leaves_differ(
                tf8.jit(call, engine=e)(*[args[k] for k in traced]), entry, weak=False
            ),
        )

    def vmap() -> str | None:
        arrays = [entry["kinds"][k] == "array" for k in traced]
        if not any(arrays):
            return None
        stacked = [np.stack([args[k]] * 2) if a else args[k] for k, a in zip(traced, arrays)]
        axes = tuple(0 if a else None for a in arrays)
        out = derivatives.leaves(tf8.vmap(call, in_axes=axes)(*stacked))  # all: rows below
        for row in range(2):
            what = _leaves_differ([np.asarray(x)[row] for x in out], entry, weak=False)
            if what is not None:
                return what
        return None

    yield "vmap", vmap
    recorded = [key for key in ("jvp", "vjp", "jvp2", "vjp2") if key in entry]
    if not recorded:
        return
    try:
        found = derivatives.all_orders(tf8, fn, args, kw, entry.get("select"))
    except Exception as exc:  # noqa: BLE001 - tf8 refuses the function itself
        found = dict.fromkeys(recorded, exc)
    for key in recorded:
        yield key, lambda key=key: _derivative_differs(found.get(key), entry[key], corpus)


def _derivative_differs(found: Any, recorded: Any, corpus: Corpus) -> str | None:
    if isinstance(recorded, str):  # JAX raised
        return None if isinstance(found, Exception) else f"no error (JAX raised {recorded})"
    if isinstance(found, Exception):
        return f"raised {type(found).__name__}: {str(found)[:80]}"
    if found is None or len(found) != len(recorded):
        return f"{0 if found is None else len(found)} derivatives, JAX {len(recorded)}"
    for value, ref in zip(found, recorded):
        what = values_differ(value, corpus.array(ref))
        if what is not None:
            return what
    return None
