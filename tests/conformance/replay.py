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


def _leaves_differ(
    found: list, expected: list, facts: list | None, labelled: bool = True
) -> str | None:
    """What differs between tf8's output leaves and JAX's (`labelled`: saying which output);
    `facts` (eagerly) holds JAX's weak types, checked too."""
    if len(found) != len(expected):
        return f"{len(found)} outputs, JAX {len(expected)}"
    for k, (leaf, ref) in enumerate(zip(found, expected)):
        where = f"output {k}: " if labelled and len(found) > 1 else ""
        if facts is not None and bool(getattr(leaf, "_weak", False)) != facts[k]["weak"]:
            return f"{where}weak type {not facts[k]['weak']}, JAX {facts[k]['weak']}"
        what = values_differ(leaf, ref)
        if what is not None:
            return where + what
    return None


LOW = {np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.complex64)}
WIDE = {"f": np.float64, "c": np.complex128}


def _widened(args: list[Any]) -> list[Any] | None:
    """The arguments with float16/float32/complex64 arrays in 64 bits (None: there are none)."""
    if not any(isinstance(a, np.ndarray) and a.dtype in LOW for a in args):
        return None
    return [
        a.astype(WIDE[a.dtype.kind]) if isinstance(a, np.ndarray) and a.dtype in LOW else a
        for a in args
    ]


def closer_than_jax(found: list, expected: list, exact: list) -> bool:
    """Whether each of tf8's values that JAX's tolerance rejects lies at least as close to `exact`
    (the same computation from the arguments widened to 64 bits) as JAX's value does."""
    if len(found) != len(expected) or len(exact) != len(expected):
        return False
    for value, ref, wide in zip(found, expected, exact):
        value, wide = np.asarray(value), np.asarray(wide)
        if ref.dtype.kind not in WIDE or value.dtype != ref.dtype or wide.shape != ref.shape:
            if values_differ(value, ref) is not None:
                return False
            continue
        kind, size = ref.dtype.kind, ref.dtype.itemsize
        rtol, atol = TOLERANCES.get((kind, size), (1e-11, 1e-13))
        bad = ~np.isclose(value, ref, rtol=rtol, atol=atol, equal_nan=True)
        v, r, w = (np.asarray(a, WIDE[kind])[bad] for a in (value, ref, wide))
        with np.errstate(invalid="ignore"):  # inf - inf: such an element is not closer
            closer = np.isfinite(w) & (np.abs(v - w) <= np.abs(r - w))
        if not np.all(closer):
            return False
    return True


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
        if "error" in entry:
            what = _refusal(fn, args, entry)
            if what is not None:
                yield Mismatch(i, entry["name"], sig, "eager", what)
            continue
        wide = _widened(args)
        for path, produce in _outputs(fn, args, entry, on):
            expected, facts = _expected(entry, corpus, path)
            try:
                # `vmap` gives each row's leaves; the other paths one row
                rows = produce() if path == "vmap" else [produce()]
                labelled = path not in DERIVATIVES  # (a derivative's leaves are not outputs)
                what = next(
                    filter(None, (_differs(r, expected, facts, labelled) for r in rows)), None
                )
                if what and "values [" in what and wide is not None:
                    exact = dict(_outputs(fn, wide, entry, on))[path]()
                    exact = exact if path == "vmap" else [exact]
                    if all(map(closer_than_jax, rows, [expected] * len(rows), exact)):
                        what = "values closer to the 64-bit result than JAX's: " + what
            except ConcretizationError:
                # JAX's corpus holds eager outcomes; under jit and vmap a value-dependent shape
                # raises JAX's ConcretizationTypeError too, so the same refusal here matches.
                staged = path == "vmap" or path.startswith("jit")
                what = None if staged else "raised ConcretizationError"
            except Exception as exc:  # noqa: BLE001 - a difference to report
                what = None if isinstance(expected, str) else _raised(exc)
            if what is not None:
                yield Mismatch(i, entry["name"], sig, path, what)


def _raised(exc: Exception) -> str:
    return f"raised {type(exc).__name__}: {str(exc)[:80]}"


def _refusal(fn: Callable, args: list[Any], entry: dict) -> str | None:
    """JAX refused the case: tf8 must raise one of tf8.errors' exceptions."""
    try:
        fn(*args, **entry["keywords"])
    except Tf8Error:
        return None
    except Exception as exc:  # noqa: BLE001 - the wrong kind of refusal
        return f"raised {type(exc).__name__}, not a tf8.errors exception"
    return f"no error (JAX raised {entry['error']})"


DERIVATIVES = ("jvp", "vjp", "jvp2", "vjp2")


def _expected(entry: dict, corpus: Corpus, path: str) -> tuple[list | str, list | None]:
    """JAX's leaves for `path` (a string where JAX raised) and, eagerly, its facts."""
    if path in DERIVATIVES:
        recorded = entry[path]
        return (
            recorded if isinstance(recorded, str) else [corpus.array(r) for r in recorded]
        ), None
    return entry["_out"], entry["facts"] if path == "eager" else None


def _differs(found: list, expected: list | str, facts: list | None, labelled: bool) -> str | None:
    if isinstance(expected, str):  # JAX raised
        return f"no error (JAX raised {expected})"
    return _leaves_differ(found, expected, facts, labelled)


def _outputs(
    fn: Callable, args: list[Any], entry: dict, on: tuple[str, ...]
) -> Iterator[tuple[str, Callable[[], list]]]:
    """Each path's producer of tf8's output leaves: eager, `jit` on each engine of `on`, `vmap`
    (a list of each row's leaves), then each recorded derivative."""
    kw, select = entry["keywords"], entry.get("select")
    traced = [k for k, kind in enumerate(entry["kinds"]) if kind != "static"]

    def call(*values: Any) -> Any:
        full = list(args)
        for k, v in zip(traced, values):
            full[k] = v
        return fn(*full, **kw)

    yield "eager", lambda: derivatives.leaves(fn(*args, **kw), select)
    for engine in on:
        label = "jit" if engine == "numpy" else f"jit[{engine}]"
        yield (
            label,
            lambda e=engine: derivatives.leaves(
                tf8.jit(call, engine=e)(*[args[k] for k in traced]), select
            ),
        )
    arrays = [entry["kinds"][k] == "array" for k in traced]
    if any(arrays):

        def vmap() -> list[list]:
            stacked = [np.stack([args[k]] * 2) if a else args[k] for k, a in zip(traced, arrays)]
            axes = tuple(0 if a else None for a in arrays)
            out = derivatives.leaves(tf8.vmap(call, in_axes=axes)(*stacked), select)
            return [[np.asarray(x)[row] for x in out] for row in range(2)]

        yield "vmap", vmap
    recorded = [key for key in DERIVATIVES if key in entry]
    if not recorded:
        return
    memo: dict[str, Any] = {}

    def derivative(key: str) -> list:
        if not memo:
            try:
                memo.update(derivatives.all_orders(tf8, fn, args, kw, select))
            except Exception as exc:  # noqa: BLE001 - tf8 refuses the function itself
                memo.update(dict.fromkeys(recorded, exc))
        found = memo.get(key)
        if isinstance(found, Exception):
            raise found
        return [] if found is None else found

    for key in recorded:
        yield key, lambda key=key: derivative(key)
