"""JAX's placement API on tf8's one device: `device_put`, `device_get`, `block_until_ready`,
`devices` and friends. tf8 runs synchronously in one process on the host, so placing is
converting to `tf8.Array`, fetching is converting to numpy, and waiting is nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tf8 import tree
from tf8.numpy import asarray
from tf8.ops.devices import CPU_DEVICE, Device
from tf8.traced import TracedTensor

__all__ = [
    "block_until_ready",
    "default_backend",
    "device_count",
    "device_get",
    "device_put",
    "devices",
    "local_device_count",
    "local_devices",
    "process_count",
    "process_index",
]


def device_put(
    x: Any, device: Any = None, *, src: Any = None, donate: Any = False, may_alias: Any = None
) -> Any:
    """Every array leaf of the pytree `x` as a `tf8.Array` (on the one CPU device).

    Args:
      x: a pytree of arrays (numpy arrays, Python scalars, tf8 Arrays).
      device: ignored beyond a check: tf8 has one device, `tf8.devices()[0]`; a sharding
        or None is accepted as JAX accepts them.
      src, donate, may_alias: accepted for JAX's signature; no effect.

    >>> import numpy as np, tf8
    >>> x = tf8.device_put(np.arange(3.0))
    >>> isinstance(x, tf8.Array), x.devices()
    (True, {CpuDevice(id=0)})

    Differs from JAX: there is nothing to transfer, so a numpy array is copied once into an
    immutable Array and an Array is returned as it is.
    """
    return tree.tree_map(_put, x)


def _put(leaf: Any) -> Any:
    if isinstance(leaf, TracedTensor):
        return leaf
    return asarray(leaf)  # Python scalars stay weakly typed, as JAX's device_put keeps them


def device_get(x: Any) -> Any:
    """Every `tf8.Array` leaf of the pytree `x` as a numpy array (other leaves unchanged).

    >>> import tf8, tf8.numpy as tnp
    >>> tf8.device_get({"w": tnp.ones(2)})
    {'w': array([1., 1.])}

    As JAX's: the numpy arrays are read-only views of the values, at no copy.
    """
    return tree.tree_map(
        lambda leaf: np.asarray(leaf) if isinstance(leaf, TracedTensor) else leaf, x
    )


def block_until_ready(x: Any) -> Any:
    """`x` itself, once every Array in it is computed (tf8 computes synchronously, so at once).

    >>> import tf8, tf8.numpy as tnp
    >>> tf8.block_until_ready((tnp.ones(2), 3))[1]
    3

    As JAX's; nothing ever waits in tf8.
    """
    for leaf in tree.tree_leaves(x):
        if isinstance(leaf, TracedTensor):
            leaf.block_until_ready()
    return x


def devices(backend: Any = None) -> list[Device]:
    """The devices tf8 computes on: `[CpuDevice(id=0)]`, for any `backend`.

    >>> import tf8
    >>> tf8.devices()
    [CpuDevice(id=0)]

    Differs from JAX: asking for a backend tf8 lacks ('gpu', 'tpu') gives the CPU, where
    JAX raises: tf8 has only the CPU, and code asking for an accelerator runs on it.
    """
    return [CPU_DEVICE]


def local_devices(process_index: Any = None, backend: Any = None, host_id: Any = None) -> list:
    """The devices of this process: `[CpuDevice(id=0)]` (see `devices`).

    >>> import tf8
    >>> tf8.local_devices()
    [CpuDevice(id=0)]

    As JAX's on its CPU backend.
    """
    return [CPU_DEVICE]


def device_count(backend: Any = None) -> int:
    """The number of devices: 1.

    >>> import tf8
    >>> tf8.device_count()
    1

    As JAX's on its CPU backend.
    """
    return 1


def local_device_count(backend: Any = None) -> int:
    """The number of devices of this process: 1.

    >>> import tf8
    >>> tf8.local_device_count()
    1

    As JAX's on its CPU backend.
    """
    return 1


def default_backend() -> str:
    """The platform tf8 computes on: 'cpu'.

    >>> import tf8
    >>> tf8.default_backend()
    'cpu'

    As JAX's on its CPU backend: tf8 has no other.
    """
    return "cpu"


def process_count(backend: Any = None) -> int:
    """The number of processes: 1 (tf8 is single-process).

    >>> import tf8
    >>> tf8.process_count()
    1

    As JAX's in a single process: tf8 has no multi-process mode.
    """
    return 1


def process_index(backend: Any = None) -> int:
    """This process's index: 0 (tf8 is single-process).

    >>> import tf8
    >>> tf8.process_index()
    0

    As JAX's in a single process: tf8 has no multi-process mode.
    """
    return 0
