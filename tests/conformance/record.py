"""Record JAX's answers for the conformance corpus (run by hand, in a scratch venv with JAX):

    python -m venv /tmp/jaxvenv && /tmp/jaxvenv/bin/pip install jax numpy
    /tmp/jaxvenv/bin/python tests/conformance/record.py

With `jax_enable_x64` on (tf8 computes in 64 bits by default), every case of cases.py runs
through `jax.numpy`: the output's values, dtype, weak type and shape, or the error it raises;
where every argument is an inexact array and the output inexact, its JVP on tangents of 0.5
and its VJP on a cotangent of 0.25. The corpus is one compressed npz (corpus.npz, read by
corpus.py): each dtype's arrays flattened into one buffer, and an "index" entry holding the
JSON list of each case's facts, with where its arrays lie.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
from cases import cases  # noqa: E402
from corpus import Packer  # noqa: E402


def _kind(arg: Any) -> str:
    if isinstance(arg, bool):
        return "bool"
    if isinstance(arg, int):
        return "int"
    if isinstance(arg, float):
        return "float"
    return "array"


def _facts(out: Any) -> dict:
    return {
        "dtype": str(out.dtype),
        "weak": bool(getattr(out, "weak_type", False)),
        "shape": list(out.shape),
    }


def record() -> None:
    packer = Packer()
    index = []
    for name, args, keywords in cases():
        entry: dict[str, Any] = {"name": name, "kinds": [_kind(a) for a in args]}
        if keywords:
            entry["keywords"] = keywords
        entry["in"] = [packer.put(np.asarray(arg)) for arg in args]
        fn = getattr(jnp, name, None)
        if fn is None:
            entry["missing"] = True
            index.append(entry)
            continue
        jargs = [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        try:
            out = fn(*jargs, **keywords)
        except Exception as exc:  # noqa: BLE001 - JAX's refusal is a fact to record
            entry["error"] = type(exc).__name__
            index.append(entry)
            continue
        entry.update(_facts(out))
        entry["out"] = packer.put(np.asarray(out))
        call = functools.partial(fn, **keywords)
        inexact = all(isinstance(a, np.ndarray) and a.dtype.kind in "fc" and a.size for a in args)
        if inexact and np.asarray(out).dtype.kind in "fc":
            tangents = [jnp.full(a.shape, 0.5, a.dtype) for a in jargs]
            _, tangent_out = jax.jvp(call, jargs, tangents)
            entry["jvp"] = packer.put(np.asarray(tangent_out))
            value, pullback = jax.vjp(call, *jargs)
            cts = pullback(jnp.full(value.shape, 0.25, value.dtype))
            entry["vjp"] = [packer.put(np.asarray(ct)) for ct in cts]
        index.append(entry)
    packer.save(HERE / "corpus.npz", index)
    print(f"{len(index)} cases, jax {jax.__version__}")


if __name__ == "__main__":
    record()
