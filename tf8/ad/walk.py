"""The rule tables transforms look their rules up in (the interpreter and the graph walk they
run on are tf8.lax.walk's)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from tf8.errors import DifferentiationError
from tf8.ops.definition import definition

__all__ = ["RuleCache", "RuleTable"]


class RuleTable:
    """A transform's rules keyed by `definition(op).rule_key`; a user-defined extension
    family may carry its rule as a method named `method` instead. `missing(op)` builds the
    exception for an op with neither (by default a DifferentiationError)."""

    def __init__(
        self,
        what: str,
        method: str,
        rules: Mapping[Hashable, Callable],
        missing: Callable[[Any], Exception] | None = None,
        derive: Callable[[Any], Callable | None] | None = None,
    ) -> None:
        self.what = what
        self.method = method
        self.rules = dict(rules)
        self.missing = missing
        self.derive = derive

    def __call__(self, op: Any) -> Callable:
        """The rule for `op` (the missing-rule exception if it has none)."""
        found = definition(op)
        rule = self.rules.get(found.rule_key)
        if rule is None and self.derive is not None:
            rule = self.derive(found)  # a primitive registered since: its home's rule
        if rule is None:
            rule = getattr(op, self.method, None)
        if rule is None:
            if self.missing is not None:
                raise self.missing(op)
            raise DifferentiationError(f"{op!r} has no {self.what} rule")
        return rule

    def register(self, key: Hashable, rule: Callable) -> None:
        self.rules[key] = rule

    def __contains__(self, key: Hashable) -> bool:
        return key in self.rules


class RuleCache:
    """One walk's rules by op object: a graph repeats a few ops many times (the same `mul`),
    so each is looked up in the table once per walk (the walk keeps its ops alive)."""

    __slots__ = ("table", "found")

    def __init__(self, table: RuleTable) -> None:
        self.table = table
        self.found: dict[int, Callable] = {}

    def __call__(self, op: Any) -> Callable:
        rule = self.found.get(id(op))
        if rule is None:
            rule = self.found[id(op)] = self.table(op)
        return rule
