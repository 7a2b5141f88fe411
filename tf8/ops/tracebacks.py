"""Tracebacks that end in the user's code, as JAX's do: where an exception leaves tf8's API
(`jit`, the transforms, control flow), tf8's own frames are taken out of its traceback, and a
note says how to see them. The frames of the user's functions that tf8 called (a function
traced by `jit`, a scan body) stay, so the last frame shown is the user's line that failed.

JAX's option `jax_traceback_filtering` (`JAX_TRACEBACK_FILTERING`) switches it: "off" keeps
every frame; "auto" (the default), "remove_frames" and "quiet_remove_frames" remove tf8's
("quiet_..." without the note). An uncaught exception raised inside tf8 elsewhere (an eager
op) is shown the same way, by `sys.excepthook` when Python's own hook is in place, and in
IPython/Jupyter by a handler for tf8's errors.
"""

from __future__ import annotations

import functools
import os
import sys
import types
from collections.abc import Callable
from typing import Any, TypeVar

from tf8.errors import Tf8Error
from tf8.ops import switches

__all__ = ["api_boundary", "hide_internal_frames", "install_excepthook"]

F = TypeVar("F", bound=Callable[..., Any])
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # .../tf8/
NOTE = (
    "tf8 removed its internal frames from this traceback; to see them set "
    "tf8.config.update('jax_traceback_filtering', 'off') or JAX_TRACEBACK_FILTERING=off"
)
MODES = ("off", "auto", "remove_frames", "quiet_remove_frames", "tracebackhide")


def _internal(tb: types.TracebackType) -> bool:
    return tb.tb_frame.f_code.co_filename.startswith(_ROOT)


def filtered(tb: types.TracebackType | None) -> types.TracebackType | None:
    """`tb` without tf8's frames."""
    kept = []
    while tb is not None:
        if not _internal(tb):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def hide_internal_frames(exc: BaseException) -> None:
    """Take tf8's frames out of `exc`'s traceback (and say so once), unless the option is off
    or no tf8 frame is in it. Called in an `except` block followed by a bare `raise`, which
    re-raises without adding the catching frame."""
    mode = switches.traceback_filtering
    tb = exc.__traceback__
    if mode == "off" or tb is None:
        return
    probe = tb
    while probe is not None and not _internal(probe):
        probe = probe.tb_next
    if probe is None:
        return
    exc.with_traceback(filtered(tb))
    if mode != "quiet_remove_frames" and NOTE not in getattr(exc, "__notes__", ()):
        exc.add_note(NOTE)


def api_boundary(fun: F) -> F:
    """`fun` as an entry point of tf8's API: an exception leaving it loses tf8's frames."""

    @functools.wraps(fun)
    def boundary(*args: Any, **kwargs: Any) -> Any:
        try:
            return fun(*args, **kwargs)
        except Exception as exc:
            hide_internal_frames(exc)
            raise

    return boundary  # type: ignore[return-value]


def _excepthook(kind: type, exc: BaseException, tb: types.TracebackType | None) -> None:
    if isinstance(exc, Exception):
        hide_internal_frames(exc)
        tb = exc.__traceback__
    sys.__excepthook__(kind, exc, tb)


def _ipython_handler(shell: Any, kind: type, exc: BaseException, tb: Any, tb_offset=None) -> Any:
    hide_internal_frames(exc)
    return shell.showtraceback((kind, exc, exc.__traceback__), tb_offset=tb_offset)


def install_excepthook() -> None:
    """Show uncaught exceptions without tf8's frames: through `sys.excepthook` when Python's
    own hook is in place (a hook someone else installed is left alone), and in IPython or
    Jupyter, where that hook is not used, for tf8's own errors (`tf8.errors.Tf8Error`)."""
    if sys.excepthook is sys.__excepthook__:
        sys.excepthook = _excepthook
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    if shell is not None and hasattr(shell, "set_custom_exc"):
        shell.set_custom_exc((Tf8Error,), _ipython_handler)
