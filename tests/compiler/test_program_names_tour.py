"""The programs users meet first name their inputs and outputs (issue #30): README's tour,
the demo (`python -m tf8`) and the notebooks' programs show no counter-numbered name
(`placeholder7`, `seed9`, `cut5`, ...) in `pretty()` or in pictures, and show the parameter
names the code uses. README's and the notebooks' own code runs (in a subprocess, so their
definitions stay out of this process), with every listing and picture recorded.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from tf8.__main__ import main

ROOT = pathlib.Path(__file__).resolve().parents[2]
COUNTER_NAME = re.compile(r"\b(?:placeholder|seed|cut|argument|tangent|vmap|body|derived)\d+")
NOTEBOOKS = ["01_quickstart", "02_autodiff", "03_compile_pipeline", "04_extension_ops"]
NOTEBOOKS += ["05_control_flow"]  # the notebooks that print or draw programs

# Runs README's tour and the notebooks' code cells; records what every pretty() and
# to_dot() returned (and those of programs left in a variable: a notebook displays them).
RECORDER = r"""
import json, pathlib, re, sys
import matplotlib
matplotlib.use("Agg")
import nbformat
from tf8.compiler import CompiledGraph
from tf8.runtime import Prepared

shown = []
for cls in (CompiledGraph, Prepared):
    for method in ("pretty", "to_dot"):
        def recording(self, _original=getattr(cls, method)):
            text = _original(self)
            shown.append(text)
            return text
        setattr(cls, method, recording)

def run(source, name):
    namespace = {"__name__": "__" + name + "__"}
    start = len(shown)
    for code in source:
        exec(compile(code, name, "exec"), namespace)
    for value in list(namespace.values()):
        if isinstance(value, (CompiledGraph, Prepared)):
            value.pretty(), value.to_dot()
    return shown[start:]

root = pathlib.Path(sys.argv[1])
readme = (root / "README.md").read_text()
tour = readme.split("## A short tour", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
found = {"README": run([tour], "README")}
for stem in sys.argv[2:]:
    notebook = nbformat.read(root / "notebooks" / f"{stem}.ipynb", as_version=4)
    found[stem] = run([c.source for c in notebook.cells if c.cell_type == "code"], stem)
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def shown() -> dict[str, list[str]]:
    """What README's tour and each notebook printed or drew, per source."""
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", RECORDER, str(ROOT), *NOTEBOOKS],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def no_counter_names(texts: list[str]) -> None:
    for text in texts:
        found = COUNTER_NAME.findall(text)
        assert not found, f"counter-numbered names {found} in:\n{text}"


def test_readme_tour_programs_name_w_and_x(shown):
    texts = shown["README"]
    listings = [t for t in texts if t.startswith("CompiledGraph:")]
    pictures = [t for t in texts if t.startswith("digraph")]
    assert listings and pictures
    no_counter_names(texts)
    assert any("# input w" in t and "# input x" in t for t in listings)
    assert any('"grad[w]"' in t and 'label="w\\nfloat64(3, 2)"' in t for t in pictures)
    assert all("subgraph cluster_legend" in t for t in pictures)


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_notebook_programs_show_no_counter_names(shown, stem):
    texts = shown[stem]
    assert texts, f"{stem} shows no program"
    no_counter_names(texts)


def test_notebook_programs_show_the_parameter_names(shown):
    everything = {stem: "\n".join(shown[stem]) for stem in NOTEBOOKS}
    quickstart = everything["01_quickstart"]
    for name in ("params['w']", "params['b']", "X", "y"):
        assert f"# input {name}\n" in quickstart
    assert "grad[params['w']]" in quickstart
    assert "# input x\n" in everything["02_autodiff"]
    assert "# input 0\n" in everything["03_compile_pipeline"]  # an unnamed tf8.placeholder
    assert "# input x (bound)" in everything["03_compile_pipeline"]  # tf8.tensor(..., name="x")
    control = everything["05_control_flow"]
    assert '"W\\nfloat64(4, 4)"' in control and '"grad[W]"' in control
    assert '"scan body (forward)"' in control and '"scan body (backward)"' in control


def test_the_demo_names_w_x_and_b_in_both_programs(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert not COUNTER_NAME.findall(out), COUNTER_NAME.findall(out)
    forward, gradient = out.split("grad_W f", 1)
    for name in ("W", "x", "b"):
        assert f"# input {name} (bound)" in forward
        assert f"# input {name}\n" in gradient
    assert re.search(r"return %\d+ \(f\)", forward)
    assert "(grad[W])" in gradient and "constant: gradient seed = 1.0" in gradient
