"""The corpus file: every array of every case flattened into one buffer per dtype (a few
entries in one compressed npz, not one per array), and the JSON index of the cases, where an
array is [dtype, shape, offset]."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Packer", "load"]


class Packer:
    """Collects arrays into per-dtype buffers (record.py)."""

    def __init__(self) -> None:
        self.buffers: dict[str, list[np.ndarray]] = {}
        self.sizes: dict[str, int] = {}

    def put(self, array: np.ndarray) -> list:
        key = array.dtype.str
        offset = self.sizes.get(key, 0)
        self.buffers.setdefault(key, []).append(array.reshape(-1))
        self.sizes[key] = offset + array.size
        return [key, list(array.shape), offset]

    def save(self, path: Path, index: list) -> None:
        data = {f"buffer{k}": np.concatenate(v) for k, v in self.buffers.items()}
        np.savez_compressed(path, index=np.array(json.dumps(index)), **data)


class Corpus:
    """The recorded cases (`index`) and `array(ref)` for an array reference."""

    def __init__(self, path: Path) -> None:
        with np.load(path) as found:
            self.index: list[dict[str, Any]] = json.loads(str(found["index"]))
            self.buffers = {k[len("buffer") :]: found[k] for k in found.files if k != "index"}

    def array(self, ref: list) -> np.ndarray:
        key, shape, offset = ref
        size = int(np.prod(shape, dtype=np.int64))
        return self.buffers[key][offset : offset + size].reshape(shape).copy()


def load(path: Path) -> Corpus:
    return Corpus(path)
