"""tf8.experimental: JAX's experimental names (`tf8.experimental.ode.odeint`,
`tf8.experimental.io_callback`)."""

from tf8.experimental import ode
from tf8.lax.callback import io_callback

__all__ = ["io_callback", "ode"]
