"""Programs name things (issue #30): inputs by parameter name and pytree path in argument
order, outputs by role, constants by what they are, sub-programs by what they are, and each
picture has a legend. Names are display metadata: they never split a program's fingerprint.
"""

from __future__ import annotations

import collections
import re

import numpy as np
import pytest
from test_dot import op_nodes, parse_dot

import tf8
import tf8.numpy as tnp
from tf8 import lax
from tf8.errors import RunInputError
from tf8.graph import ValueKey
from tf8.ops.avals import Aval
from tf8.ops.leaves import LeafKey
from tf8.runtime.engines.numpy.regions import MIN_ELEMENTS

# A name made from a counter (`placeholder7`, `seed9`, `cut5`, ...): what no user may see.
COUNTER_NAME = re.compile(r"\b(?:placeholder|seed|cut|argument|tangent|vmap|body|derived)\d+")


def no_counter_names(text: str) -> None:
    found = COUNTER_NAME.findall(text)
    assert not found, f"counter-numbered names {found} in:\n{text}"


def listing(compiled) -> dict[str, str]:
    """`pretty()`'s input lines as {slot: what the comment says}."""
    lines = re.findall(r"^  (%\d+): [^#\n]*# (.*)$", compiled.pretty(), re.MULTILINE)
    return dict(lines)


def returned(compiled) -> list[str]:
    """The names on `pretty()`'s return line, in output order."""
    last = compiled.pretty().rstrip().splitlines()[-1]
    return re.findall(r"%\d+ \((.*?)\)(?:, |$)", last)


def loss(params, x):
    return tnp.sum(tnp.tanh(x @ params["W"] + params["b"]) ** 2)


PARAMS = {"W": np.linspace(-1.0, 1.0, 6).reshape(3, 2), "b": np.array([0.1, -0.2])}
X = np.arange(12.0).reshape(4, 3) / 10.0


# --- inputs ------------------------------------------------------------------------------------


def test_inputs_take_parameter_names_and_pytree_paths_in_argument_order():
    compiled = tf8.make_program(tf8.value_and_grad(loss))(PARAMS, X)
    assert list(listing(compiled).values()) == [
        "input params['W']",
        "input params['b']",
        "input x",
        "constant: gradient seed = 1.0",
    ]
    assert returned(compiled) == ["value", "grad[params['W']]", "grad[params['b']]"]
    no_counter_names(compiled.pretty() + compiled.to_dot())


def test_nested_pytrees_namedtuples_varargs_and_keywords_are_named_by_path():
    Pair = collections.namedtuple("Pair", "w b")

    def f(p, layers, *rest, scale):
        return tnp.sum(p.w * layers[0]["a"] + p.b) + layers[1][0].sum() * scale + rest[1]

    args = (Pair(np.ones(2), 1.0), [{"a": np.ones(2)}, (np.ones(3),)], 5.0, 7.0)
    compiled = tf8.make_program(f)(*args, scale=2.0)
    assert list(listing(compiled).values()) == [
        "input p.w",
        "input p.b",
        "input layers[0]['a']",
        "input layers[1][0]",
        "input rest[1]",  # rest[0] is not read: the program leaves it out
        "input scale",
    ]
    assert returned(compiled) == ["result"]


def test_keyword_arguments_come_in_signature_order_and_jit_still_computes_right():
    def f(x, *, b, a):
        return x + 2.0 * a + 3.0 * b

    a, b = np.arange(3.0), np.array([1.0, -1.0, 0.5])
    jitted = tf8.jit(f)
    # flattening sorts keyword arguments (a, b); the program takes them as f lists them
    assert list(listing(jitted.lower(1.0, b=b, a=a)).values()) == ["input x", "input b", "input a"]
    np.testing.assert_allclose(jitted(1.0, b=b, a=a), 1.0 + 2.0 * a + 3.0 * b)
    np.testing.assert_allclose(jitted(2.0, a=b, b=a), 2.0 + 2.0 * b + 3.0 * a)  # a cache hit


