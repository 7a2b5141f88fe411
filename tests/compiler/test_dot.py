"""Program pictures: the DOT text parses, shows one node per op, marks linearized ops apart,
and draws control-flow sub-programs and fused regions as clusters; draw() explains what is
missing when Graphviz is not installed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8 import lax
from tf8.compiler import dot as dot_module
from tf8.runtime.engines.numpy.regions import MIN_ELEMENTS

TOKEN = re.compile(r'\s*(?:(->)|([{}\[\];=,])|"((?:[^"\\]|\\.)*)"|([A-Za-z_][\w.#]*|-?[\d.]+))')


@dataclass
class Cluster:
    name: str
    attributes: dict[str, str] = field(default_factory=dict)
    nodes: list[str] = field(default_factory=list)
    clusters: list[Cluster] = field(default_factory=list)


@dataclass
class Graph:
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    edges: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    root: Cluster = field(default_factory=lambda: Cluster("root"))

    def all_clusters(self, cluster: Cluster | None = None) -> list[Cluster]:
        """Every cluster but the legend, outermost first."""
        found = []
        for child in (cluster or self.root).clusters:
            if child.name != "cluster_legend":
                found += [child, *self.all_clusters(child)]
        return found

    @property
    def legend(self) -> dict[str, dict[str, str]]:
        """The legend's nodes (label -> attributes)."""
        (legend,) = [c for c in self.root.clusters if c.name == "cluster_legend"]
        return {self.nodes[n]["label"]: self.nodes[n] for n in legend.nodes}

    @property
    def drawing(self) -> dict[str, dict[str, str]]:
        """The nodes of the program itself (the legend's left out)."""
        return {n: a for n, a in self.nodes.items() if not n.startswith("legend")}


def tokens(text: str) -> list[str]:
    out, position = [], 0
    while text[position:].strip():
        match = TOKEN.match(text, position)
        assert match, f"unexpected DOT text at {text[position : position + 40]!r}"
        arrow, symbol, quoted, word = match.groups()
        out.append(arrow or symbol or (word if quoted is None else "\0" + quoted))
        position = match.end()
    return out


def parse_dot(text: str) -> Graph:
    """A strict parser for the DOT subset tf8 writes: nodes are declared once, before any
    edge names them; every edge joins declared nodes; braces and brackets balance."""
    items = tokens(text)
    graph = Graph()
    assert items[:3] == ["digraph", "program", "{"] and items[-1] == "}"
    position = _statements(items, 3, graph, graph.root)
    assert position == len(items) - 1, "text after the graph's closing brace"
    return graph


def _attributes(items: list[str], position: int) -> tuple[dict[str, str], int]:
    attributes: dict[str, str] = {}
    if items[position] != "[":
        return attributes, position
    position += 1
    while items[position] != "]":
        key, equals, value = items[position : position + 3]
        assert equals == "=", f"attribute {key} without a value"
        attributes[key] = value.lstrip("\0")
        position += 3
        if items[position] == ",":
            position += 1
    return attributes, position + 1


def _statements(items: list[str], position: int, graph: Graph, cluster: Cluster) -> int:
    while items[position] != "}":
        word = items[position]
        if word == "subgraph":
            child = Cluster(items[position + 1])
            assert items[position + 2] == "{"
            cluster.clusters.append(child)
            position = _statements(items, position + 3, graph, child) + 1
            continue
        if items[position + 1] == "=":  # a graph attribute: label="..."
            cluster.attributes[word] = items[position + 2].lstrip("\0")
            position += 3
        elif word in ("node", "edge"):
            _, position = _attributes(items, position + 1)
        elif items[position + 1] == "->":
            target = items[position + 2]
            assert word in graph.nodes and target in graph.nodes, f"edge {word} -> {target}"
            attributes, position = _attributes(items, position + 3)
            graph.edges.append((word, target, attributes))
        else:
            assert word not in graph.nodes, f"node {word} declared twice"
            graph.nodes[word], position = _attributes(items, position + 1)
            cluster.nodes.append(word)
        assert items[position] == ";", f"statement not ended at token {position}"
        position += 1
    return position


def op_nodes(graph: Graph) -> dict[str, dict[str, str]]:
    return {n: a for n, a in graph.drawing.items() if a.get("shape") in ("box", "box3d")}


def test_gradient_program_has_primal_and_linearized_nodes():
    compiled = tf8.make_program(tf8.grad(lambda x: tnp.sum(tnp.sin(x) * x)))(np.ones(3))
    graph = parse_dot(compiled.to_dot())
    ops = op_nodes(graph)
    assert len(ops) == len(compiled.ops)  # one node per op
    labels = [a["label"].split("\\n") for a in ops.values()]
    assert sorted(label[0] for label in labels) == sorted(op.name for op in compiled.ops)
    assert all("float64(3,)" in label for label in labels)  # dtype and shape
    assert any("broadcast_dimensions=()" in line for label in labels for line in label)
    styles = {a["label"].split("\\n")[0]: a["style"] for a in ops.values()}
    assert "bold" in styles["broadcast_in_dim"]  # the seed's broadcast: role Linearized
    assert "bold" not in styles["sin"] and "bold" not in styles["cos"]
    fills = {a["label"].split("\\n")[0]: a["fillcolor"] for a in ops.values()}
    assert fills["sin"] != fills["add"]  # the forward pass vs the backward (cotangent) pass
    # inputs and the output are nodes too, and every op is connected
    assert len(graph.drawing) == len(ops) + len(compiled.inputs) + len(compiled.outputs)
    assert {t for _, t, _ in graph.edges} >= set(ops)


