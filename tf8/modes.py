"""JAX's context managers that change how code runs for a block: `disable_jit`,
`ensure_compile_time_eval` and `default_matmul_precision`."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

from tf8 import config
from tf8.errors import ParameterError
from tf8.ops import switches
from tf8.ops.frames import current, frame_var
from tf8.ops.names import scope_var

__all__ = [
    "default_matmul_precision",
    "disable_jit",
    "ensure_compile_time_eval",
    "named_call",
    "named_scope",
    "no_tracing",
    "print_environment_info",
]


@contextlib.contextmanager
def disable_jit(disable: bool = True) -> Iterator[None]:
    """Within the block, `jit`-decorated functions run op by op, for debugging (`print`
    and Python control flow on values work inside them).

    Args:
      disable: False turns jit back on within an outer `disable_jit()` block.

    >>> import tf8, numpy as np
    >>> f = tf8.jit(lambda x: type(x).__name__)
    >>> with tf8.disable_jit():
    ...     f(np.ones(2))
    'ndarray'

    As JAX's (`tf8.config.update("jax_disable_jit", True)` sets it for the process).
    Control-flow ops (`lax.scan`, `cond`, ...) still trace their bodies, as JAX's do.
    """
    before = switches.disable_jit
    config.update("jax_disable_jit", bool(disable))
    try:
        yield
    finally:
        config.update("jax_disable_jit", before)


@contextlib.contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """Within the block, ops on concrete values compute at once even while `jit` traces,
    so their results are concrete (Python control flow on them works).

    >>> import tf8, tf8.numpy as tnp, numpy as np
    >>> @tf8.jit
    ... def f(x):
    ...     with tf8.ensure_compile_time_eval():
    ...         n = int(tnp.sum(tnp.arange(4)))  # concrete: computed while tracing
    ...     return x * n
    >>> f(np.ones(2))
    Array([6., 6.], dtype=float64)

    As JAX's. Under a transform that differentiates (`grad` and friends), ops are still
    recorded, so derivatives stay right; values that depend on `jit`'s arguments stay traced.
    """
    frame = current()
    if frame.levels or frame.tapes or frame.hidden:  # something differentiates: record
        yield
        return
    token = frame_var.set(None)  # outside every transform for the block
    try:
        yield
    finally:
        frame_var.reset(token)


_PRECISIONS = frozenset(
    ["bfloat16", "tensorfloat32", "float32", "highest", "default", "high", "fastest"]
    + ["ANY_F8_ANY_F8_F32", "F16_F16_F32", "BF16_BF16_F32", "TF32_TF32_F32", "F32_F32_F32"]
    + ["F64_F64_F64", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9"]
)


@contextlib.contextmanager
def default_matmul_precision(precision: str) -> Iterator[None]:
    """Within the block, JAX computes matmuls and convolutions at `precision` on
    accelerators; tf8's CPU kernels always compute at the arrays' own precision.

    Args:
      precision: one of JAX's names ("bfloat16", "tensorfloat32", "float32", "highest",
        "default", "high", "fastest", or a `DotAlgorithmPreset` name).

    >>> import tf8, tf8.numpy as tnp
    >>> with tf8.default_matmul_precision("float32"):
    ...     tnp.ones((2, 2)) @ tnp.ones(2)
    Array([2., 2.], dtype=float64)

    As JAX's on its CPU backend, where the setting changes nothing either.
    """
    if precision not in _PRECISIONS:
        raise ParameterError(
            f"default_matmul_precision: unknown precision {precision!r} "
            f"(one of {sorted(p for p in _PRECISIONS if p.islower())})"
        )
    yield


@contextlib.contextmanager
def no_tracing(value: bool = True) -> Iterator[None]:
    """Within the block, a `jit` call that would trace (a new signature, or a new function)
    raises `TracingError` instead: for checking that a loop reuses its compiled programs.

    >>> import tf8, numpy as np
    >>> f = tf8.jit(lambda x: x * 2.0)
    >>> _ = f(np.ones(2))  # traced here
    >>> with tf8.no_tracing():
    ...     f(np.ones(2))  # cached: runs
    Array([2., 2.], dtype=float64)

    As JAX's context manager of that name (the `jax_no_tracing` option).
    """
    before = switches.no_tracing
    switches.no_tracing = bool(value)
    try:
        yield
    finally:
        switches.no_tracing = before


def print_environment_info(return_string: bool = False) -> str | None:
    """The versions of tf8, Python, numpy, scipy and the optional engines, the platform and
    tf8's settings: what to include in a bug report.

    Args:
      return_string: return the text instead of printing it.

    >>> import tf8
    >>> "tf8:" in tf8.print_environment_info(return_string=True)
    True

    As JAX's, with tf8's packages and settings in place of jaxlib's and the devices'.
    """
    import importlib.metadata
    import platform
    import sys

    def version(name: str) -> str:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    lines = [f"tf8:    {version('tf8')}"]
    lines += [f"{name + ':':7} {version(name)}" for name in ("numpy", "scipy", "numba", "dask")]
    lines.append(f"python: {sys.version.split()[0]}")
    lines.append(f"platform: {platform.platform()}")
    lines.append(f"settings: {config.config!r}")
    text = "\n".join(lines)
    if return_string:
        return text
    print(text)
    return None


@contextlib.contextmanager
def named_scope(name: str) -> Iterator[None]:
    """Name the operations traced within the block: `CompiledGraph.pretty()` (and
    `make_jaxpr`'s text) shows each op's scope, nested scopes joined by "/".

    Args:
      name: the scope's name.

    >>> import tf8, tf8.numpy as tnp
    >>> def f(x):
    ...     with tf8.named_scope("layer1"):
    ...         return tnp.sin(x) * 2.0
    >>> print(tf8.make_jaxpr(f)(1.0))  # doctest: +ELLIPSIS
    CompiledGraph: ...
      %1 = sin(%0)  : float64()  # layer1
    ...

    As JAX's. Names are metadata: an op equal to one recorded earlier outside the scope keeps
    that one's (missing) name, and eager ops (outside `jit`) are named nowhere.
    """
    if not isinstance(name, str):
        raise ParameterError(f"named_scope: name must be a str, got {type(name).__name__}")
    outer = scope_var.get()
    token = scope_var.set(f"{outer}/{name}" if outer else name)
    try:
        yield
    finally:
        scope_var.reset(token)


def named_call(fun: Callable[..., Any], *, name: str | None = None) -> Callable[..., Any]:
    """`fun`, with the operations it traces named `name` (default: its `__name__`), as
    `named_scope` names a block.

    Args:
      fun: the function.
      name: the scope's name.

    >>> import tf8, tf8.numpy as tnp
    >>> double = tf8.named_call(lambda x: x * 2.0, name="double")
    >>> "# double" in str(tf8.make_jaxpr(double)(1.0))
    True

    As JAX's.
    """
    scope = name if name is not None else getattr(fun, "__name__", type(fun).__name__)

    @functools.wraps(fun)
    def named(*args: Any, **kwargs: Any) -> Any:
        with named_scope(scope):
            return fun(*args, **kwargs)

    return named
