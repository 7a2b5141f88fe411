"""AD and batching rules of the control ops (cond, scan, while), keyed by op class."""

from .jvp import JVP_RULES
from .transpose import TRANSPOSE_RULES

__all__ = ["JVP_RULES", "TRANSPOSE_RULES"]
