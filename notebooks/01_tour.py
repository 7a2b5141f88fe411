# %% [markdown]
# # A tour of tf8
# tf8 records array code as a structural graph, differentiates it graph-to-graph, and runs it
# on numpy. This notebook is a plain Python file in "percent" format (open it in Jupyter with
# jupytext, or run it with `python notebooks/01_tour.py`); the test suite executes it.

# %%
import numpy as np

import tf8
import tf8.numpy as tnp

# %% [markdown]
# ## Eager feel, lazy graph
# Leaves made from arrays are bound to their data; values print like arrays.

# %%
x = tf8.tensor(np.linspace(0.0, 1.0, 4))
y = tnp.sin(x) * 2.0 + 1.0
print(y)
assert np.allclose(np.asarray(y), np.sin(np.linspace(0, 1, 4)) * 2 + 1)

# %% [markdown]
# ## Programs you can read
# `make_program` shows what `jit` compiles: structural CSE merges the two `x*x`.


# %%
def f(x):
    return tnp.sum((x * x) + (x * x))


program = tf8.make_program(f)(np.ones(3))
print(program.pretty())
assert [op.name for op in program.ops].count("mul") == 1

# %% [markdown]
# ## Gradients are graphs too
# `grad` transforms the graph; only what the backward pass needs is computed.


# %%
def loss(w, b, inputs, targets):
    hidden = tnp.tanh(inputs @ w + b)
    return tnp.mean((hidden - targets) ** 2)


rng = np.random.default_rng(0)
w, b = rng.standard_normal((3, 2)), np.zeros(2)
inputs, targets = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
gw, gb = tf8.grad(loss, argnums=(0, 1))(w, b, inputs, targets)
tf8.check_grads(lambda w, b: loss(w, b, inputs, targets), (w, b), order=2)
print("d loss / d w =\n", gw)

# %% [markdown]
# ## jit: trace once per signature
# Symbolic shapes and placeholders let one compiled program serve every size.

# %%
fast_loss = tf8.jit(tf8.value_and_grad(loss))
value, grad_w = fast_loss(w, b, inputs, targets)
assert np.allclose(grad_w, gw)

n_program = tf8.GraphCompiler().compile(tnp.sum(tnp.exp(tf8.placeholder(("n",))) * 2.0))
prepared = tf8.Runtime().prepare(n_program)
for n in (1, 10, 1000):
    (out,) = prepared.run(np.ones(n))
    assert np.isclose(out, 2 * np.e * n)
print("one program, every n")
