"""Test configuration: hypothesis profiles (`ci` by default, `long` for deep runs)."""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=15,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long",
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("TF8_HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def strict_indexing():
    """`tf8_strict_indexing` on for one test: out-of-bounds integer indices raise."""
    import tf8

    tf8.config.update("tf8_strict_indexing", True)
    try:
        yield
    finally:
        tf8.config.update("tf8_strict_indexing", False)
