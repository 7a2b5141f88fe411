"""tf8.experimental: JAX's experimental names (`tf8.experimental.ode.odeint`)."""

from tf8.experimental import ode

__all__ = ["ode"]
