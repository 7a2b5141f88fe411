"""tf8.scipy: scipy's names for tf8's differentiable functions (as jax.scipy).

`tf8.scipy.integrate` (odeint) is bound by `tf8/__init__.py`: it needs tf8.ad, a layer above.
"""

from tf8.scipy import fft, linalg, signal, special, stats

__all__ = ["fft", "linalg", "signal", "special", "stats"]
