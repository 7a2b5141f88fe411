"""tf8.debug: JAX's `jax.debug` — `print`, `callback` and `breakpoint`, which work on the
values at run time under jit, vmap, grad and the control-flow ops.

Each is a debug callback (tf8.lax.callback): outside transforms it runs at once; under jit
(and in loop and cond bodies) it runs every time the program runs, in program order, and is
never dropped although nothing reads it (tf8.lax.effects keeps it); under vmap it runs once
per example; under grad it sees the primal values only, once.
"""

from __future__ import annotations

import builtins
import inspect
import keyword
import logging
import string
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tf8.errors import ParameterError
from tf8.lax.callback import debug_callback
from tf8.traced import TracedTensor

__all__ = ["breakpoint", "callback", "log", "print"]


def callback(
    callback: Callable[..., Any],
    *args: Any,
    ordered: bool = False,
    partitioned: bool = False,
    **kwargs: Any,
) -> None:
    """Call `callback(*args, **kwargs)` for its effect on the values at run time.

    Parameters: `callback` (a function; its result is ignored); `*args, **kwargs` (pytrees:
    array leaves reach it as numpy arrays, other leaves as they are); `ordered` (run in
    program order with the other ordered effects; tf8 runs the effects of one function or
    body in the order they were traced, ordered or not); `partitioned` (accepted, ignored:
    tf8 runs on one host).

    Differences from JAX: the callback receives read-only numpy arrays (JAX 0.10 passes jax
    Arrays).

    >>> import builtins, tf8, tf8.numpy as jnp
    >>> f = tf8.jit(lambda x: tf8.debug.callback(lambda v: builtins.print("got", v), x) or x)
    >>> _ = f(jnp.arange(3)); _ = f(jnp.arange(3))
    got [0 1 2]
    got [0 1 2]
    """
    debug_callback(callback, args, kwargs, ordered)


class _FormatChecker(string.Formatter):
    """JAX's check of a debug.print format: every argument used, no value formatted."""

    def format_field(self, value: Any, format_spec: str) -> str:
        return ""

    def check_unused_args(self, used_args: Any, args: Any, kwargs: Any) -> None:
        unused = [a for i, a in enumerate(args) if i not in used_args]
        if unused:
            raise ParameterError(f"Unused positional arguments to `tf8.debug.print`: {unused}")
        unused_kw = [k for k in kwargs if k not in used_args]
        if unused_kw:
            raise ParameterError(
                f"Unused keyword arguments to `tf8.debug.print`: {unused_kw}. You may be "
                'passing an f-string (i.e, `f"{x}"`) into `tf8.debug.print` and instead should '
                "pass in a regular string."
            )


@dataclass(frozen=True)
class _Printer:
    """The run-time side of one debug.print: formats with the print options it was traced
    under (equal prints are equal ops, so traces and plans are shared)."""

    fmt: str
    printoptions: tuple
    placeholders: bool
    logged: bool = False  # to the `tf8.debug` logger at INFO (debug.log), not stdout

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        with np.printoptions(**dict(self.printoptions)):
            if self.placeholders:
                text = self.fmt.format(*args, **kwargs)
            else:
                text = " ".join((self.fmt, *(str(a) for a in args)))
        if self.logged:
            logging.getLogger("tf8.debug").info(text)
        else:
            builtins.print(text)


def print(  # noqa: A001 - JAX's name
    fmt: str | None = None,
    *args: Any,
    ordered: bool = False,
    partitioned: bool = False,
    skip_format_check: bool = False,
    _use_logging: bool = False,
    **kwargs: Any,
) -> Any:
    """Print `fmt.format(*args, **kwargs)` with the values at run time (JAX's
    `jax.debug.print`): at once outside transforms, at every run under jit, once per example
    under vmap, the primal values under grad, each iteration in a loop body.

    Parameters: `fmt` (a `str.format` string; not an f-string: formatting is delayed);
    `*args, **kwargs` (the values, pytrees of arrays or Python values); `ordered` (program
    order among ordered effects; tf8 runs the effects of one function or body in traced
    order, ordered or not); `partitioned` (accepted, ignored); `skip_format_check` (do not
    check that `fmt` uses every argument).
    `tf8.debug.print(ordered=True)(fmt, ...)` is JAX's two-call form. A format without
    placeholders prints `fmt` then the arguments, as JAX.

    Differences from JAX: values are formatted as numpy arrays (the same text as JAX's for
    arrays and scalars); a print in a vmapped loop prints example by example, not in JAX's
    order.

    >>> import tf8, tf8.numpy as jnp
    >>> def h(x):
    ...     tf8.debug.print("x={x} s={s}", x=x, s=x.sum())
    ...     return x * 2
    >>> _ = tf8.vmap(h)(jnp.arange(4.0).reshape(2, 2))
    x=[0. 1.] s=1.0
    x=[2. 3.] s=5.0
    """

    def printing(fmt: str, *args: Any, **kwargs: Any) -> None:
        if not isinstance(fmt, str):
            raise ParameterError(f"tf8.debug.print expects a format string, got {fmt!r:.60}")
        if not skip_format_check:
            _FormatChecker().format(fmt, *args, **kwargs)
        placeholders = bool(fmt) and next(iter(string.Formatter().parse(fmt)))[1] is not None
        options = tuple(np.get_printoptions().items())
        printer = _Printer(fmt, options, placeholders, _use_logging)
        debug_callback(printer, args, kwargs, ordered)

    if fmt is None:
        return printing
    printing(fmt, *args, **kwargs)
    return None


