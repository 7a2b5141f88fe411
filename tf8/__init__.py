"""tf8: a JAX-like functional tracing frontend with automatic differentiation, on numpy."""
