# %% [markdown]
# # Extension ops: linalg, FFT, einsum — and your own family
# Operation families outside the core catalog enter the same structural graph, compile,
# differentiate and get pruned like primitives. Run with `python notebooks/02_extensions.py`.

# %%
import numpy as np

import tf8
import tf8.numpy as tnp
from tf8.lax.core import apply
from tf8.ops.extension import ExtensionOp
from tf8.ops.primitive import Aval

rng = np.random.default_rng(0)
A = rng.standard_normal((5, 5))

# %% [markdown]
# ## Closed forms
# d/dA log|det A| = A^{-T}; the nuclear norm's gradient is U Vh.

# %%
grad_logdet = tf8.grad(lambda a: tnp.linalg.slogdet(a)[1])(A)
assert np.allclose(grad_logdet, np.linalg.inv(A).T)

grad_nuclear = tf8.grad(lambda a: tnp.sum(tnp.linalg.svd(a, full_matrices=False)[1]))(A)
U, _, Vh = np.linalg.svd(A)
assert np.allclose(grad_nuclear, U @ Vh)
print("grad log|det A| = inv(A).T and grad ||A||_* = U Vh: ok")

# %% [markdown]
# ## Pruning
# When only the singular values are read, the compiled program computes svdvals only.

# %%
program = tf8.make_program(lambda a: tnp.sum(tnp.linalg.svd(a)[1]))(A)
print([op.name for op in program.ops])
assert "svdvals" in [op.name for op in program.ops]

# %% [markdown]
# ## FFT and einsum
# Parseval: the energy of a signal equals the energy of its (orthonormal) spectrum, and its
# gradient is the same either way.

# %%
x = rng.standard_normal(16)
energy_time = tf8.grad(lambda v: tnp.sum(v * v))(x)
energy_freq = tf8.grad(lambda v: tnp.sum(tnp.abs(tnp.fft.fft(v, norm="ortho")) ** 2))(x)
assert np.allclose(energy_time, energy_freq)

B, C = rng.standard_normal((5, 5)), rng.standard_normal((5, 5))
value = tnp.einsum("ij,jk,kl->", A, B, C)
assert np.isclose(float(value), np.einsum("ij,jk,kl->", A, B, C))
tf8.check_grads(lambda a, b, c: tnp.einsum("ij,jk,kl->", a, b, c), (A, B, C), order=2)
print("Parseval and einsum gradients: ok")

# %% [markdown]
# ## A family of your own
# An extension op is a frozen value: a family id, a payload (its identity, so equal ops merge),
# a shape/dtype rule, a kernel and AD rules. Here, a numerically stable softplus.


# %%
class Softplus(ExtensionOp):
    """softplus(x) = log(1 + e^x), computed as logaddexp(0, x)."""

    family = "example.activations.v1"
    name = "softplus"

    def infer(self, avals, guards):
        (x,) = avals
        if x.dtype.kind != "f":
            raise tf8.errors.DTypeError(f"softplus takes a float array, got {x.dtype}")
        return (Aval(x.shape, x.dtype),)

    def kernel(self, op, x):
        return np.logaddexp(0.0, x)

    def jvp(self, op, primals, outputs, tangents):
        (x,), (t,) = primals, tangents
        return [None if t is None else t * tnp.logistic(x)]  # linear in t


def softplus(x):
    return apply(Softplus((), 1), [tnp.asarray(x)])[0]


z = rng.standard_normal(6) * 30
assert np.allclose(np.asarray(softplus(z)), np.logaddexp(0, z))
tf8.check_grads(softplus, (z / 10,), order=2)
print(tf8.make_program(lambda v: tnp.sum(softplus(v) + softplus(v)))(z).pretty())
