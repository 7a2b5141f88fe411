"""Which public functions tf8 shares with JAX, and which of them the corpus records.

`corpus/names.json` lists, per namespace, JAX's public callables that tf8's counterpart also
has (recorded with JAX: `python tests/conformance/coverage.py` in the JAX venv). A shared name
counts as covered when some case of some family calls it (its qualified name, or a program
that declares it in `families/<family>.py`'s COVERS). `NOT_FUNCTIONS` lists the shared names
that are not functions of arrays (dtype classes, constructors of types), with the reason.
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAMES = HERE / "corpus" / "names.json"

# JAX namespace -> its path below the root (the same in tf8)
NAMESPACES = {
    "jax": "",
    "jax.numpy": "numpy",
    "jax.numpy.linalg": "numpy.linalg",
    "jax.numpy.fft": "numpy.fft",
    "jax.lax": "lax",
    "jax.nn": "nn",
    "jax.nn.initializers": "nn.initializers",
    "jax.random": "random",
    "jax.scipy.special": "scipy.special",
    "jax.scipy.linalg": "scipy.linalg",
    "jax.scipy.stats": "scipy.stats",
    "jax.scipy.signal": "scipy.signal",
    "jax.scipy.fft": "scipy.fft",
    "jax.experimental.ode": "experimental.ode",
}
STATS = [
    "bernoulli", "beta", "binom", "cauchy", "chi2", "dirichlet", "expon", "gamma", "geom",
    "gennorm", "laplace", "logistic", "multivariate_normal", "nbinom", "norm", "pareto",
    "poisson", "t", "truncnorm", "uniform", "vonmises", "wrapcauchy",
]  # fmt: skip

# qualified name -> why it is not a function of arrays the corpus can record
_SCALAR_TYPES = """bool bool_ cdouble complex128 complex64 complex_ csingle double float16 float32
float64 float_ int32 int64 int_ single uint32 uint8""".split()
_ABSTRACT = """complexfloating floating generic inexact integer number signedinteger
unsignedinteger""".split()
NOT_FUNCTIONS: dict[str, str] = {
    **{f"numpy.{n}": "a scalar type (numpy's dtype class), not a function" for n in _SCALAR_TYPES},
    **{f"numpy.{n}": "an abstract dtype class, for issubdtype" for n in _ABSTRACT},
    "numpy.dtype": "numpy's dtype class",
    "numpy.finfo": "numpy's machine-limits class (tnp.finfo is np.finfo)",
    "numpy.iinfo": "numpy's machine-limits class (tnp.iinfo is np.iinfo)",
    "numpy.ndarray": "the array type (an isinstance target)",
    "nn.initializers.Initializer": "a typing protocol",
    "experimental.ode.Callable": "typing.Callable, imported by jax.experimental.ode",
    "clear_caches": "takes no arrays and returns nothing (tests/api check it empties the caches)",
}


def _public(module: object) -> dict[str, object]:
    return {
        n: getattr(module, n)
        for n in dir(module)
        if not n.startswith("_") and callable(getattr(module, n, None))
    }


def _resolve(name: str) -> object | None:
    """A module or a module's attribute (tf8.numpy.fft is one) by its dotted name."""
    try:
        return importlib.import_module(name)
    except ImportError:
        head, _, tail = name.rpartition(".")
        parent = _resolve(head) if head else None
        return getattr(parent, tail, None) if parent is not None else None


def shared_names() -> dict[str, list[str]]:
    """JAX's public callables per namespace that tf8 also has (run with JAX installed)."""
    import tf8

    found: dict[str, list[str]] = {}
    pairs = dict(NAMESPACES)
    pairs.update({f"jax.scipy.stats.{d}": f"scipy.stats.{d}" for d in STATS})
    for jax_name, path in pairs.items():
        theirs, ours = _resolve(jax_name), _resolve("tf8" + ("." + path if path else ""))
        if theirs is None or ours is None:
            continue
        names = sorted(
            n
            for n, obj in _public(theirs).items()
            if not inspect.ismodule(obj) and callable(getattr(ours, n, None))
        )
        if names:
            found[path] = names
    del tf8
    return found


def covered(recorded: set[str]) -> tuple[list[str], list[str]]:
    """(shared functions the corpus records, shared functions it does not)."""
    shared = json.loads(NAMES.read_text())
    have, lack = [], []
    for path, names in shared.items():
        for name in names:
            qualified = f"{path}.{name}" if path else name
            if qualified in NOT_FUNCTIONS:
                continue
            (have if qualified in recorded else lack).append(qualified)
    return have, lack


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[1]))
    NAMES.write_text(json.dumps(shared_names(), indent=0) + "\n")
    print(f"wrote {NAMES}")