def test_static_arguments_are_skipped_and_the_others_keep_their_names():
    def f(x, n, y):
        return x * n + y

    jitted = tf8.jit(f, static_argnums=1)
    x, y = np.ones(2), np.arange(2.0)
    assert list(listing(jitted.lower(x, 3, y)).values()) == ["input x", "input y"]
    np.testing.assert_allclose(jitted(x, 3, y), x * 3 + y)


def test_jit_lower_make_program_and_make_jaxpr_name_inputs_alike():
    lowered = tf8.jit(tf8.grad(loss)).lower(PARAMS, X)
    made = tf8.make_program(tf8.grad(loss))(PARAMS, X)
    jaxpr = tf8.make_jaxpr(tf8.grad(loss))(PARAMS, X)
    assert lowered.pretty() == made.pretty() == str(jaxpr)
    assert returned(made) == ["grad[params['W']]", "grad[params['b']]"]


def test_an_unnamed_placeholder_is_input_and_its_position():
    compiled = tf8.GraphCompiler().compile(tf8.placeholder(("n",)) * 2.0 + tf8.placeholder(("n",)))
    assert list(listing(compiled).values()) == ["input 0", "input 1"]
    no_counter_names(compiled.pretty() + compiled.to_dot())


def test_held_constants_say_what_they_are():
    captured = tf8.tensor(np.array([1.0, 2.0, 3.0]))  # an array the function closes over

    def f(x):
        carry, _ = lax.scan(lambda c, xi: (c * xi, None), 1.0, x)
        return tnp.sum(x * captured) + carry

    compiled = tf8.make_program(tf8.grad(f))(np.ones(3))
    described = set(listing(compiled).values())
    assert {"input x", "constant: gradient seed = 1.0"} <= described
    assert "constant: captured float64[3]" in described
    assert "constant: captured float64[] = 1.0" in described  # scan's initial carry
    dot = compiled.to_dot()
    assert "captured float64[3]\\nfloat64(3,)" in dot
    no_counter_names(compiled.pretty() + dot)


def test_errors_name_inputs_by_their_titles():
    prepared = tf8.Runtime().prepare(tf8.make_program(lambda x, y: x * y)(np.ones(2), np.ones(2)))
    with pytest.raises(RunInputError, match=r"one per placeholder \['x', 'y'\]") as error:
        prepared.run(np.ones(2))
    no_counter_names(str(error.value))
    with pytest.raises(RunInputError, match=r"input 'y': expected shape \(2,\)"):
        prepared.run(np.ones(2), np.ones(3))


def test_names_are_display_only_they_never_split_a_program():
    def f(a, b):
        return tnp.sin(a) * b

    def g(weights, inputs):
        return tnp.sin(weights) * inputs

    one, two = tf8.make_program(f)(np.ones(3), np.ones(3)), tf8.make_program(g)(np.ones(3), X[0])
    assert one.fingerprint == two.fingerprint
    assert list(listing(one).values()) == ["input a", "input b"]
    assert list(listing(two).values()) == ["input weights", "input inputs"]
    runtime = tf8.Runtime()
    first, second = runtime.prepare(one), runtime.prepare(two)
    assert first.prepared is second.prepared and runtime.cache_stats.hits == 1
    assert "# input weights" in second.pretty() and "# input a" in first.pretty()
    np.testing.assert_allclose(second.run(np.ones(3), X[0])[0], np.sin(1.0) * X[0])
    key = Aval((3,), np.dtype("float64"))
    titled = [LeafKey(41, None, key, "placeholder", title) for title in ("a", "weights")]
    assert titled[0] == titled[1] and hash(titled[0]) == hash(titled[1])
    assert ValueKey.input(titled[0]) is ValueKey.input(titled[1])


# --- outputs -----------------------------------------------------------------------------------


