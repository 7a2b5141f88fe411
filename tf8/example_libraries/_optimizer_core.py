"""The machinery of `tf8.example_libraries.optimizers`: the optimizer state, the `optimizer`
decorator that lifts per-array optimizers to pytrees, and the (un)packing of states."""

from __future__ import annotations

import functools
from collections import namedtuple
from collections.abc import Callable
from typing import Any, NamedTuple

from tf8 import tree
from tf8.errors import TreeStructureError

_PUBLIC = "tf8.example_libraries.optimizers"  # where users (and pickle) find the classes

OptimizerState = namedtuple(
    "OptimizerState", ["packed_state", "tree_def", "subtree_defs"], module=_PUBLIC
)
OptimizerState.__doc__ = """An optimizer's state: `packed_state` (a list with, for each
parameter leaf, the list of leaves of its state), `tree_def` (the parameters' tree def) and
`subtree_defs` (the tree def of each leaf's state). A pytree node whose only child is
`packed_state`; the tree defs are its aux data. As JAX's.

>>> from tf8.example_libraries import optimizers
>>> state = optimizers.sgd(0.1)[0]({"a": 1.0, "b": 2.0})
>>> state.packed_state, state.tree_def
([[1.0], [2.0]], PyTreeDef({'a': *, 'b': *}))
"""
tree.register_pytree_node(
    OptimizerState,
    lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], aux[0], aux[1]),
)

Array = Any
Params = Any  # a pytree of arrays
State = Any  # one parameter leaf's state, a pytree
Updates = Params  # gradients: a pytree shaped as the parameters
Step = int
InitFn = Callable[[Params], OptimizerState]
UpdateFn = Callable[[Step, Updates, OptimizerState], OptimizerState]
ParamsFn = Callable[[OptimizerState], Params]
Schedule = Callable[[Step], float]


class Optimizer(NamedTuple):
    """The `(init_fn, update_fn, params_fn)` triple an optimizer constructor returns. As JAX's.

    >>> from tf8.example_libraries import optimizers
    >>> opt = optimizers.sgd(0.5)
    >>> print(opt.params_fn(opt.update_fn(0, 2.0, opt.init_fn(1.0))))
    0.0
    """

    init_fn: InitFn
    update_fn: UpdateFn
    params_fn: ParamsFn


def _flatten_all(states: list[Any]) -> tuple[list[list[Any]], list[Any]]:
    pairs = [tree.flatten(state) for state in states]
    return [leaves for leaves, _ in pairs], [treedef for _, treedef in pairs]


def optimizer(opt_maker: Callable[..., Any]) -> Callable[..., Optimizer]:
    """Decorator: turns `opt_maker`, whose `(init, update, get_params)` work on one array,
    into a constructor of an `Optimizer` that works on pytrees of arrays (each leaf gets its
    own state; the whole is an `OptimizerState`).

    Parameters: `opt_maker(*args, **kwargs)` returns `init(x0) -> state`,
    `update(i, g, state) -> state` and `get_params(state) -> x` for single arrays.

    >>> from tf8.example_libraries import optimizers
    >>> @optimizers.optimizer
    ... def halve():
    ...     return (lambda x: x), (lambda i, g, x: x / 2), (lambda x: x)
    >>> init, update, get = halve()
    >>> get(update(0, [0.0, 0.0], init([4.0, 8.0])))
    [2.0, 4.0]

    Differs from JAX: a gradient tree of another structure than the parameters, or an
    `update` whose state changes structure, raises tf8.errors.TreeStructureError (a
    ValueError; JAX raises TypeError).
    """

    @functools.wraps(opt_maker)
    def tree_opt_maker(*args: Any, **kwargs: Any) -> Optimizer:
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree: Params) -> OptimizerState:
            x0_flat, treedef = tree.flatten(x0_tree)
            states_flat, subtrees = _flatten_all([init(x0) for x0 in x0_flat])
            return OptimizerState(states_flat, treedef, subtrees)

        @functools.wraps(update)
        def tree_update(i: Step, grad_tree: Updates, opt_state: OptimizerState) -> OptimizerState:
            states_flat, treedef, subtrees = opt_state
            grad_flat, grad_treedef = tree.flatten(grad_tree)
            if grad_treedef != treedef:
                raise TreeStructureError(
                    "optimizer update: the gradient tree's structure differs from that of the "
                    f"parameters the state was made from: parameters {treedef}, gradients "
                    f"{grad_treedef}"
                )
            states = [tree.unflatten(s, leaves) for s, leaves in zip(subtrees, states_flat)]
            new_states = [update(i, g, state) for g, state in zip(grad_flat, states)]
            new_flat, new_subtrees = _flatten_all(new_states)
            for before, after in zip(subtrees, new_subtrees):
                if before != after:
                    raise TreeStructureError(
                        "optimizer update: the per-leaf update returned a state of another "
                        f"structure than it was given: input {before}, output {after}"
                    )
            return OptimizerState(new_flat, treedef, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state: OptimizerState) -> Params:
            states_flat, treedef, subtrees = opt_state
            states = [tree.unflatten(s, leaves) for s, leaves in zip(subtrees, states_flat)]
            return tree.unflatten(treedef, [get_params(state) for state in states])

        return Optimizer(tree_init, tree_update, tree_get_params)

    return tree_opt_maker


