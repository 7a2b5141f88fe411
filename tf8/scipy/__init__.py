"""tf8.scipy: scipy's names for tf8's differentiable functions (as jax.scipy)."""

from tf8.scipy import linalg

__all__ = ["linalg"]