def test_outputs_are_named_by_role():
    def with_aux(params, x):
        return loss(params, x), {"acc": tnp.sum(x)}

    def roles(fun, *args):
        return returned(tf8.make_program(fun)(*args))

    assert roles(tf8.grad(loss), PARAMS, X) == ["grad[params['W']]", "grad[params['b']]"]
    assert roles(tf8.grad(loss, argnums=(0, 1)), PARAMS, X) == [
        "grad[params['W']]",
        "grad[params['b']]",
        "grad[x]",
    ]
    assert roles(tf8.grad(loss, argnums=1), PARAMS, X) == ["grad[x]"]
    assert roles(tf8.value_and_grad(with_aux, has_aux=True), PARAMS, X) == [
        "value",
        "aux['acc']",
        "grad[params['W']]",
        "grad[params['b']]",
    ]
    assert roles(tf8.grad(with_aux, has_aux=True), PARAMS, X) == [
        "grad[params['W']]",
        "grad[params['b']]",
        "aux['acc']",
    ]
    per_example = tf8.vmap(tf8.grad(loss), in_axes=(None, 0))
    assert roles(per_example, PARAMS, np.stack([X, X])) == [
        "grad[params['W']]",
        "grad[params['b']]",
    ]
    assert roles(lambda a: {"sum": a.sum(), "both": (a, a * 2)}, X) == [
        "result['both'][0]",
        "result['both'][1]",
        "result['sum']",
    ]


def test_named_outputs_compute_what_they_say():
    value, grads = tf8.jit(tf8.value_and_grad(loss))(PARAMS, X)
    h = np.tanh(X @ PARAMS["W"] + PARAMS["b"])
    back = 2 * h * (1 - h**2)
    np.testing.assert_allclose(value, np.sum(h**2))
    np.testing.assert_allclose(grads["W"], X.T @ back)
    np.testing.assert_allclose(grads["b"], back.sum(axis=0))
    compiled = tf8.make_program(tf8.value_and_grad(loss))(PARAMS, X)
    outputs = tf8.Runtime().prepare(compiled).run(PARAMS["W"], PARAMS["b"], X)
    by_name = dict(zip(returned(compiled), outputs))
    np.testing.assert_allclose(by_name["grad[params['W']]"], X.T @ back)
    np.testing.assert_allclose(by_name["grad[params['b']]"], back.sum(axis=0))


# --- pictures ----------------------------------------------------------------------------------


def control_flow(w, xs):
    def body(carry, x):
        branch = lax.cond(x > 0, lambda v: v * 2.0, lambda v: v - 1.0, carry)
        picked = lax.switch(1, [tnp.sin, tnp.cos, tnp.tanh], carry)
        return carry * w + branch * picked, carry

    carry, ys = lax.scan(body, 1.0, xs)
    # reverse mode cannot go through a while loop: its result is held fixed
    total = lax.while_loop(lambda c: c < 100.0, lambda c: c * 3.0 + 1.0, lax.stop_gradient(carry))
    return total + tnp.sum(ys) + tf8.checkpoint(tnp.sin)(carry * w)


def test_pictures_title_subprograms_and_their_passes():
    compiled = tf8.make_program(tf8.grad(control_flow))(0.5, np.ones(3))
    graph = parse_dot(compiled.to_dot())
    titles = {c.attributes["label"] for c in graph.all_clusters()}
    assert {"scan body (forward)", "scan body (backward)"} <= titles
    assert "cond: true_fun" in titles and "cond: false_fun" in titles
    assert {"switch: branches[0]", "switch: branches[2]"} <= titles
    assert any(t.startswith("checkpoint: fun") for t in titles)
    (backward,) = [
        c for c in graph.all_clusters() if c.attributes["label"] == "scan body (backward)"
    ]
    inputs = [graph.nodes[n]["label"].split("\\n")[0] for n in backward.nodes]
    assert "carry[0]" in inputs
    no_counter_names(compiled.pretty() + compiled.to_dot())
    pretty = compiled.pretty()
    assert "# scan body (forward)" in pretty and "# scan body (backward)" in pretty
    assert "# switch: branches[2]" in pretty  # nested in the scan body's listing too
    # without derivatives: no pass in the titles (the while loop is not differentiated)
    forward = tf8.make_program(control_flow)(0.5, np.ones(3))
    titles = {c.attributes["label"] for c in parse_dot(forward.to_dot()).all_clusters()}
    assert {
        "scan body",
        "while_loop: cond_fun",
        "while_loop: body_fun",
        "checkpoint: fun",
    } <= titles
    assert "# while_loop: body_fun" in forward.pretty()
    no_counter_names(forward.pretty() + forward.to_dot())


