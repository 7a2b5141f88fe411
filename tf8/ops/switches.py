"""Process-wide switches that code in any layer reads as module attributes
(`switches.strict_indexing`): `tf8.config.update` sets them (its option checks write here),
and the context managers in `tf8.modes` set them for a `with` block."""

# An integer index out of bounds raises IndexingError ("tf8_strict_indexing"); by default it
# is clamped into the axis, as JAX clamps it.
strict_indexing = False

# jit calls its function directly, op by op ("jax_disable_jit", tf8.disable_jit())
disable_jit = False

# jit refuses to trace ("jax_no_tracing", tf8.no_tracing())
no_tracing = False

# 64-bit dtypes are on, as JAX's "jax_enable_x64" (tf8's default; JAX's is off). Set it only
# through tf8.config.update, which swaps tf8.ops.dtypes' tables and clears tf8's caches.
enable_x64 = True

# tf8's frames leave the tracebacks of exceptions raised through its API ("jax_traceback_
# filtering", JAX's option: "off" keeps them; see tf8.ops.tracebacks)
traceback_filtering = "auto"