def _subprogram_count(op) -> int:
    subs = getattr(op, "subprograms", ())
    return len(subs) + sum(
        _subprogram_count(k.op)
        for sub in subs
        for k in dot_module.materialize_merge(None, list(sub.outputs)).operations
    )


def test_control_flow_subprograms_are_one_cluster_each():
    def f(x):
        def body(carry, xi):
            branch = lax.cond(xi > 0, lambda v: v * 2.0, lambda v: v - 1.0, carry)
            return carry * xi + branch, carry

        carry, ys = lax.scan(body, 1.0, x)
        total = lax.while_loop(lambda c: c < 100.0, lambda c: c * 3.0 + 1.0, carry)
        return total + tnp.sum(ys) + tf8.checkpoint(tnp.sin)(carry)

    compiled = tf8.make_program(f)(np.ones(4))
    graph = parse_dot(compiled.to_dot())
    clusters = graph.all_clusters()
    expected = sum(_subprogram_count(op) for op in compiled.ops)
    assert expected == 6  # scan body, its cond's two branches, while cond and body, checkpoint
    assert len(clusters) == expected
    titles = sorted(c.attributes["label"] for c in clusters)
    assert titles == [
        "checkpoint: fun", "cond: false_fun", "cond: true_fun", "scan body",
        "while_loop: body_fun", "while_loop: cond_fun",
    ]  # fmt: skip
    (scan,) = [c for c in graph.all_clusters() if c.attributes["label"] == "scan body"]
    assert len(scan.clusters) == 2  # the branches are drawn inside the body that holds them
    for attributes in op_nodes(graph).values():
        if attributes["label"].split("\\n")[0] in ("scan", "cond", "while", "checkpoint"):
            assert attributes["shape"] == "box3d"  # extension ops are marked


def test_prepared_program_shows_fused_regions_as_clusters():
    size = int(np.ceil(np.sqrt(MIN_ELEMENTS))) + 1
    compiled = tf8.make_program(lambda x: tnp.sum(tnp.exp(x) * 2.0 + x))(np.ones((size, size)))
    prepared = tf8.Runtime().prepare(compiled)
    (region,) = prepared.prepared.regions
    graph = parse_dot(prepared.to_dot())
    (cluster,) = graph.all_clusters()
    assert cluster.attributes["label"].startswith(f"fused region: {region.ops} ops")
    names = [graph.nodes[n]["label"].split("\\n")[0] for n in cluster.nodes]
    assert {"exp", "mul", "add"} <= set(names) and "reduce_sum" not in names
    assert all("[numpy]" in a["label"] for a in op_nodes(graph).values())  # the engine


def test_payload_text_is_cut_and_quotes_are_escaped():
    assert dot_module.quote('say "hi"\n\\') == '"say \\"hi\\"\\n\\\\"'
    compiled = tf8.make_program(lambda a: tnp.einsum("ij,jk,kl->il", a, a, a))(np.ones((2, 2)))
    graph = parse_dot(compiled.to_dot())
    for attributes in op_nodes(graph).values():
        for line in attributes["label"].split("\\n"):
            assert len(line) <= dot_module.PAYLOAD_CHARS + len("float64") * 2


def test_draw_without_graphviz_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(dot_module.shutil, "which", lambda name: None)
    compiled = tf8.make_program(tnp.sin)(np.ones(2))
    with pytest.raises(tf8.errors.MissingToolError, match="apt install graphviz"):
        compiled.draw(tmp_path / "program.svg")
    assert compiled._repr_svg_() is None
    markdown = compiled._repr_markdown_()
    assert markdown.startswith("```dot\ndigraph") and "sin" in markdown


def test_draw_with_graphviz_renders_and_writes(monkeypatch, tmp_path):
    graphviz = pytest.importorskip("graphviz", reason="the graphviz package is not installed")
    rendered = []

    def pipe(self, format):  # the `dot` program's work, so the test runs without it
        rendered.append((self.source, format))
        return b"<svg>picture</svg>"

    monkeypatch.setattr(dot_module.shutil, "which", lambda name: "/usr/bin/dot")
    monkeypatch.setattr(graphviz.Source, "pipe", pipe)
    prepared = tf8.Runtime().prepare(tf8.make_program(tnp.cos)(np.ones(2)))
    target = tmp_path / "program.png"
    assert prepared.draw(target, format="png") == b"<svg>picture</svg>"
    assert target.read_bytes() == b"<svg>picture</svg>"
    assert rendered == [(prepared.to_dot(), "png")]
    assert prepared._repr_svg_() == "<svg>picture</svg>" and prepared._repr_markdown_() is None


@pytest.mark.skipif(not dot_module.dot_available(), reason="Graphviz's dot is not installed")
def test_dot_program_renders_real_svg():
    svg = tf8.make_program(tnp.sin)(np.ones(2)).draw()
    assert svg.lstrip().startswith(b"<?xml") and b"<svg" in svg
