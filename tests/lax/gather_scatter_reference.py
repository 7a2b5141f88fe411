"""Python-loop references for `lax.gather` and the scatters, written from JAX's documentation
of the dimension numbers (batching dimensions included) and modes, and random
configurations of dimension numbers to run them on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

COMBINE: dict[str, Callable[[Any, Any], Any]] = {
    "scatter": lambda old, new: new,
    "scatter_add": lambda old, new: old + new,
    "scatter_sub": lambda old, new: old - new,
    "scatter_mul": lambda old, new: old * new,
    "scatter_min": np.minimum,
    "scatter_max": np.maximum,
}
SCATTERS = tuple(COMBINE)


def _fields(dn: Any) -> tuple[tuple[int, ...], ...]:
    fields = tuple(tuple(f) for f in dn)
    return fields + ((),) * (5 - len(fields))


def reference_gather(
    x: np.ndarray, idx: np.ndarray, dn: Any, sizes: tuple, mode: str = "clip", fill: Any = 0
) -> np.ndarray:
    """One element at a time: out-of-bounds starts clamped (`clip`) or filled (`fill`)."""
    offset, collapsed, index_map, op_batch, idx_batch = _fields(dn)
    batch_shape = idx.shape[:-1]
    framed = [d for d in range(x.ndim) if d not in collapsed and d not in op_batch]
    out_rank = len(batch_shape) + len(offset)
    batch_axes = [a for a in range(out_rank) if a not in offset]
    out_shape = [0] * out_rank
    for a, n in zip(batch_axes, batch_shape):
        out_shape[a] = n
    for a, d in zip(offset, framed):
        out_shape[a] = sizes[d]
    out = np.empty(out_shape, x.dtype)
    for o in np.ndindex(*out_shape):
        g = tuple(o[a] for a in batch_axes)
        start = [0] * x.ndim
        for k, d in enumerate(index_map):
            start[d] = int(idx[g + (k,)])
        if mode == "fill" and not all(0 <= start[d] <= x.shape[d] - sizes[d] for d in index_map):
            out[o] = fill
            continue
        start = [min(max(s, 0), x.shape[d] - sizes[d]) for d, s in enumerate(start)]
        for a, b in zip(op_batch, idx_batch):
            start[a] = g[b]
        for a, d in zip(offset, framed):
            start[d] += o[a]
        out[o] = x[tuple(start)]
    return out


def reference_scatter(
    name: str, x: np.ndarray, idx: np.ndarray, u: np.ndarray, dn: Any, mode: str = "drop"
) -> np.ndarray:
    """One update element at a time, index positions outer and window positions inner (so
    with `scatter` the last of these wins, as XLA on CPU): windows out of bounds dropped
    (`drop`) or their starts clamped (`clip`)."""
    window_dims, inserted, index_map, op_batch, idx_batch = _fields(dn)
    framed = [d for d in range(x.ndim) if d not in inserted and d not in op_batch]
    window = [1] * x.ndim
    for d, a in zip(framed, window_dims):
        window[d] = u.shape[a]
    scatter_axes = [a for a in range(u.ndim) if a not in window_dims]
    out = x.copy()
    combine = COMBINE[name]
    with np.errstate(over="ignore", invalid="ignore"):
        for position in np.ndindex(*[u.shape[a] for a in scatter_axes + list(window_dims)]):
            ui = tuple(position[(scatter_axes + list(window_dims)).index(a)] for a in range(u.ndim))
            g = tuple(ui[a] for a in scatter_axes)
            start = [0] * x.ndim
            for k, d in enumerate(index_map):
                start[d] = int(idx[g + (k,)])
            if mode == "clip":
                start = [min(max(s, 0), x.shape[d] - window[d]) for d, s in enumerate(start)]
            elif not all(0 <= start[d] <= x.shape[d] - window[d] for d in index_map):
                continue
            for a, b in zip(op_batch, idx_batch):
                start[a] = g[b]
            for d, a in zip(framed, window_dims):
                start[d] += ui[a]
            target = tuple(start)
            out[target] = combine(out[target], u[ui])
    return out


def random_gather_config(
    rng: np.random.Generator, batching: bool = True
) -> tuple[np.ndarray, np.ndarray, tuple, tuple]:
    """(operand, indices, gather dimension numbers as a 5-tuple, slice sizes): ranks 1..3,
    some axes indexed, some collapsed, some batching pairs, offset axes anywhere; indices
    one past either end of their range now and then."""
    rank = int(rng.integers(1, 4))
    shape = tuple(int(n) for n in rng.integers(1, 5, rank))
    op_batch: tuple[int, ...] = ()
    if batching and rank > 1 and rng.random() < 0.4:
        op_batch = (int(rng.integers(rank)),)
    rest = [d for d in range(rank) if d not in op_batch]
    index_map = tuple(int(d) for d in rng.permutation(rest)[: int(rng.integers(0, len(rest) + 1))])
    sizes = [1] * rank
    for d in rest:
        sizes[d] = int(rng.integers(1, shape[d] + 1))
    collapsed = tuple(d for d in rest if sizes[d] == 1 and rng.random() < 0.6)
    batch = [int(n) for n in rng.integers(1, 4, int(rng.integers(0, 3)))]
    idx_batch: tuple[int, ...] = ()
    for a in op_batch:
        position = int(rng.integers(0, len(batch) + 1))
        batch.insert(position, shape[a])
        idx_batch = (position,)
    framed = [d for d in range(rank) if d not in collapsed and d not in op_batch]
    out_rank = len(batch) + len(framed)
    offset = tuple(sorted(int(a) for a in rng.choice(out_rank, len(framed), replace=False)))
    highs = [shape[d] - sizes[d] + 2 for d in index_map]
    columns = [rng.integers(-1, high, batch) for high in highs]
    idx = np.stack(columns, -1) if columns else np.zeros((*batch, 0), np.int64)
    x = rng.uniform(-2.0, 2.0, shape)
    return (
        x,
        idx.astype(np.int64),
        (offset, collapsed, index_map, op_batch, idx_batch),
        tuple(sizes),
    )


def random_scatter_config(
    rng: np.random.Generator, batching: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
    """(operand, indices, updates, scatter dimension numbers as a 5-tuple): the mirror image
    of a random gather (its output's shape is the updates')."""
    x, idx, dn, sizes = random_gather_config(rng, batching)
    u = rng.uniform(-2.0, 2.0, reference_gather(x, idx, dn, sizes).shape)
    return x, idx, u, dn
