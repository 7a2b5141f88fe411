"""Pictures of programs: Graphviz DOT text for compiled and prepared programs, and rendering.

One node per op, labelled with its name, its payload (parameters) and each output's dtype and
shape. Primal (forward) ops are grey. Derivative ops are one blue everywhere: every op that
reads a tangent or cotangent (a value downstream of a tangent or seed leaf: the backward pass
of a gradient), every op the linearisation emitted (role `Linearized`, drawn with a bold
border too) and every op of a sub-program such an op holds. Extension ops (linalg, FFT, einsum,
control flow, user families) are 3-D boxes. Inputs and outputs are named (tf8.compiler.names:
`params['W']`, `grad[params['W']]`, `captured float64[3]`). A control-flow op's sub-programs
are clusters beside it titled by what they are (`scan body (backward)`, `cond: true_fun`,
`while_loop: body_fun`), their inputs and outputs by their roles (`carry[0]`, `x[0]`), drawn
recursively; a caller may add clusters of its own over runs of instructions (the prepared
program's fused elementwise regions). Each picture ends with a legend of what it shows.

`draw` renders through the `graphviz` Python package, which needs Graphviz's `dot` program
(Debian/Ubuntu: `apt install graphviz`; it does not come from PyPI). `Drawable` gives a class
with a `to_dot()` method `draw()` and notebook display: a picture when `dot` is installed,
the DOT text otherwise.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tf8.errors import MissingToolError
from tf8.graph import PRIMARY, OperationRole, ValueKey, materialize_merge

from .dot_style import (
    CLUSTER_STYLES,
    INPUT_STYLE,
    OUTPUT_STYLE,
    PLACEHOLDER_STYLE,
    legend_keys,
    legend_lines,
    op_style,
    quote,
)
from .names import LINEAR_LEAVES, derivative_steps, input_text, pass_word, subprogram_descriptions

PAYLOAD_CHARS = 48  # longer payloads are cut (a label is not a listing)


@dataclass(frozen=True, slots=True)
class Step:
    """One op to draw: it reads the values `inputs` names and writes those `outputs` names
    (slots, or value keys in a sub-program), with their avals and the op's role."""

    op: Any
    inputs: tuple[Hashable, ...]
    outputs: tuple[Hashable, ...]
    out_avals: tuple[Any, ...]
    role: OperationRole = PRIMARY
    note: str = ""  # an extra label line (the engine, read-through views)

    @property
    def wiring(self) -> tuple[tuple[Hashable, ...], tuple[Hashable, ...], OperationRole]:
        return self.inputs, self.outputs, self.role


@dataclass(frozen=True, slots=True)
class Input:
    """An input node: the value it names, its label, whether a default binding exists, and
    its leaf kind (tensor, placeholder, tangent, seed, ...)."""

    value: Hashable
    label: str
    bound: bool
    kind: str = "tensor"


def program_inputs(compiled: Any, program: Any) -> list[Input]:
    """The input nodes of a compiled graph's program (or of a program lowered from it), each
    saying what it is (tf8.compiler.names.input_text) and its aval."""
    bindings = compiled.bindings
    return [
        Input(
            slot,
            f"{input_text(key.input_key, slot, bound, bindings.get(key))}\n{aval}",
            bound,
            getattr(key.input_key, "kind", "tensor"),
        )
        for slot, (key, aval, bound) in enumerate(
            zip(compiled.inputs, program.input_avals, program.input_bound)
        )
    ]


@dataclass(frozen=True, slots=True)
class Cluster:
    """A box drawn around steps `start`..`stop - 1` of the top-level program."""

    label: str
    start: int
    stop: int
    kind: str = "region"


def payload_text(op: Any) -> str:
    """The op's parameters as its repr shows them between brackets ('' when it has none)."""
    text, name = repr(op), op.name
    if text.startswith(name + "[") and text.endswith("]"):
        text = text[len(name) + 1 : -1]
    elif text == name:
        return ""
    return text if len(text) <= PAYLOAD_CHARS else text[: PAYLOAD_CHARS - 1] + "…"


def op_label(step: Step) -> str:
    lines = [step.op.name]
    payload = payload_text(step.op)
    if payload:
        lines.append(payload)
    lines.extend(str(aval) for aval in step.out_avals)
    if step.note:
        lines.append(step.note)
    return "\n".join(lines)


