"""AD and batching rules of the control ops (cond, scan, while), keyed by op class; each table
is made from the transform its rules apply to the ops' bodies."""

from .jvp import control_jvp_rules
from .transpose import control_transpose_rules

__all__ = ["control_jvp_rules", "control_transpose_rules"]