class JoinPoint:
    """A pytree leaf that holds a whole pytree (`subtree`): the mark `unpack_optimizer_state`
    puts at each parameter leaf. Iterating it yields `subtree`.

    >>> from tf8.example_libraries import optimizers
    >>> list(optimizers.JoinPoint((1, 2)))
    [(1, 2)]

    As JAX's.
    """

    def __init__(self, subtree: Any) -> None:
        self.subtree = subtree

    def __iter__(self) -> Any:
        yield self.subtree

    def __repr__(self) -> str:
        return f"JoinPoint({self.subtree!r})"


JoinPoint.__module__ = Optimizer.__module__ = _PUBLIC


def unpack_optimizer_state(opt_state: OptimizerState) -> Any:
    """An `OptimizerState` as a plain pytree shaped as the parameters, whose leaves are
    `JoinPoint`s holding each leaf's state: a form to serialize (pickle) and restore with
    `pack_optimizer_state`.

    >>> from tf8.example_libraries import optimizers
    >>> state = optimizers.momentum(0.1, 0.9)[0]({"w": 1.0})
    >>> optimizers.unpack_optimizer_state(state)
    {'w': JoinPoint((1.0, Array(0., dtype=float64, weak_type=True)))}

    As JAX's (JoinPoint has a repr here).
    """
    states_flat, treedef, subtree_defs = opt_state
    subtrees = [tree.unflatten(s, leaves) for s, leaves in zip(subtree_defs, states_flat)]
    return tree.unflatten(treedef, [JoinPoint(subtree) for subtree in subtrees])


def pack_optimizer_state(marked_pytree: Any) -> OptimizerState:
    """The `OptimizerState` that `unpack_optimizer_state` turned into `marked_pytree`.

    >>> from tf8.example_libraries import optimizers
    >>> state = optimizers.adam(0.1)[0]([1.0, 2.0])
    >>> back = optimizers.pack_optimizer_state(optimizers.unpack_optimizer_state(state))
    >>> back.tree_def == state.tree_def and back.subtree_defs == state.subtree_defs
    True

    Differs from JAX: a leaf that is not a JoinPoint raises tf8.errors.TreeStructureError
    (JAX fails an assert).
    """
    sentinels, treedef = tree.flatten(marked_pytree)
    for sentinel in sentinels:
        if not isinstance(sentinel, JoinPoint):
            raise TreeStructureError(
                "pack_optimizer_state: every leaf of the marked pytree must be a JoinPoint "
                f"(as unpack_optimizer_state makes them), got a {type(sentinel).__name__}"
            )
    states_flat, subtree_defs = _flatten_all([s.subtree for s in sentinels])
    return OptimizerState(states_flat, treedef, subtree_defs)