class DotWriter:
    """Accumulates DOT lines; names nodes n0, n1, ... and clusters cluster_0, cluster_1, ...
    (the legend's: legend0, ... in cluster_legend). `gradient`: the program holds a
    gradient's seed, so its derivative ops are a backward pass (sub-program titles say so)."""

    def __init__(self, title: str, gradient: bool = False) -> None:
        self.lines = [
            "digraph program {",
            "  rankdir=TB;",
            f"  label={quote(title)}; labelloc=t; fontname=Helvetica;",
            "  node [fontname=Helvetica, fontsize=10];",
            '  edge [color="#666666", arrowsize=0.6];',
        ]
        self.edges: list[str] = []  # written after every node: an edge inside a cluster's
        self.nodes = 0  # braces would pull its nodes into that cluster
        self.clusters = 0
        self.gradient = gradient
        self.shown: set[str] = set()  # what the legend explains (LEGEND's keys)

    def node(self, label: str, style: str, indent: str) -> str:
        name = f"n{self.nodes}"
        self.nodes += 1
        self.lines.append(f"{indent}{name} [label={quote(label)}, {style}];")
        return name

    def edge(self, source: str, target: str, attributes: str = "") -> None:
        self.edges.append(f"  {source} -> {target}" + (f" [{attributes}];" if attributes else ";"))

    def open_cluster(self, label: str, kind: str, indent: str) -> str:
        name = f"cluster_{self.clusters}"
        self.clusters += 1
        self.shown.add(kind)
        self.lines.append(f"{indent}subgraph {name} {{")
        self.lines.append(f"{indent}  label={quote(label)}; {CLUSTER_STYLES[kind]}")
        return name

    def close_cluster(self, indent: str) -> None:
        self.lines.append(f"{indent}}}")

    def text(self) -> str:
        legend = legend_lines(self.shown)
        return "\n".join([*self.lines, *legend, *self.edges, "}"]) + "\n"

    def program(
        self,
        inputs: Sequence[Input],
        steps: Sequence[Step],
        outputs: Sequence[Hashable],
        clusters: Sequence[Cluster] = (),
        indent: str = "  ",
        output_labels: Sequence[str] | None = None,
        derivative: bool = False,
    ) -> None:
        """Draw a program: its inputs, then `steps`, then one output node per returned value
        (`output_labels` name them; else `output 0`, ...). Steps inside a cluster are drawn
        within it. `derivative`: every step computes derivatives (a backward sub-program)."""
        where: dict[Hashable, tuple[str, int, int]] = {}  # value → (node, output index, count)
        linear = [i.value for i in inputs if i.kind in LINEAR_LEAVES]
        flags = derivative_steps(linear, [step.wiring for step in steps])
        if derivative:
            flags = [True] * len(steps)
        any_derivative = any(flags)
        for i in inputs:
            style = INPUT_STYLE if i.bound else PLACEHOLDER_STYLE
            self.shown.add("bound" if i.bound else "placeholder")
            where[i.value] = (self.node(i.label, style, indent), 0, 1)
        starts = {c.start: c for c in clusters}
        inside_until = -1
        for index, (step, on_tangents) in enumerate(zip(steps, flags)):
            cluster = starts.get(index)
            if cluster is not None and index > inside_until:
                self.open_cluster(cluster.label, cluster.kind, indent)
                inside_until = cluster.stop - 1
            node_indent = indent + "  " if index <= inside_until else indent
            self.shown.update(legend_keys(step.op, step.role, on_tangents))
            style = op_style(step.op, step.role, on_tangents)
            node = self.node(op_label(step), style, node_indent)
            for position, value in enumerate(step.inputs):
                self._read(where, value, node, indent, position, len(step.inputs))
            for output, value in enumerate(step.outputs):
                where[value] = (node, output, len(step.outputs))
            subs = getattr(step.op, "subprograms", ())
            described = subprogram_descriptions(step.op)
            suffix = pass_word(on_tangents, any_derivative, self.gradient)
            for sub, description in zip(subs, described):
                self._subprogram(sub, description, suffix, on_tangents, node, indent)
            if index == inside_until:
                self.close_cluster(indent)
        for position, value in enumerate(outputs):
            label = output_labels[position] if output_labels else f"output {position}"
            self.shown.add("output")
            target = self.node(label, OUTPUT_STYLE, indent)
            self._read(where, value, target, indent, 0, 1)

    def _read(
        self,
        where: dict[Hashable, tuple[str, int, int]],
        value: Hashable,
        target: str,
        indent: str,
        position: int,
        count: int,
    ) -> None:
        found = where.get(value)
        if found is None:  # a value the program does not define (a captured constant)
            self.shown.add("bound")
            found = where[value] = (self.node("constant", INPUT_STYLE, indent), 0, 1)
        source, output, outputs = found
        labels = []
        if outputs > 1:
            labels.append(f"taillabel={quote(str(output))}")
        if count > 1:
            labels.append(f"headlabel={quote(str(position))}")
        self.edge(source, target, ", ".join([*labels, "fontsize=8"] if labels else []))

    def _subprogram(
        self,
        sub: Any,
        description: tuple[str, Sequence[str], Sequence[str]],
        suffix: str,
        derivative: bool,
        owner: str,
        indent: str,
    ) -> None:
        """A control op's sub-program as a cluster titled by what it is (`scan body
        (backward)`), its inputs and outputs by their roles (`carry[0]`, `x[0]`)."""
        title, in_roles, out_roles = description
        self.open_cluster(f"{title}{suffix}", "program", indent)
        first = self.nodes
        inputs = [
            Input(key, f"{role}\n{aval}", False, getattr(key.input_key, "kind", "body"))
            for key, aval, role in zip(sub.inputs, sub.in_avals, in_roles)
        ]
        steps = closed_program_steps(sub.outputs)
        self.program(inputs, steps, sub.outputs, (), indent + "  ", out_roles, derivative)
        self.close_cluster(indent)
        self.edge(owner, f"n{first}", 'style=dotted, arrowhead=none, color="#7f7f7f"')


