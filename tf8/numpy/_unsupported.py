"""numpy functions tf8 cannot express, each raising UnsupportedOperationError with the reason.

They exist (rather than being missing) so that `tnp.putmask(x, ...)` and `np.putmask(t, ...)`
both say *why*.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from tf8.errors import UnsupportedOperationError

_IN_PLACE = "it writes in place and traced values are immutable (use x.at[i].set(v))"

REASONS: dict[str, str] = {
    "putmask": _IN_PLACE,
    "copyto": _IN_PLACE,
}


def _raiser(name: str, reason: str) -> Callable[..., NoReturn]:
    def fn(*args: Any, **kwargs: Any) -> NoReturn:
        raise UnsupportedOperationError(f"numpy.{name} is not supported by tf8: {reason}")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Not supported: {reason}."
    return fn


UNSUPPORTED: dict[str, Callable[..., NoReturn]] = {
    name: _raiser(name, reason) for name, reason in REASONS.items()
}
