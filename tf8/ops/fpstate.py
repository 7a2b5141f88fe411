"""numpy's floating-point error state around kernels: tf8 follows IEEE (inf and nan are
values, as in JAX), so no kernel warns or raises on them, whatever state the user set.

- `ignore_fp_errors()` / `restore_fp_errors(token)`: the quiet state around a block (the
  generated code, the tape's backward pass).
- `quietly(fn, *args)`: one call of any function in the quiet state.
- `quiet_numpy(fn, *args)` (`QUIET_RUN` inlined): one call of a numpy function in a private
  context that holds the quiet state, several times cheaper than setting and resetting it.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "FP_IGNORE",
    "FP_STATE",
    "QUIET_RUN",
    "ignore_fp_errors",
    "quiet_numpy",
    "quietly",
    "restore_fp_errors",
]

try:  # numpy >= 2 keeps the error state in a context variable: set it without errstate's cost
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    FP_STATE, FP_IGNORE = _extobj_contextvar, _make_extobj(all="ignore")

except ImportError:  # pragma: no cover - other numpy layouts: the public context manager

    class _ErrState:
        """errstate behind the set/reset interface of a context variable."""

        @staticmethod
        def set(_: Any) -> Any:
            state = np.errstate(all="ignore")
            state.__enter__()
            return state

        @staticmethod
        def reset(token: Any) -> None:
            token.__exit__(None, None, None)

    FP_STATE, FP_IGNORE = _ErrState, None


def ignore_fp_errors() -> Any:
    """Silence numpy's floating-point warnings (kernels follow IEEE: inf, nan); returns the
    token `restore_fp_errors` takes."""
    return FP_STATE.set(FP_IGNORE)


def restore_fp_errors(token: Any) -> None:
    FP_STATE.reset(token)


def quietly(fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)` without numpy's floating-point warnings or errors (kernels follow IEEE)."""
    token = FP_STATE.set(FP_IGNORE)
    try:
        return fn(*args)
    finally:
        FP_STATE.reset(token)


# A private context holding only numpy's quiet error state: entering it for one call costs
# 0.04 µs where setting and resetting the state costs 0.13–0.27 µs, a third of a small op.
# Only for numpy's own functions (a ufunc, its reduce): code run in it sees none of tf8's
# context variables. A context is entered by one thread at a time: while another thread is
# inside (numpy releases the GIL in its loops), `quiet_numpy` falls back to `quietly`.
if FP_IGNORE is not None:
    _QUIET = contextvars.Context()
    _QUIET.run(FP_STATE.set, FP_IGNORE)
    QUIET_RUN = _QUIET.run
else:  # pragma: no cover - other numpy layouts: errstate is not a context variable
    QUIET_RUN = quietly


def quiet_numpy(fn: Callable[..., Any], *args: Any) -> Any:
    """`quietly(fn, *args)` for a numpy function `fn`, in the quiet context when it is free."""
    try:
        return QUIET_RUN(fn, *args)
    except RuntimeError:  # the context is entered (another thread); or `fn` raised: again
        return quietly(fn, *args)
