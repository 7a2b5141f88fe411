"""Record JAX's answers for the conformance corpus (run by hand, in a scratch venv with JAX):

    python -m venv /tmp/jaxvenv && /tmp/jaxvenv/bin/pip install jax scipy
    /tmp/jaxvenv/bin/python tests/conformance/record.py [family ...]

With `jax_enable_x64` on (tf8 computes in 64 bits by default), every case of each family
(families/, all of them by default) runs through JAX. Each output leaf's values, dtype, weak
type and shape are kept, or the error JAX raises. Where the case has inexact array arguments
and inexact outputs, its derivatives with respect to those arguments are kept too, on
tangents of 0.5 and cotangents of 0.25: the JVP, the VJP, and to second order the JVP of the
JVP and the VJP of the VJP. Each family is one compressed npz, `corpus/<family>.npz` (see
corpus.py); the JAX names that tf8 shares are listed in `corpus/names.json` (coverage.py).
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
# JAX compiles each primitive for each new shape and dtype; keep those between recordings
jax.config.update("jax_compilation_cache_dir", "/tmp/tf8-jax-cache")
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
import jax.numpy as jnp  # noqa: E402

from conformance import derivatives  # noqa: E402
from conformance.corpus import Packer  # noqa: E402
from conformance.families import FAMILIES  # noqa: E402
from conformance.spec import Static, function, thaw  # noqa: E402


def _kind(arg: Any) -> str:
    if isinstance(arg, Static):
        return "static"
    if isinstance(arg, np.generic):  # a numpy scalar (np.float64 is a float too): a 0-d array
        return "array"
    for kind in (bool, int, float, complex):
        if isinstance(arg, kind):
            return kind.__name__
    return "array"


def _encode(arg: Any, packer: Packer) -> Any:
    if isinstance(arg, Static):
        return arg.value
    return packer.put(np.asarray(arg))


def _decode(arg: Any) -> Any:
    if isinstance(arg, Static):
        return arg.value
    return jnp.asarray(arg) if isinstance(arg, (np.ndarray, np.generic)) else arg


def record_case(case: Any, packer: Packer) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": case.name, "kinds": [_kind(a) for a in case.args]}
    entry["in"] = [_encode(a, packer) for a in case.args]
    if case.keywords:
        entry["keywords"] = case.keywords
    if case.select is not None:
        entry["select"] = list(case.select)
    fn = function(jax, case.name)
    if fn is None:
        entry["missing"] = True
        return entry
    args = [_decode(a) for a in case.args]
    case.keywords = thaw(case.keywords)  # tuples, as the replay reads them back from JSON
    try:
        leaves = [
            jnp.asarray(x) for x in derivatives.leaves(fn(*args, **case.keywords), case.select)
        ]
        facts = [
            {"dtype": str(x.dtype), "weak": bool(getattr(x, "weak_type", False)), "shape": x.shape}
            for x in leaves
        ]
    except Exception as exc:  # noqa: BLE001 - JAX's refusal is a fact to record
        entry["error"] = type(exc).__name__
        return entry
    entry["facts"] = [dict(f, shape=list(f["shape"])) for f in facts]
    entry["out"] = [packer.put(np.asarray(x)) for x in leaves]
    if case.derivatives:
        found = derivatives.all_orders(jax, fn, args, case.keywords, case.select, jax.jit)
        for key, values in found.items():
            if isinstance(values, Exception):
                entry[key] = type(values).__name__
            else:
                entry[key] = [packer.put(v) for v in values]
    return entry


def record(families: list[str]) -> None:
    for family in families:
        module = importlib.import_module(f"conformance.families.{family}")
        packer = Packer()
        index, last, start = [], None, time.perf_counter()
        for case in module.cases():
            if case.name != last and "-v" in sys.argv:
                print(f"  {case.name} at {time.perf_counter() - start:.0f} s", flush=True)
                last = case.name
            index.append(record_case(case, packer))
        packer.save(HERE / "corpus" / f"{family}.npz", index)
        print(f"{family}: {len(index)} cases, jax {jax.__version__}")


if __name__ == "__main__":
    record([a for a in sys.argv[1:] if a != "-v"] or FAMILIES)