def test_the_backward_pass_has_one_colour_everywhere():
    compiled = tf8.make_program(tf8.grad(control_flow))(0.5, np.ones(3))
    graph = parse_dot(compiled.to_dot())
    (backward,) = [
        c for c in graph.all_clusters() if c.attributes["label"] == "scan body (backward)"
    ]

    def ops_in(cluster):
        found = [n for n in cluster.nodes if graph.nodes[n].get("shape") in ("box", "box3d")]
        return found + [n for child in cluster.clusters for n in ops_in(child)]

    body_ops = ops_in(backward)
    assert body_ops  # the backward body's own ops (they are primal inside their sub-program)
    legend = graph.legend
    blue = legend["derivative op: backward pass, tangents"]
    grey = legend["forward op"]
    for node in body_ops:
        assert (graph.nodes[node]["fillcolor"], graph.nodes[node]["color"]) == (
            blue["fillcolor"],
            blue["color"],
        )
    fills = {(a["fillcolor"], a["color"]) for a in op_nodes(graph).values()}
    assert fills == {(blue["fillcolor"], blue["color"]), (grey["fillcolor"], grey["color"])}
    # the prepared program (no roles: it reads the seed) draws its backward pass the same blue
    simple = tf8.make_program(tf8.grad(lambda x: tnp.sum(tnp.sin(x) * x)))(np.ones(3))
    prepared = parse_dot(tf8.Runtime(optimise=True).prepare(simple).to_dot())
    colours = {(a["fillcolor"], a["color"]) for a in op_nodes(prepared).values()}
    assert (blue["fillcolor"], blue["color"]) in colours


def test_each_picture_has_a_legend_of_what_it_shows():
    forward = parse_dot(tf8.make_program(loss)(PARAMS, X).to_dot())
    assert list(forward.legend) == [
        "input (an argument the program takes)",
        "forward op",
        "output",
    ]
    gradient = parse_dot(tf8.make_program(tf8.grad(control_flow))(0.5, np.ones(3)).to_dot())
    assert {
        "input (an argument the program takes)",
        "constant the program holds",
        "forward op",
        "derivative op: backward pass, tangents",
        "bold: emitted by linearization",
        "3-D box: extension op (linalg, FFT, control flow...)",
        "output",
        "dashed box: a control op's sub-program",
    } == set(gradient.legend)
    # each legend entry is drawn as what it explains
    seed = next(a for a in gradient.drawing.values() if a["label"].startswith("gradient seed"))
    entry = gradient.legend["constant the program holds"]
    assert (entry["shape"], entry["fillcolor"]) == (seed["shape"], seed["fillcolor"])
    size = int(np.ceil(np.sqrt(MIN_ELEMENTS))) + 1  # big enough for a fused region
    big = tf8.make_program(lambda v: tnp.sum(tnp.exp(v) * 2.0 + v))(np.ones((size, size)))
    prepared = parse_dot(tf8.Runtime().prepare(big).to_dot())
    assert "orange box: a fused region, or ops one engine compiled together" in prepared.legend


def test_pictures_name_inputs_and_outputs():
    graph = parse_dot(tf8.make_program(tf8.value_and_grad(loss))(PARAMS, X).to_dot())
    labels = [a["label"] for a in graph.drawing.values()]
    assert "params['W']\\nfloat64(3, 2)" in labels and "x\\nfloat64(4, 3)" in labels
    assert "gradient seed = 1.0\\nfloat64()" in labels
    assert {"value", "grad[params['W']]", "grad[params['b']]"} <= set(labels)
