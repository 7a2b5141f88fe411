"""Fixtures for the reliability tests: cache sizes set for one test and restored after."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

import tf8

SIZE_OPTIONS = ("tf8_prepare_cache_size", "tf8_jit_cache_size", "tf8_plan_cache_size")


@pytest.fixture
def cache_sizes() -> Iterator[Callable[..., None]]:
    """`cache_sizes(jit=2, prepare=1, plan=8)` sets those sizes until the test ends."""
    saved = {name: getattr(tf8.config, name) for name in SIZE_OPTIONS}

    def set_sizes(**sizes: int) -> None:
        for kind, size in sizes.items():
            tf8.config.update(f"tf8_{kind}_cache_size", size)

    yield set_sizes
    for name, value in saved.items():
        tf8.config.update(name, value)
