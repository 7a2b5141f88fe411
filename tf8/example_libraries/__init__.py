"""`tf8.example_libraries`: JAX's `jax.example_libraries` on tf8.

Two small libraries that JAX's tutorials and example programs use, ported so that a program
written against them runs on tf8 after renaming `jax` to `tf8`:

- `tf8.example_libraries.optimizers`: optimizers as `(init_fun, update_fun, get_params)`
  triples over pytrees of parameters (sgd, momentum, adam, ...), learning-rate schedules,
  gradient clipping and the (un)packing of optimizer states for serialization.
- `tf8.example_libraries.stax`: neural-network layers as `(init_fun, apply_fun)` pairs and
  the combinators that compose them (`serial`, `parallel`, ...).

>>> from tf8.example_libraries import optimizers, stax
>>> opt_init, opt_update, get_params = optimizers.sgd(0.1)
>>> init_fun, apply_fun = stax.serial(stax.Dense(2), stax.Relu)

As JAX's.
"""
