"""The learning-rate schedules and gradient utilities of
`tf8.example_libraries.optimizers`."""

from __future__ import annotations

from typing import Any

import tf8.numpy as tnp
from tf8 import tree
from tf8.errors import ParameterError
from tf8.example_libraries._optimizer_core import Schedule, Step


def constant(step_size: float) -> Schedule:
    """The schedule `i -> step_size`.

    >>> from tf8.example_libraries import optimizers
    >>> optimizers.constant(0.5)(10)
    0.5

    As JAX's.
    """
    return lambda i: step_size


def exponential_decay(step_size: float, decay_steps: float, decay_rate: float) -> Schedule:
    """The schedule `i -> step_size * decay_rate ** (i / decay_steps)`.

    >>> from tf8.example_libraries import optimizers
    >>> optimizers.exponential_decay(1.0, 2, 0.5)(4)
    0.25

    As JAX's.
    """
    return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(
    step_size: float, decay_steps: float, decay_rate: float, staircase: bool = False
) -> Schedule:
    """The schedule `i -> step_size / (1 + decay_rate * i / decay_steps)`; with `staircase`,
    `i / decay_steps` is rounded down.

    >>> from tf8.example_libraries import optimizers
    >>> optimizers.inverse_time_decay(1.0, 2, 1.0)(3)
    0.4
    >>> print(optimizers.inverse_time_decay(1.0, 2, 1.0, staircase=True)(3))
    0.5

    As JAX's.
    """
    if staircase:
        return lambda i: step_size / (1 + decay_rate * tnp.floor(i / decay_steps))
    return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(
    step_size: float, decay_steps: float, final_step_size: float, power: float = 1.0
) -> Schedule:
    """The schedule from `step_size` at step 0 to `final_step_size` at `decay_steps` (and
    after), along `(1 - i / decay_steps) ** power`.

    >>> from tf8.example_libraries import optimizers
    >>> schedule = optimizers.polynomial_decay(1.0, 4, 0.5)
    >>> print(schedule(2), schedule(10))
    0.75 0.5

    As JAX's.
    """

    def schedule(step_num: Step) -> Any:
        step_num = tnp.minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size

    return schedule


def piecewise_constant(boundaries: Any, values: Any) -> Schedule:
    """The schedule `i -> values[k]`, `k` the number of boundaries below `i`: `values[0]` up
    to `boundaries[0]` included, `values[1]` up to `boundaries[1]`, ...

    Parameters: `boundaries`, a sequence of steps; `values`, a sequence one longer.

    >>> from tf8.example_libraries import optimizers
    >>> schedule = optimizers.piecewise_constant([2, 5], [1.0, 0.5, 0.1])
    >>> print(schedule(2), schedule(3), schedule(6))
    1.0 0.5 0.1

    Differs from JAX: bad sequences raise tf8.errors.ParameterError (a ValueError, as JAX's
    ValueError).
    """
    boundaries, values = tnp.array(boundaries), tnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ParameterError(
            "piecewise_constant: boundaries and values must be 1-d sequences, got shapes "
            f"{boundaries.shape} and {values.shape}"
        )
    if boundaries.shape[0] != values.shape[0] - 1:
        raise ParameterError(
            "piecewise_constant: values must be one longer than boundaries, got "
            f"{values.shape[0]} values for {boundaries.shape[0]} boundaries"
        )
    return lambda i: values[tnp.sum(i > boundaries)]


def make_schedule(scalar_or_schedule: float | Schedule) -> Schedule:
    """A schedule from a schedule (returned as it is) or a scalar (`constant(scalar)`).

    >>> from tf8.example_libraries import optimizers
    >>> optimizers.make_schedule(0.1)(7)
    0.1

    Differs from JAX: anything else (an array of rank > 0, ...) raises
    tf8.errors.ParameterError (a ValueError; JAX raises a TypeError naming the type).
    """
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if tnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise ParameterError(
        "make_schedule: expected a scalar step size or a schedule (a function of the step), "
        f"got a {type(scalar_or_schedule).__name__} of shape {tnp.shape(scalar_or_schedule)}"
    )


def l2_norm(tree_of_arrays: Any) -> Any:
    """The l2 norm of a pytree of arrays: the square root of the sum of squares of all leaves.

    >>> import tf8.numpy as tnp
    >>> from tf8.example_libraries import optimizers
    >>> print(optimizers.l2_norm({"a": tnp.array([3.0]), "b": 4.0}))
    5.0

    As JAX's.
    """
    leaves = tree.leaves(tree_of_arrays)
    return tnp.sqrt(sum(tnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree: Any, max_norm: float) -> Any:
    """`grad_tree` scaled by `max_norm / l2_norm(grad_tree)` where its norm reaches
    `max_norm`, unchanged below it.

    >>> import tf8.numpy as tnp
    >>> from tf8.example_libraries import optimizers
    >>> print(optimizers.clip_grads({"g": tnp.array([3.0, 4.0])}, 1.0)["g"])
    [0.6 0.8]

    As JAX's.
    """
    norm = l2_norm(grad_tree)
    return tree.map(lambda g: tnp.where(norm < max_norm, g, g * (max_norm / norm)), grad_tree)
