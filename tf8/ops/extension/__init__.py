"""Extension ops: operation families outside the core catalog (einsum, linalg, fft, ...)."""

from .base import ExtensionOp

__all__ = ["ExtensionOp"]
