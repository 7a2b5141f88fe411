"""tf8's exceptions: each says what the user did wrong and subclasses the matching builtin.

Shape problems are `ValueError`s, dtype problems and misuse of traced values (concretization,
in-place assignment) are `TypeError`s, so code written against numpy's exceptions keeps
working.
"""

from __future__ import annotations


class Tf8Error(Exception):
    """Base class of every error tf8 raises on purpose."""


# --- graph engine ------------------------------------------------------------------------


class GraphError(Tf8Error, ValueError):
    """A structural graph was built or queried wrongly (arity, unknown ids, unresolved keys)."""


class ArityError(GraphError, TypeError):
    """An operation got a number of inputs it does not take."""


class TreeStructureError(Tf8Error, ValueError):
    """Two pytrees that should share a structure do not (tree_map, tree_unflatten, ...)."""


# --- shapes and dtypes --------------------------------------------------------------------


class ShapeError(Tf8Error, ValueError):
    """Operand shapes are incompatible with an operation."""


class AxisError(ShapeError, IndexError):
    """An axis is out of range for an operand's rank (also an IndexError, like numpy's)."""


class DTypeError(Tf8Error, TypeError):
    """An operand's dtype is not accepted by an operation."""


class ParameterError(Tf8Error, ValueError):
    """An operation parameter is missing, unknown or of the wrong kind."""


class ShapeGuardError(ShapeError):
    """A run-time shape constraint (a shape guard) does not hold for the given inputs."""


# --- tracing --------------------------------------------------------------------------------


class ConcretizationError(Tf8Error, TypeError):
    """A traced value that depends on an unbound placeholder was converted to a Python value."""


class TracerArrayConversionError(ConcretizationError):
    """np.asarray of a value being differentiated: it would silently drop the derivative."""


class ConversionError(Tf8Error, TypeError):
    """A traced value cannot become the requested Python value (float() of a vector, ...)."""


class InPlaceAssignmentError(Tf8Error, TypeError):
    """`t[i] = v` on an immutable traced value; use `t.at[i].set(v)`."""


class UnsupportedOperationError(Tf8Error, TypeError):
    """A numpy function or feature that tf8 does not implement was called on a traced value."""


class TracingError(Tf8Error, TypeError):
    """A traced function returned or received something tf8 cannot trace."""


# --- compile and run ------------------------------------------------------------------------


class CompileError(Tf8Error, ValueError):
    """The graph could not be compiled."""


class DuplicateBinding(CompileError):
    """One input key is bound to two different arrays in one program."""


class UnboundPlaceholder(CompileError):
    """A placeholder has no array bound to it and was not listed as an input."""


class UnusedInput(CompileError):
    """An input spec names a value the outputs do not depend on."""


class RunInputError(Tf8Error, ValueError):
    """Prepared.run got the wrong number of arrays, or an array of the wrong shape or dtype."""


class RunDTypeError(RunInputError, TypeError):
    """Prepared.run got an array of the wrong dtype."""


# --- autodiff ------------------------------------------------------------------------------


class DifferentiationError(Tf8Error, TypeError):
    """A function cannot be differentiated as asked (non-scalar output, integer input, ...)."""


class ArgnumsError(DifferentiationError, ValueError):
    """`argnums` names an argument the function was not called with."""


# --- control flow ---------------------------------------------------------------------------


class ControlFlowTypeError(Tf8Error, TypeError):
    """A control-flow body or predicate has the wrong type: a carry whose shape or dtype
    changes, branches whose outputs differ, a predicate that is not a bool/int scalar."""


# --- vmap ---------------------------------------------------------------------------------


class BatchingError(Tf8Error, ValueError):
    """vmap cannot batch as asked (the subclasses say which way)."""


class BatchSizeError(BatchingError):
    """Mapped axes of different sizes, an axis_size that disagrees, or nothing to size by."""


class BatchAxisError(BatchingError, AxisError):
    """An in_axes/out_axes entry is out of range for the value it maps."""


class AxesSpecError(BatchingError, TreeStructureError):
    """in_axes/out_axes is not an int, None or a pytree prefix of the arguments/outputs."""


class UnbatchedOutputError(BatchingError):
    """out_axes=None names an output that depends on the mapped axis."""


class RaggedBatchError(BatchingError):
    """The per-example results would have different sizes (a batched size operand)."""


class NoBatchingRule(BatchingError, TypeError):
    """An op (a user-defined extension family) has no batching rule."""


# --- tf8.numpy ------------------------------------------------------------------------------


class IndexingError(ShapeError, IndexError):
    """An index does not fit the indexed array (out of bounds, too many indices, bad kind)."""


# --- tf8.linalg -----------------------------------------------------------------------------


class LinAlgError(Tf8Error, ValueError):
    """A linear-algebra kernel failed on the data: a singular matrix to `solve`/`inv`, a matrix
    that is not positive definite to `cholesky`, a decomposition that did not converge."""


# --- tools outside Python -------------------------------------------------------------------


class MissingToolError(Tf8Error, RuntimeError):
    """An optional tool a feature needs is not installed (Graphviz's `dot` to draw programs);
    the message says how to install it."""


class EngineError(Tf8Error, ValueError):
    """An engine name tf8 does not know, or an engine whose optional extra is not installed
    (the message names the engine and the `pip install` that brings it)."""


class ChunkingError(EngineError):
    """An op an engine of chunked arrays (Dask) cannot run on its operands as they are
    chunked, or cannot run at all; the message names the op and says what to do (rechunk,
    or compute first)."""
