"""The transform context: a stack of frames in one context variable.

Every transform that runs the user's code (jit's trace, grad's graph path or tape, vmap, a
control-flow body, a linear walk) pushes a `Frame` for its extent and pops it after. A frame
holds the whole transform state the running code sees, inherited from the frame below unless
the transform changes it, and its class decides what an op applied there does
(`Frame.process`, asked by `tf8.lax.core.apply`): so a new online transform is a frame class
and its rule table, with no edit to `apply`, and nothing a transform needs lives in tensors
or module globals. Outside every transform no frame is pushed (the variable holds None):
ops run at once.

The state lives in a context variable, so two threads (or asyncio tasks) tracing at once never
see each other's transforms.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["ROOT", "Frame", "current", "frame_var", "pushed"]


class Frame:
    """The state of the transforms enclosing the running code (see the module docstring).

    - `depth`: how many transforms (jit, grad, vmap, a body, ...) enclose the code.
    - `symbolic`: ops are only recorded, never computed (jit's trace, `tf8.recording()`, a
      rule being derived).
    - `linear`: the keys of tangent and cotangent values while a linear transform emits ops
      (ops on them are tagged Linearized and their outputs join it), or None.
    - `levels`: one map per enclosing transform that differentiates by graph, value key ->
      the argument it depends on (such values refuse float(), np.asarray, ...); a recorded
      op's outputs join every level an input is in, as JAX's tracers keep their trace level.
    - `values`: the values computed for recorded ops, by key (transforms read them back
      instead of evaluating again), or None.
    - `tapes`: the tapes running op by op (tf8.ad.tape), outermost first; each follows the
      values it differentiates in a table of its own (`follows`).
    - `hidden`: the tapes a body traced under them hides (tf8.lax.control.closure); `tracked`
      then holds the values they follow that the body reads, by key, and the keys of values
      recorded from them (None): the body captures the former and never hoists the latter.
    - `body_depth`: how many control-flow bodies enclose the code (names their leaves).
    - `taping`: False where transforms must take the graph path (tf8.ad.tape.graph_path_only,
      to compare the two).
    """

    __slots__ = (
        "depth",
        "symbolic",
        "linear",
        "levels",
        "values",
        "tapes",
        "hidden",
        "tracked",
        "body_depth",
        "taping",
    )

    # Whether the eager fast paths (tf8.lax.eager) may run an op here as this frame's
    # `process` would, without asking it: only the tape frame's answer is known to them.
    op_by_op = False

    def __init__(self) -> None:
        self.depth = 0
        self.symbolic = False
        self.linear: set | None = None
        self.levels: tuple[dict, ...] = ()
        self.values: dict | None = None
        self.tapes: tuple = ()
        self.hidden: tuple = ()
        self.tracked: dict | None = None
        self.body_depth = 0
        self.taping = True

    def child(self, kind: type[Frame] | None = None, **changes: Any) -> Frame:
        """A frame of class `kind` (default: this frame's) with this frame's state, but for
        `changes`."""
        frame = object.__new__(kind or type(self))
        frame.depth = self.depth
        frame.symbolic = self.symbolic
        frame.linear = self.linear
        frame.levels = self.levels
        frame.values = self.values
        frame.tapes = self.tapes
        frame.hidden = self.hidden
        frame.tracked = self.tracked
        frame.body_depth = self.body_depth
        frame.taping = self.taping
        for name, value in changes.items():
            setattr(frame, name, value)
        return frame

    def process(self, op: Any, inputs: Any, meta: Any) -> list:
        """Apply `op` to `inputs` here: the frame class's dispatch (see tf8.lax.core)."""
        raise TypeError(f"{type(self).__name__} does not apply ops")

    # --- what the state says ---------------------------------------------------------------
    def follows(self, t: Any) -> bool:
        """Whether an active tape follows `t`."""
        for handle in self.tapes:
            if id(t) in handle.nodes:
                return True
        return False

    def hidden_follows(self, t: Any) -> bool:
        """Whether a tape the body hides follows `t`."""
        for handle in self.hidden:
            if id(t) in handle.nodes:
                return True
        return False

    def differentiated(self, key: Any) -> str | None:
        """The argument a graph-path transform differentiates that `key` depends on."""
        for level in self.levels:
            argument = level.get(key)
            if argument is not None:
                return argument
        return None

    @property
    def only_tapes(self) -> bool:
        """Every enclosing transform is a tape (or none encloses) and nothing records."""
        return self.depth == len(self.tapes) and not self.symbolic

    @property
    def eager(self) -> bool:
        """Ops on concrete values run at once (outside transforms, or on tapes only)."""
        return (self.depth == 0 or bool(self.tapes)) and not self.symbolic


ROOT = Frame()  # the state outside every transform (read when no frame is pushed)

frame_var: contextvars.ContextVar[Frame | None] = contextvars.ContextVar("tf8_frame", default=None)
_get = frame_var.get


def current() -> Frame:
    """The frame of the running code (ROOT outside every transform)."""
    frame = _get()
    return ROOT if frame is None else frame


@contextmanager
def pushed(frame: Frame) -> Iterator[Frame]:
    """Run the block with `frame` on top of the stack."""
    token = frame_var.set(frame)
    try:
        yield frame
    finally:
        frame_var.reset(token)
