"""Where values live: one CPU device, as JAX's CPU backend shows it to a single process.

tf8 runs in one process on the host's memory, so every array is on `CPU_DEVICE` and its
sharding is that device's. The names exist so that ported code which asks (`x.devices()`,
`x.sharding`, `tf8.devices()`) gets JAX's answers.
"""

from __future__ import annotations

from typing import Any


class Device:
    """A device arrays live on; tf8 has one, the CPU (`tf8.devices()[0]`).

    >>> import tf8
    >>> tf8.devices()
    [CpuDevice(id=0)]
    >>> tf8.devices()[0].platform
    'cpu'

    As JAX's `jax.Device` on the CPU backend; tf8 has no accelerators.
    """

    __slots__ = ()
    id = 0
    platform = "cpu"
    device_kind = "cpu"
    process_index = 0
    host_id = 0
    client = None

    def __repr__(self) -> str:
        return "CpuDevice(id=0)"

    def __str__(self) -> str:
        return "TFRT_CPU_0"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device)

    def __hash__(self) -> int:
        return hash("tf8-cpu-0")

    def __reduce__(self) -> tuple:
        return (Device, ())


CPU_DEVICE = Device()


class SingleDeviceSharding:
    """The sharding of every tf8 array: all of it on one device.

    >>> import tf8, tf8.numpy as tnp
    >>> tnp.ones(3).sharding
    SingleDeviceSharding(device=CpuDevice(id=0))

    As JAX's `jax.sharding.SingleDeviceSharding`; tf8 has no other kind.
    """

    __slots__ = ("_device",)

    def __init__(self, device: Device = CPU_DEVICE, *, memory_kind: Any = None) -> None:
        self._device = device

    @property
    def device_set(self) -> set[Device]:
        return {self._device}

    @property
    def memory_kind(self) -> str:
        return "unpinned_host"

    @property
    def is_fully_addressable(self) -> bool:
        return True

    @property
    def is_fully_replicated(self) -> bool:
        return True

    @property
    def num_devices(self) -> int:
        return 1

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self._device!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SingleDeviceSharding) and other._device == self._device

    def __hash__(self) -> int:
        return hash(("SingleDeviceSharding", self._device))


CPU_SHARDING = SingleDeviceSharding()


class OnCpu:
    """JAX's `jax.Array` methods about placement, for tf8's array type: every value is on
    the one CPU device, computed synchronously (so always ready)."""

    __slots__ = ()

    def block_until_ready(self) -> Any:
        """The value itself, computed: tf8 runs synchronously, so it is ready on return."""
        if not self._unbound:
            self._concrete("block_until_ready")
        return self

    def devices(self) -> set[Device]:
        """The devices the value lives on: `{CpuDevice(id=0)}`."""
        return {CPU_DEVICE}

    @property
    def device(self) -> Device:
        """The device the value lives on: `CpuDevice(id=0)`."""
        return CPU_DEVICE

    @property
    def sharding(self) -> SingleDeviceSharding:
        """All of the value on the one CPU device."""
        return CPU_SHARDING

    is_fully_addressable = True
    is_fully_replicated = True
    committed = False
    weak_type = property(lambda self: self._weak, doc="True when the value is weakly typed.")

    def is_deleted(self) -> bool:
        return False

    def copy_to_host_async(self) -> None:
        """Nothing to do: the value is in host memory."""

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> Any:
        return self.size * self.dtype.itemsize