def breakpoint(  # noqa: A001 - JAX's name
    *,
    backend: str | None = None,
    filter_frames: bool = True,
    num_frames: int | None = None,
    ordered: bool = False,
    token: Any = None,
    **kwargs: Any,
) -> Any:
    """Enter the Python debugger when the program runs, on the values of the calling
    function's local variables at run time (JAX's `jax.debug.breakpoint`).

    The caller's locals are captured when it is traced: its arrays (traced or not) become the
    breakpoint's inputs, other values are kept as they are. When the breakpoint runs,
    `sys.breakpointhook()` (pdb by default; PYTHONBREAKPOINT chooses another) is called in a
    frame whose locals are those names with numpy values: `p x` shows x's value. Under vmap
    it stops once per example, under grad on the primal values, in a loop at each iteration.

    Parameters: `ordered` (as tf8.debug.print); `token` (returned as it is, for JAX's
    token-threading form); `backend`, `filter_frames` and `kwargs` (accepted, ignored).
    Differences from JAX: a pdb session on the calling frame only (`num_frames` other than
    None or 1 raises), not JAX's own debugger with `u`/`d` across the traced frames.

    >>> import builtins, sys, tf8, tf8.numpy as jnp
    >>> def show():
    ...     builtins.print(sorted(sys._getframe(1).f_locals.items()))
    >>> sys.breakpointhook, saved = show, sys.breakpointhook
    >>> def f(x):
    ...     y = x + 1
    ...     tf8.debug.breakpoint()
    ...     return y
    >>> _ = tf8.jit(f)(jnp.arange(2))
    [('x', array([0, 1])), ('y', array([1, 2]))]
    >>> sys.breakpointhook = saved
    """
    if num_frames not in (None, 1):
        raise ParameterError(
            "tf8.debug.breakpoint: num_frames other than 1 is not supported (tf8 opens the "
            "debugger on the calling function's frame only)"
        )
    caller = inspect.currentframe().f_back  # type: ignore[union-attr]
    names = {
        name: value
        for name, value in caller.f_locals.items()  # type: ignore[union-attr]
        if name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("__")
    }
    debug_callback(_Session(tuple(sorted(names))), (), names, ordered)
    return token


@dataclass(frozen=True)
class _Session:
    """A debugger session on named values: a generated function whose parameters are the
    names calls `sys.breakpointhook()`, so the debugger's frame has them as its locals."""

    names: tuple

    def __call__(self, **values: Any) -> None:
        params = ", ".join(self.names)
        source = f"def tf8_breakpoint({params}):\n    __tf8_sys__.breakpointhook()\n"
        namespace: dict = {"__tf8_sys__": sys}
        exec(compile(source, "<tf8.debug.breakpoint>", "exec"), namespace)  # noqa: S102
        namespace["tf8_breakpoint"](**{n: _shown(values[n]) for n in self.names})


def _shown(value: Any) -> Any:
    return np.asarray(value) if isinstance(value, TracedTensor) else value


def log(
    fmt: str | None = None,
    *args: Any,
    ordered: bool = False,
    partitioned: bool = False,
    skip_format_check: bool = False,
    **kwargs: Any,
) -> Any:
    """`print`, to the `tf8.debug` logger at level INFO instead of stdout (JAX's
    `jax.debug.log`): the same parameters, and the same run-time behaviour under jit, vmap,
    grad and the control-flow ops.

    >>> import logging, tf8, tf8.numpy as jnp
    >>> logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", force=True)
    >>> tf8.debug.log("total={}", jnp.arange(3.0).sum())  # doctest: +SKIP
    tf8.debug: total=3.0

    Differs from JAX: the logger is named `tf8.debug` (JAX's is its debugging module's).
    """
    return print(
        fmt,
        *args,
        ordered=ordered,
        partitioned=partitioned,
        skip_format_check=skip_format_check,
        _use_logging=True,
        **kwargs,
    )
