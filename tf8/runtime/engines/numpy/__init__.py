"""The numpy engine: the default, always there, and the host that drives execution.

Its kernel table is every op's own kernel (a primitive's definition, the extension families'
kernels); its code generator (codegen.py) turns a placed, optimised program into one
straight-line Python function of ufunc calls, `out=` buffer reuse and blocked elementwise
regions (regions.py), calling guest engines' compiled regions where they are placed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tf8.ops.definition import definition
from tf8.ops.lowering import ufunc_steps
from tf8.runtime.engines.base import Engine, Kernel

from .codegen import generate
from .elementwise import Steps


class NumpyEngine(Engine):
    """Runs catalog primitives and extension ops with their own kernels (their definitions')."""

    name = "numpy"
    folds_metadata_views = True

    def supports(self, op: Any, avals: Sequence[Any] = ()) -> bool:
        return definition(op).kernel is not None

    def kernel(self, op: Any) -> Kernel | None:
        return definition(op).kernel

    def quiet(self) -> Any:
        return np.errstate(all="ignore")

    def elementwise_steps(self, op: Any, dtypes: Sequence[np.dtype]) -> Steps | None:
        return ufunc_steps(op, dtypes)

    def reduction(self, op: Any) -> tuple[np.ufunc, bool] | None:
        return definition(op).fusion.reduce

    def generate(
        self, program: Any, engines: Sequence[Engine], use_regions: bool = True
    ) -> Callable[..., list]:
        """The run function of a placed program (guest engines compile their regions)."""
        return generate(program, self, use_regions, engines)
