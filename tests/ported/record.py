"""Record the ported programs' results from JAX (x64), by hand in a venv that has JAX:

    JAX_ENABLE_X64=1 python tests/ported/record.py

writes tests/ported/recorded/<program>.npz."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PROGRAMS = ["autodiff_tour", "controller", "convnet", "training_loop"]

if __name__ == "__main__":
    import jax

    jax.config.update("jax_enable_x64", True)
    sys.path.insert(0, str(HERE.parents[1]))
    (HERE / "recorded").mkdir(exist_ok=True)
    for name in sys.argv[1:] or PROGRAMS:
        program = importlib.import_module(f"tests.ported.{name}")
        results = program.run(jax)
        np.savez(HERE / "recorded" / f"{name}.npz", **results)
        print(f"{name}: {len(results)} results recorded from jax {jax.__version__}")
