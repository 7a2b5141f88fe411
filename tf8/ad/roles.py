"""What the outputs of `grad` and `value_and_grad` are, for the programs jit shows.

A transformed function carries `output_roles(path, argument)`: given one output leaf's key
path (tf8.tree_util) and `argument(i)`, the name of the function's positional argument `i`
(`params`), it says what that leaf is: `value`, `aux['acc']`, `grad[params['W']]`. jit
(tf8.jit_names) names a program's outputs with it; it is display only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tf8.tree_util import keystr

__all__ = ["grad_output_roles"]

Roles = Callable[[tuple[Any, ...], Callable[[int], str]], str]


def grad_output_roles(nums: Sequence[int], single: bool, has_aux: bool, with_value: bool) -> Roles:
    """The roles of the outputs of `value_and_grad` (`with_value`: `(value, grads)`, or
    `((value, aux), grads)` with `has_aux`) or of `grad` (`grads`, or `(grads, aux)`); `grads`
    is argument `nums[0]`'s gradient when `single`, else a tuple, one per argnum.

    >>> from tf8.tree_util import DictKey, SequenceKey
    >>> roles = grad_output_roles((0,), True, False, with_value=True)
    >>> names = {0: "params", 1: "x"}.__getitem__
    >>> roles((SequenceKey(0),), names), roles((SequenceKey(1), DictKey("W")), names)
    ('value', "grad[params['W']]")
    """

    def roles(path: tuple[Any, ...], argument: Callable[[int], str]) -> str:
        grads = path
        if with_value:
            head, rest = path[0].idx, path[1:]
            if head == 0:  # the value, or (value, aux)
                if not has_aux or rest[0].idx == 0:
                    return "value"
                return "aux" + keystr(rest[1:])
            grads = rest
        elif has_aux:
            if path[0].idx == 1:
                return "aux" + keystr(path[1:])
            grads = path[1:]
        if single:
            return f"grad[{argument(nums[0])}{keystr(grads)}]"
        return f"grad[{argument(nums[grads[0].idx])}{keystr(grads[1:])}]"

    return roles