def closed_program_steps(outputs: Sequence[ValueKey]) -> list[Step]:
    """The steps of the program computing `outputs` from their leaves, in execution order."""
    steps = []
    for op_key in materialize_merge(None, list(outputs)).operations:
        avals = tuple(op_key.meta[0]) if op_key.meta is not None else ()
        steps.append(Step(op_key.op, op_key.inputs, op_key.outputs, avals, op_key.role))
    return steps


def program_dot(
    title: str,
    inputs: Sequence[Input],
    steps: Sequence[Step],
    outputs: Sequence[Hashable],
    clusters: Sequence[Cluster] = (),
    output_labels: Sequence[str] | None = None,
) -> str:
    """The DOT text of one program (see DotWriter.program for the arguments); a program
    with a gradient's seed among its inputs calls its derivative ops the backward pass."""
    writer = DotWriter(title, gradient=any(i.kind == "seed" for i in inputs))
    writer.program(inputs, steps, outputs, clusters, output_labels=output_labels)
    return writer.text()


def compiled_dot(compiled: Any) -> str:
    """DOT of a CompiledGraph; roles are the graph's operations', which the compiler's
    instructions follow one to one."""
    program = compiled.program
    roles = list(compiled.roles)
    if len(roles) != len(program.instructions):
        roles = [PRIMARY] * len(program.instructions)
    steps = [
        Step(inst.op, inst.inputs, inst.outputs, _avals(program, inst.outputs), role)
        for inst, role in zip(program.instructions, roles)
    ]
    title = f"CompiledGraph {compiled.fingerprint.hex()[:16]}"
    inputs = program_inputs(compiled, program)
    return program_dot(title, inputs, steps, program.output_slots, (), compiled.output_names)


def _avals(program: Any, slots: Sequence[int]) -> tuple[Any, ...]:
    return tuple(program.slot_avals[s] for s in slots)


def dot_available() -> bool:
    """Whether Graphviz's `dot` program is on the PATH."""
    return shutil.which("dot") is not None


def can_draw() -> bool:
    """Whether `draw` works here: the `dot` program and the `graphviz` package are both there."""
    return dot_available() and importlib.util.find_spec("graphviz") is not None


def render(dot: str, path: str | Path | None = None, format: str = "svg") -> bytes:
    """Render DOT text with Graphviz; write it to `path` when given; return the bytes."""
    if not dot_available():
        raise MissingToolError(
            "drawing a program needs Graphviz's `dot` program, which is not on the PATH: "
            "install it with `apt install graphviz` (Debian/Ubuntu) or `brew install graphviz` "
            "(macOS); to_dot() gives the DOT text without it"
        )
    try:
        import graphviz
    except ImportError:
        raise MissingToolError(
            "drawing a program needs the `graphviz` Python package: `pip install graphviz` "
            "(or `pip install tf8[notebooks]`)"
        ) from None
    data = graphviz.Source(dot).pipe(format=format)
    if path is not None:
        Path(path).write_bytes(data)
    return data


class Drawable:
    """Mixin for programs with a `to_dot()`: `draw()` and notebook display."""

    __slots__ = ()

    def to_dot(self) -> str:
        raise NotImplementedError

    def draw(self, path: str | Path | None = None, format: str = "svg") -> bytes:
        """The program rendered by Graphviz (`format`: svg, png, pdf, ...), written to `path`
        when given. Raises MissingToolError when Graphviz's `dot` is not installed."""
        return render(self.to_dot(), path, format)

    def _repr_svg_(self) -> str | None:
        return self.draw().decode() if can_draw() else None

    def _repr_markdown_(self) -> str | None:
        return None if can_draw() else "```dot\n" + self.to_dot() + "```"
