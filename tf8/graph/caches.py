"""Bounded caches with statistics: every cache tf8 keeps across calls is one of these.

- `LRUCache`: least-recently-used, an OrderedDict behind a lock; a hit moves the entry to
  the end. For caches whose hits are rare next to the work they save (jit's signatures, the
  runtime's prepared programs).
- `Table`: a plain dict for the per-op caches eager dispatch reads on every op (the plan of
  an op on its avals, the shared Primitive of a parameter set). Readers call `table.get`
  (the dict's own method, no Python frame); writers go through `put`, which, when the table
  is full, drops its older half (insertion order) — cheaper than LRU bookkeeping per hit.
  Its hits are not counted (that would cost the hot path); misses and evictions are.

Each cache belongs to a kind ("prepare", "jit", "plan") whose size `tf8.config` sets
(`tf8_prepare_cache_size`, `tf8_jit_cache_size`, `tf8_plan_cache_size`); `cache_info()`
sums the statistics of every live cache by kind. Mutations hold the cache's lock, so threads
sharing a cache never see it half-updated and its statistics add up.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Any

__all__ = ["LRUCache", "Table", "cache_info", "cache_size", "clear_caches", "set_cache_size"]

# kind -> maximum entries per cache of that kind (tf8.config sets them)
SIZES: dict[str, int] = {"prepare": 512, "jit": 256, "plan": 1 << 16}
_LIVE: weakref.WeakSet = weakref.WeakSet()
_MISSING = object()


def cache_size(kind: str) -> int:
    """The maximum number of entries of one cache of `kind`."""
    return SIZES[kind]


def set_cache_size(kind: str, size: int) -> None:
    """Bound every cache of `kind` (live ones shrink now, evicting their oldest entries)."""
    SIZES[kind] = size
    for cache in list(_LIVE):
        if cache.kind == kind:
            cache.shrink()


class _Counted:
    """Statistics and the lock shared by both cache kinds."""

    kind: str

    def __init__(self, kind: str, name: str) -> None:
        if kind not in SIZES:
            raise ValueError(f"unknown cache kind {kind!r}; kinds: {sorted(SIZES)}")
        self.kind = kind
        self.name = name
        self.lock = threading.RLock()
        self.hits = 0
        self.misses = 0
        self.evictions = 0
        _LIVE.add(self)

    @property
    def maxsize(self) -> int:
        return SIZES[self.kind]

    def stats(self) -> dict[str, int]:
        """hits, misses, evictions, size (entries now) and maxsize."""
        return {
            "hits": self.hits,
            "misses": self.misses,
            "evictions": self.evictions,
            "size": len(self),
            "maxsize": self.maxsize,
        }

    def __len__(self) -> int:  # pragma: no cover - subclasses
        raise NotImplementedError

    def shrink(self) -> None:  # pragma: no cover - subclasses
        raise NotImplementedError


class LRUCache(_Counted):
    """A least-recently-used cache of at most `tf8.config`'s size for its kind."""

    def __init__(self, kind: str, name: str) -> None:
        super().__init__(kind, name)
        self._data: OrderedDict[Hashable, Any] = OrderedDict()

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[Hashable]:
        return iter(list(self._data))

    def get(self, key: Hashable) -> Any:
        """The entry under `key` (counted as a hit, made most recent) or None (a miss).
        An unhashable key raises TypeError, counted as nothing."""
        with self.lock:
            value = self._data.get(key, _MISSING)
            if value is _MISSING:
                self.misses += 1
                return None
            self._data.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: Hashable, value: Any) -> Any:
        """Store `value` under `key` unless another thread got there first; the stored value."""
        with self.lock:
            present = self._data.get(key, _MISSING)
            if present is not _MISSING:
                return present
            self._data[key] = value
            self._evict(self.maxsize)
            return value

    def get_or_make(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """The entry under `key`, made by `make()` on a miss (outside the lock: a failing
        `make` leaves the cache as it was)."""
        found = self.get(key)
        if found is not None:
            return found
        return self.put(key, make())

    def shrink(self) -> None:
        with self.lock:
            self._evict(self.maxsize)

    def _evict(self, limit: int) -> None:
        data = self._data
        while len(data) > limit:
            data.popitem(last=False)
            self.evictions += 1

    def clear(self) -> None:
        with self.lock:
            self._data.clear()

    def __repr__(self) -> str:
        return f"<LRUCache {self.name}: {self.stats()}>"


class Table(dict, _Counted):
    """A dict for hot-path lookups (`table.get(key)`), bounded on insertion by `put`."""

    def __init__(self, kind: str, name: str) -> None:
        dict.__init__(self)
        _Counted.__init__(self, kind, name)

    __hash__ = object.__hash__  # a WeakSet member (dicts are otherwise unhashable)

    def put(self, key: Hashable, value: Any) -> None:
        """Store a freshly made entry (a miss); when full, drop the older half first."""
        with self.lock:
            self.misses += 1
            if len(self) >= self.maxsize:
                self._drop(len(self) - self.maxsize // 2)
            self[key] = value

    def shrink(self) -> None:
        with self.lock:
            if len(self) > self.maxsize:
                self._drop(len(self) - self.maxsize // 2)

    def _drop(self, count: int) -> None:
        for key in list(self)[: max(count, 0)]:
            self.pop(key, None)
        self.evictions += max(count, 0)

    def __repr__(self) -> str:
        return f"<Table {self.name}: {self.stats()}>"


def cache_info() -> dict[str, dict[str, int]]:
    """The statistics of every live cache: LRU caches summed by kind ("jit": every jitted
    function's, "prepare": every runtime's), tables by name ("plans", "primitives",
    "avals"). `caches` counts the caches summed; `maxsize` bounds each one of them."""
    summary: dict[str, dict[str, int]] = {}
    for cache in list(_LIVE):
        stats = cache.stats()
        label = cache.kind if isinstance(cache, LRUCache) else cache.name
        into = summary.setdefault(
            label, {"caches": 0, "hits": 0, "misses": 0, "evictions": 0, "size": 0}
        )
        into["caches"] += 1
        for field in ("hits", "misses", "evictions", "size"):
            into[field] += stats[field]
        into["maxsize"] = stats["maxsize"]
    return summary


def clear_caches() -> None:
    """Empty every cache (as `jax.clear_caches`): later calls trace, plan and prepare anew."""
    for cache in list(_LIVE):
        with cache.lock:
            cache.clear()
