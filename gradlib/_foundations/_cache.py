"""A small thread-safe LRU cache for compiled TensorFlow functions (bounded: the app is long-lived)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Hashable, TypeVar

__all__ = ["T", "HashedKey", "LRUCache"]

T = TypeVar("T")
_MISSING = object()


class HashedKey(tuple):
    """A cache key (a tuple) that hashes its items once: a callable problem's key holds the fingerprint of what the
    callable reads (nested tuples), and a warm call looks it up in five caches, three times in each (``get``'s
    ``in``, ``move_to_end`` and item), so hashing it anew every time cost several us of the call. It equals, and hashes
    as, the plain tuple of its items.

    >>> key = HashedKey(("callable", (2,), "float32"))
    >>> key == ("callable", (2,), "float32") and hash(key) == hash(("callable", (2,), "float32"))
    True
    """

    def __new__(cls, items) -> "HashedKey":
        key = super().__new__(cls, items)
        key._hash = tuple.__hash__(key)
        return key

    def __hash__(self) -> int:
        return self._hash


class LRUCache:
    """At most ``maxsize`` entries; the least recently used one is dropped first.

    >>> cache = LRUCache(2)
    >>> [cache.get_or_create(k, lambda: k * 10) for k in (1, 2, 1, 3)]
    [10, 20, 10, 30]
    >>> cache.keys()
    [1, 3]
    """

    def __init__(self, maxsize: int):
        self.maxsize = maxsize
        self._data: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get_or_create(self, key: Hashable, create: Callable[[], T]) -> T:
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                self.hits += 1
                return self._data[key]  # type: ignore[return-value]
            self.misses += 1
        value = create()
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)
        return value

    def get(self, key: Hashable, default: object = None) -> object:
        """The value kept for ``key`` (now the most recently used), or ``default``; counts no hit or miss."""
        with self._lock:
            value = self._data.get(key, _MISSING)
            if value is _MISSING:
                return default
            self._data.move_to_end(key)
            return value

    def put(self, key: Hashable, value: object) -> None:
        """Keep ``value`` for ``key`` (replacing any), dropping the least recently used entries beyond ``maxsize``."""
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)

    def keys(self) -> list[Hashable]:
        with self._lock:
            return list(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
