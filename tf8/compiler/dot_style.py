"""How pictures of programs look (tf8.compiler.dot): the styles of inputs, ops, outputs and
clusters, and the legend that explains them. Derivative ops have one colour everywhere (the
compiled and the prepared picture, top level and sub-programs alike)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tf8.graph import PRIMARY, OperationRole
from tf8.ops.extension import ExtensionOp

DERIVATIVE_COLOURS = 'fillcolor="#cfe3ff", color="#1f5fbf"'  # the one backward-pass blue
PRIMAL_STYLE = 'style="rounded,filled", fillcolor="#eeeeee", color="#555555"'
LINEARIZED_STYLE = f'style="rounded,filled,bold", {DERIVATIVE_COLOURS}'
TANGENT_STYLE = f'style="rounded,filled", {DERIVATIVE_COLOURS}'
INPUT_STYLE = 'shape=ellipse, style=filled, fillcolor="#fff4cc"'
PLACEHOLDER_STYLE = 'shape=ellipse, style="filled,dashed", fillcolor="#ffffff"'
OUTPUT_STYLE = 'shape=doubleoctagon, style=filled, fillcolor="#d9f2d9"'
CLUSTER_STYLES = {  # graph attributes: statements, so `;` between them
    "program": 'style="rounded,dashed"; color="#7f7f7f";',
    "region": 'style="rounded,filled"; fillcolor="#fdeee0"; color="#d9822b";',
    "legend": 'style="rounded"; color="#bbbbbb";',
}
# The legend: each thing a picture may show, in order, with the style that draws it.
LEGEND = {
    "placeholder": ("input (an argument the program takes)", PLACEHOLDER_STYLE),
    "bound": ("constant the program holds", INPUT_STYLE),
    "primal": ("forward op", f"shape=box, {PRIMAL_STYLE}"),
    "derivative": ("derivative op: backward pass, tangents", f"shape=box, {TANGENT_STYLE}"),
    "linearized": ("bold: emitted by linearization", f"shape=box, {LINEARIZED_STYLE}"),
    "extension": ("3-D box: extension op (linalg, FFT, control flow...)", "shape=box3d"),
    "output": ("output", OUTPUT_STYLE),
    "program": ("dashed box: a control op's sub-program", 'shape=box, style="rounded,dashed"'),
    "region": (
        "orange box: a fused region, or ops one engine compiled together",
        'shape=box, style="rounded,filled", fillcolor="#fdeee0", color="#d9822b"',
    ),
}


def quote(text: str) -> str:
    """`text` as a DOT string literal (labels break lines on `\\n`)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def op_style(op: Any, role: OperationRole, on_tangents: bool) -> str:
    """An op node's style: grey when primal, the derivative blue when it computes derivatives
    (bold when the linearisation emitted it), a 3-D box for an extension op."""
    shape = "box3d" if isinstance(op, ExtensionOp) else "box"
    if role is not PRIMARY:
        return f"shape={shape}, {LINEARIZED_STYLE}"
    return f"shape={shape}, {TANGENT_STYLE if on_tangents else PRIMAL_STYLE}"


def legend_keys(op: Any, role: OperationRole, on_tangents: bool) -> list[str]:
    """The LEGEND entries an op node shown with `op_style` needs."""
    keys = ["derivative" if on_tangents or role is not PRIMARY else "primal"]
    if role is not PRIMARY:
        keys.append("linearized")
    if isinstance(op, ExtensionOp):
        keys.append("extension")
    return keys


def legend_lines(shown: Iterable[str]) -> list[str]:
    """The legend cluster's DOT lines: one node per LEGEND entry in `shown`, in LEGEND's
    order, each drawn as the thing it explains (nodes legend0, legend1, ...)."""
    present = set(shown)
    lines = ["  subgraph cluster_legend {", f'    label="legend"; {CLUSTER_STYLES["legend"]}']
    for number, key in enumerate(k for k in LEGEND if k in present):
        text, style = LEGEND[key]
        lines.append(f"    legend{number} [label={quote(text)}, {style}];")
    return [*lines, "  }"]
