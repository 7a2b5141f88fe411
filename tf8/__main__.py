"""`python -m tf8`: the pipeline on a small program; `python -m tf8 catalog`: the primitives.

The demo traces f = sum(tanh(W @ x + b) ** 2) on `tf8.tensor` leaves, prints the compiled
program, runs it through the runtime and compares with numpy; then prints the gradient
program, the gradient, its closed form and a numerical check. Each demo section is a function
returning its maximum absolute error against numpy; `DEMOS` lists them in order.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

import numpy as np

import tf8
import tf8.numpy as tnp
from tf8.ops.primitives import CATALOG_HEADERS, catalog_table

TOLERANCE = 1e-12


def demo_forward() -> float:
    """Trace, compile, print, run f(W, x, b) = sum(tanh(W @ x + b) ** 2); compare with numpy."""
    rng = np.random.default_rng(0)
    W_np, x_np, b_np = rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=4)
    W, x, b = tf8.tensor(W_np, name="W"), tf8.tensor(x_np, name="x"), tf8.tensor(b_np, name="b")

    with tf8.recording():  # record a program instead of computing op by op
        f = tnp.sum(tnp.tanh(W @ x + b) ** 2)

    compiled = tf8.GraphCompiler().compile(f, output_names=["f"])
    print("f(W, x, b) = sum(tanh(W @ x + b) ** 2)\n")
    print(compiled.pretty())
    (value,) = tf8.Runtime().prepare(compiled).run()
    expected = np.sum(np.tanh(W_np @ x_np + b_np) ** 2)
    error = float(np.max(np.abs(value - expected)))
    print(f"\ntf8:   {float(value)!r}\nnumpy: {float(expected)!r}\nmax abs error: {error:.3g}")
    return error


def demo_gradient() -> float:
    """grad of the same f w.r.t. W: its program, its value vs the closed form, check_grads."""
    rng = np.random.default_rng(0)
    W_np, x_np, b_np = rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=4)

    def f(W, x, b):
        return tnp.sum(tnp.tanh(W @ x + b) ** 2)

    grad_f = tf8.grad(f)
    print("grad_W f: the gradient program (forward values it needs, then the backward pass)\n")
    print(tf8.make_program(grad_f)(W_np, x_np, b_np).pretty())
    g = grad_f(W_np, x_np, b_np)
    h = np.tanh(W_np @ x_np + b_np)
    closed_form = np.outer(2 * h * (1 - h**2), x_np)  # d/dW sum(tanh(Wx+b)^2)
    error = float(np.max(np.abs(g - closed_form)))
    print(f"\ngrad_W f =\n{g}\nmax abs error vs the closed form: {error:.3g}")
    tf8.check_grads(f, (W_np, x_np, b_np), order=2)
    print("check_grads (order 2, forward and reverse vs central differences): ok")
    return error


# The sections `python -m tf8` runs, in order.
DEMOS: list[Callable[[], float]] = [demo_forward, demo_gradient]


def print_catalog() -> None:
    from tabulate import tabulate

    print(tabulate(catalog_table(), headers=CATALOG_HEADERS))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tf8", description=__doc__.splitlines()[0])
    parser.add_argument(
        "command",
        nargs="?",
        default="demo",
        choices=["demo", "catalog"],
        help="demo (default): run the demo sections; catalog: print the primitive catalog",
    )
    args = parser.parse_args(argv)
    if args.command == "catalog":
        print_catalog()
        return 0
    errors = []
    for demo in DEMOS:
        errors.append(demo())
        print()
    return 0 if max(errors) <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
