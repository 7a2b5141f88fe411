"""The einsum family's numpy kernel, keyed by op class: `kernel(op, *arrays)`.

Along the path chosen at trace time, each pairwise step runs on BLAS (matmul) when it is
a plain contraction; with symbolic shapes (no path) numpy chooses the order at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .einsum import Einsum


def einsum_kernel(op: Einsum, *arrays: np.ndarray) -> np.ndarray:
    inputs, output, path = op.payload
    if path is None:  # symbolic shapes: numpy chooses the order at run time
        return np.asarray(np.einsum(op.subscripts, *arrays, optimize="greedy"))
    return contract_along_path(inputs, output, path, arrays)


def contract_along_path(
    inputs: Sequence[str], output: str, path: Sequence[Any], arrays: Sequence[np.ndarray]
) -> np.ndarray:
    """Run an einsum along its precomputed path, each pairwise step on BLAS (matmul)
    when it is a plain contraction (no batch letters), np.einsum otherwise.

    A small np.einsum call costs ~25 µs of parsing even with a path; a contraction is a matmul.
    The path follows numpy's convention: each step's operands are removed and the result is
    appended to the end of the operand list.
    """
    subs, operands = list(inputs), list(arrays)
    for step in path:
        if not isinstance(step, tuple):
            continue  # the leading 'einsum_path' tag
        picked = sorted(step)
        pairs = [(subs[i], operands[i]) for i in picked]
        for i in reversed(picked):
            del subs[i], operands[i]
        keep = set("".join(subs)) | set(output)
        letters, result = _contract_step(pairs, keep)
        subs.append(letters)
        operands.append(result)
    (letters,), (result,) = subs, operands
    if letters != output:
        result = np.einsum(f"{letters}->{output}", result)
    return np.asarray(result)


def _contract_step(pairs: list[tuple[str, np.ndarray]], keep: set[str]) -> tuple[str, Any]:
    if len(pairs) == 2:
        (sa, a), (sb, b) = pairs
        shared = set(sa) & set(sb)
        contracted = [letter for letter in sa if letter in shared and letter not in keep]
        plain = (
            len(set(sa)) == len(sa)
            and len(set(sb)) == len(sb)
            and all(letter in keep for letter in shared if letter not in contracted)
            and not (shared & keep)
            and all(letter in keep or letter in shared for letter in sa + sb)
        )
        if plain:
            axes = ([sa.index(c) for c in contracted], [sb.index(c) for c in contracted])
            letters = "".join(c for c in sa + sb if c not in contracted)
            return letters, _tensordot(a, b, *axes)
    letters = "".join(dict.fromkeys(c for s, _ in pairs for c in s if c in keep))
    spec = ",".join(s for s, _ in pairs) + "->" + letters
    return letters, np.einsum(spec, *[x for _, x in pairs])


def _tensordot(a: np.ndarray, b: np.ndarray, axes_a: list[int], axes_b: list[int]) -> Any:
    """`np.tensordot(a, b, (axes_a, axes_b))` as one `matmul` of the operands' free axes by
    their contracted ones. Not np.dot, as np.tensordot: its BLAS call skips a zero factor
    when a matrix-vector product contracts one element, so inf * 0 gave 0, not NaN (IEEE,
    and np.einsum, np.matmul, dot_general and the Dask engine). The matrices are made
    contiguous: matmul calls BLAS on those alone, so the sums' order never depends on the
    operands' strides (a broadcast operand in one tier, a materialised one in another)."""
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    shape = [a.shape[i] for i in free_a] + [b.shape[i] for i in free_b]
    k = int(np.prod([a.shape[i] for i in axes_a]))
    lhs = a.transpose(free_a + axes_a).reshape(int(np.prod(shape[: len(free_a)])), k)
    rhs = b.transpose(axes_b + free_b).reshape(k, int(np.prod(shape[len(free_a) :])))
    return np.matmul(np.ascontiguousarray(lhs), np.ascontiguousarray(rhs)).reshape(shape)


KERNELS: dict[type, Callable[..., Any]] = {Einsum: einsum_kernel}
