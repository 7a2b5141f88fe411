"""Names users give parts of a program (`tf8.named_scope`, `tf8.named_call`): the active
scope, and the scope each recorded operation was first made in.

The names are metadata, outside an operation's structural identity: two equal ops in two
scopes stay one op (the first scope names it), and programs' fingerprints ignore names.
`CompiledGraph.pretty()` shows each instruction's scope.
"""

from __future__ import annotations

import contextvars
import weakref
from typing import Any

# the active scope, "outer/inner", or "" outside every named scope
scope_var: contextvars.ContextVar[str] = contextvars.ContextVar("tf8_name_scope", default="")

# operation key -> the scope it was first recorded in (only keys made inside a scope)
SCOPES: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def note_scope(op_key: Any) -> None:
    """Remember the active scope for a newly made operation key (nothing outside scopes)."""
    scope = scope_var.get()
    if scope:
        SCOPES[op_key] = scope


def scopes_of(operations: Any) -> tuple[str, ...] | None:
    """Each operation's scope ("" for none), or None when no operation has one."""
    if not SCOPES:
        return None
    found = tuple([SCOPES.get(op, "") for op in operations])
    return found if any(found) else None
