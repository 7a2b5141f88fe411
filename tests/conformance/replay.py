"""Replaying the corpus through tf8 (no JAX needed): each case eagerly, under `jit` and under
`vmap` (on two stacked copies of its array arguments), and its recorded JVP and VJP. A
mismatch is (case number, function, arguments' signature, path, what differs)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

import tf8
import tf8.numpy as tnp

from .corpus import Corpus, load

CORPUS = Path(__file__).resolve().parent / "corpus.npz"

# Tolerances per dtype: XLA's and numpy's transcendental functions differ in the last ulps.
TOLERANCES = {
    "f": {4: (2e-6, 1e-6), 8: (1e-11, 1e-13)},
    "c": {8: (2e-6, 1e-6), 16: (1e-11, 1e-13)},
}


class Mismatch(NamedTuple):
    case: int
    name: str
    signature: str
    path: str
    what: str


def signature(kinds: list[str], args: list[Any]) -> str:
    """The arguments as `float32[2,3], py-float` (what a table row matches)."""
    parts = []
    for kind, arg in zip(kinds, args):
        if kind != "array":
            parts.append(f"py-{kind}")
        else:
            parts.append(f"{arg.dtype}[{','.join(map(str, arg.shape))}]")
    return ", ".join(parts)


def _arguments(corpus: Corpus, entry: dict) -> list[Any]:
    args = []
    for kind, ref in zip(entry["kinds"], entry["in"]):
        value = corpus.array(ref)
        args.append(
            value if kind == "array" else {"float": float, "int": int, "bool": bool}[kind](value)
        )
    return args


def _compare(found: Any, entry: dict, expected: np.ndarray, weak: bool | None) -> str | None:
    """What differs between tf8's `found` and the recorded output, or None."""
    value = np.asarray(found)
    if str(value.dtype) != entry["dtype"]:
        return f"dtype {value.dtype}, JAX {entry['dtype']}"
    if list(value.shape) != entry["shape"]:
        return f"shape {value.shape}, JAX {tuple(entry['shape'])}"
    if weak is not None and weak != entry["weak"]:
        return f"weak type {weak}, JAX {entry['weak']}"
    return _values_differ(value, expected)


def _values_differ(value: np.ndarray, expected: np.ndarray) -> str | None:
    if value.shape != expected.shape:
        return f"shape {value.shape}, JAX {expected.shape}"
    kind, size = expected.dtype.kind, expected.dtype.itemsize
    if kind in "fc":
        rtol, atol = TOLERANCES[kind].get(size, (1e-11, 1e-13))
        try:
            np.testing.assert_allclose(value, expected, rtol=rtol, atol=atol, equal_nan=True)
        except AssertionError:
            bad = ~np.isclose(value, expected, rtol=rtol, atol=atol, equal_nan=True)
            return f"values {value[bad][:3]}, JAX {expected[bad][:3]}"
        if kind == "f":  # the sign of a zero, exactly
            zeros = (value == 0) & (expected == 0)
            if np.any(np.signbit(value[zeros]) != np.signbit(expected[zeros])):
                return "the sign of a zero"
        return None
    if not np.array_equal(value, expected):
        return f"values {value.reshape(-1)[:4]}, JAX {expected.reshape(-1)[:4]}"
    return None


def replay(
    corpus: Corpus | None = None, which: Callable[[int], bool] = lambda i: True
) -> Iterator[Mismatch]:
    """Every mismatch of the cases `which` selects."""
    corpus = corpus or load(CORPUS)
    for i, entry in enumerate(corpus.index):
        if not which(i) or entry.get("missing"):
            continue
        name = entry["name"]
        args = _arguments(corpus, entry)
        entry = dict(entry)
        if "out" in entry:
            entry["_out"] = corpus.array(entry["out"])
        if "jvp" in entry:
            entry["_jvp"] = corpus.array(entry["jvp"])
            entry["_vjp"] = [corpus.array(ref) for ref in entry["vjp"]]
        sig = signature(entry["kinds"], args)
        fn = getattr(tnp, name, None)
        if fn is not None and entry.get("keywords"):
            fn = functools.partial(fn, **entry["keywords"])
            sig += ", " + ", ".join(f"{k}={v}" for k, v in sorted(entry["keywords"].items()))
        if fn is None:
            yield Mismatch(i, name, sig, "eager", "missing in tf8.numpy")
            continue
        for path, run in _paths(fn, args, entry):
            try:
                what = run()
            except Exception as exc:  # noqa: BLE001 - a difference to report
                if "error" in entry:
                    continue  # both refuse
                what = f"raised {type(exc).__name__}: {str(exc)[:80]}"
            if what is not None:
                yield Mismatch(i, name, sig, path, what)


def _paths(fn: Callable, args: list[Any], entry: dict) -> Iterator[tuple[str, Callable]]:
    if "error" in entry:

        def refuses() -> str | None:
            fn(*args)
            return f"no error (JAX raised {entry['error']})"

        yield "eager", refuses
        return
    corpus_out = entry["_out"]

    def eager() -> str | None:
        out = fn(*args)
        return _compare(out, entry, corpus_out, bool(getattr(out, "_weak", False)))

    def jit() -> str | None:
        return _compare(tf8.jit(fn)(*args), entry, corpus_out, None)

    def vmap() -> str | None:
        arrays = [isinstance(a, np.ndarray) for a in args]
        if not any(arrays):
            return None
        stacked = [np.stack([a, a]) if is_array else a for a, is_array in zip(args, arrays)]
        axes = tuple(0 if is_array else None for is_array in arrays)
        out = np.asarray(tf8.vmap(fn, in_axes=axes)(*stacked))
        for k in range(2):
            what = _compare(out[k], entry, corpus_out, None)
            if what is not None:
                return what
        return None

    yield "eager", eager
    yield "jit", jit
    yield "vmap", vmap
    if "jvp" in entry:

        def jvp() -> str | None:
            tangents = [np.full(a.shape, 0.5, a.dtype) for a in args]
            _, found = tf8.jvp(fn, tuple(args), tuple(tangents))
            return _values_differ(np.asarray(found), entry["_jvp"])

        def vjp() -> str | None:
            out, pullback = tf8.vjp(fn, *args)
            cts = pullback(np.full(np.shape(out), 0.25, np.asarray(out).dtype))
            for ct, expected in zip(cts, entry["_vjp"]):
                what = _values_differ(np.asarray(ct), expected)
                if what is not None:
                    return what
            return None

        yield "jvp", jvp
        yield "vjp", vjp
