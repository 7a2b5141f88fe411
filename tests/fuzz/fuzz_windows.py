"""Windowed steps of the fuzz's float programs (issue #31's primitives): along a value's last
axis, a 3-tap convolution, a sliding sum or a sliding max of width 2 ('SAME': the shape is
kept), each through `tf8.lax` as a ported JAX program would call it."""

from __future__ import annotations

from typing import Any

import numpy as np

import tf8
import tf8.numpy as tnp

lax = tf8.lax
TAPS = (0.25, 0.5, -0.125)


def _conv(x: Any) -> Any:
    shape = x.shape
    rows = tnp.reshape(x, (int(np.prod(shape[:-1])), 1, shape[-1]))  # (batch, channel, width)
    taps = tnp.asarray([[TAPS]], x.dtype)
    return tnp.reshape(lax.conv_general_dilated(rows, taps, (1,), "SAME"), shape)


def _sliding(x: Any, computation: Any, init: float) -> Any:
    window = (1,) * (x.ndim - 1) + (2,)
    strides = (1,) * x.ndim
    return lax.reduce_window(x, tnp.asarray(init, x.dtype), computation, window, strides, "SAME")


def window_step(b: Any, x: Any) -> bool:
    """Add one windowed step on value `x` to builder `b` (False: x has no room for one)."""
    if not x.shape or 0 in x.shape:
        return False
    i = x.index
    choices = ["conv", "window_sum"] if b.differentiable else ["conv", "window_sum", "window_max"]
    name = str(b.rng.choice(choices))
    if name == "conv":
        b.add(name, lambda v: _conv(v[i]), x.shape, False)
    elif name == "window_sum":
        b.add(name, lambda v: _sliding(v[i], lax.add, 0.0), x.shape, False)
    else:
        b.add(name, lambda v: _sliding(v[i], lax.max, -np.inf), x.shape, x.exact)
    return True
