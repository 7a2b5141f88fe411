"""Process-wide switches that code in any layer reads as module attributes
(`switches.strict_indexing`): `tf8.config.update` sets them (its option checks write here),
and the context managers in `tf8.modes` set them for a `with` block."""

# An integer index out of bounds raises IndexingError ("tf8_strict_indexing"); by default it
# is clamped into the axis, as JAX clamps it.
strict_indexing = False

# jit calls its function directly, op by op ("jax_disable_jit", tf8.disable_jit())
disable_jit = False
