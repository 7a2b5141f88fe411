"""tf8: a JAX-like functional tracing frontend with automatic differentiation, on numpy.

Users write array code on `TracedTensor`s (or plain numpy code that dispatches to tf8);
tf8 records it as a structural graph, transforms it (grad, jvp, vjp, jit), compiles it
(`GraphCompiler`) and runs it (`Runtime`) on numpy.
"""

import sys

from tf8 import (
    config,
    custom_derivatives,
    debug,
    dtypes,
    errors,
    experimental,
    fft,
    flatten_util,
    lax,
    linalg,
    nn,
    random,
    scipy,
    tree,
    tree_util,
)
from tf8 import numpy as numpy  # noqa: PLC0414 - the tf8.numpy module
from tf8.ad import (
    checkpoint,
    checkpoint_policies,
    closure_convert,
    custom_gradient,
    custom_jvp,
    custom_vjp,
    grad,
    hessian,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    linear_transpose,
    linearize,
    remat,
    stop_gradient,
    value_and_grad,
    vjp,
    vmap,
)
from tf8.api import evaluate
from tf8.compiler import CompiledGraph, GraphCompiler, SemanticFingerprint
from tf8.graph.caches import cache_info, clear_caches
from tf8.jit import jit
from tf8.lax.callback import pure_callback
from tf8.lax.scopes import recording
from tf8.modes import (
    default_matmul_precision,
    disable_jit,
    ensure_compile_time_eval,
    named_call,
    named_scope,
    no_tracing,
    print_environment_info,
)
from tf8.numpy import _dispatch, _methods
from tf8.ops.devices import Device
from tf8.ops.tracebacks import install_excepthook
from tf8.placement import (
    block_until_ready,
    default_backend,
    device_count,
    device_get,
    device_put,
    devices,
    local_device_count,
    local_devices,
    process_count,
    process_index,
)
from tf8.runtime import NumpyEngine, Prepared, Runtime
from tf8.staging import ShapeDtypeStruct, eval_shape, make_jaxpr, make_program
from tf8.testing import check_grads
from tf8.traced import Array, TracedTensor, placeholder, tensor

# TracedTensor's operators and methods (`x + y`, `x.sum()`, `x.at[i]`) and numpy's protocols
# (`np.sin(x)`) are tf8.numpy's, which tf8.traced cannot import: the API layer attaches them.
_methods.install()
_dispatch.install()

# tf8.scipy.integrate (autograd's name for odeint) is tf8.experimental.ode: odeint needs tf8.ad,
# a layer above tf8/scipy, so the API layer binds it.
scipy.integrate = experimental.ode  # type: ignore[attr-defined]
sys.modules["tf8.scipy.integrate"] = experimental.ode

__version__ = "0.1.0"

float0 = dtypes.float0

__all__ = [
    "ShapeDtypeStruct",
    "closure_convert",
    "custom_derivatives",
    "custom_gradient",
    "debug",
    "default_matmul_precision",
    "disable_jit",
    "dtypes",
    "ensure_compile_time_eval",
    "eval_shape",
    "float0",
    "jacobian",
    "make_jaxpr",
    "named_call",
    "named_scope",
    "no_tracing",
    "print_environment_info",
    "Array",
    "Device",
    "block_until_ready",
    "default_backend",
    "device_count",
    "device_get",
    "device_put",
    "devices",
    "local_device_count",
    "local_devices",
    "process_count",
    "process_index",
    "CompiledGraph",
    "GraphCompiler",
    "NumpyEngine",
    "Prepared",
    "Runtime",
    "SemanticFingerprint",
    "TracedTensor",
    "cache_info",
    "check_grads",
    "clear_caches",
    "checkpoint",
    "checkpoint_policies",
    "custom_jvp",
    "custom_vjp",
    "config",
    "errors",
    "experimental",
    "fft",
    "flatten_util",
    "lax",
    "linalg",
    "nn",
    "random",
    "scipy",
    "evaluate",
    "grad",
    "hessian",
    "hvp",
    "jacfwd",
    "jacrev",
    "jvp",
    "linear_transpose",
    "linearize",
    "remat",
    "stop_gradient",
    "value_and_grad",
    "vjp",
    "vmap",
    "jit",
    "make_program",
    "numpy",
    "placeholder",
    "pure_callback",
    "recording",
    "tensor",
    "tree",
    "tree_util",
]

install_excepthook()  # uncaught errors from tf8 show the user's frames (tf8.ops.tracebacks)
