"""Autodiff as graph-to-graph transformations (linearize, transpose) with JAX's API."""

from .batching import vmap
from .graph_path import linear_transpose
from .jacobians import hessian, jacfwd, jacrev
from .transforms import grad, hvp, jvp, linearize, value_and_grad, vjp

__all__ = [
    "grad",
    "hessian",
    "hvp",
    "jacfwd",
    "jacrev",
    "jvp",
    "linear_transpose",
    "linearize",
    "value_and_grad",
    "vjp",
    "vmap",
]

from .checkpoint import checkpoint, checkpoint_policies, remat
from .custom import custom_jvp, custom_vjp, stop_gradient
from .custom_gradient import closure_convert, custom_gradient
from .jacobians import jacrev as jacobian
from .linearize import register_rules, unregister_rules

__all__ += [
    "checkpoint",
    "checkpoint_policies",
    "remat",
    "custom_jvp",
    "custom_vjp",
    "closure_convert",
    "custom_gradient",
    "jacobian",
    "register_rules",
    "stop_gradient",
    "unregister_rules",
]
