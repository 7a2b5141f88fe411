"""The notebooks execute (nbclient on an ipykernel) and README's code runs: docs cannot drift.

Each notebook runs top to bottom in a fresh kernel whose working directory is the repository
root (so it imports this checkout's tf8) with matplotlib's Agg backend; any cell error fails
the test. The committed notebooks carry no outputs.
"""

from __future__ import annotations

import copy
import pathlib
import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
EXPECTED = [
    "01_quickstart",
    "02_autodiff",
    "03_compile_pipeline",
    "04_extension_ops",
    "05_control_flow",
    "06_fitting",
    "07_performance",
]
CELL_TIMEOUT_S = 300


def execute(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Run every cell in a fresh python3 kernel at the repository root; raises
    CellExecutionError at the first cell that fails."""
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT)}},
    )
    client.execute()
    return notebook


@pytest.fixture
def agg_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel inherits the environment: no display, no GUI backend."""
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # quiet ipykernel's debugger


def test_the_notebooks_are_the_listed_tutorials():
    assert [p.stem for p in NOTEBOOKS] == EXPECTED
    assert not list((ROOT / "notebooks").glob("*.py")), "one source of truth: the .ipynb files"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: pathlib.Path, agg_backend: None):
    notebook = execute(nbformat.read(path, as_version=4))
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(cell.execution_count is not None for cell in code)
    assert any(cell.outputs for cell in code)  # each notebook shows its results


def test_a_broken_cell_fails_the_notebook_test(tmp_path: pathlib.Path, agg_backend: None):
    notebook = nbformat.read(NOTEBOOKS[0], as_version=4)
    broken = nbformat.v4.new_code_cell("raise ValueError('deliberately broken')")
    notebook.cells.insert(2, broken)  # after the imports, so the test stays short
    copy_path = tmp_path / "broken.ipynb"
    nbformat.write(notebook, copy_path)
    with pytest.raises(CellExecutionError, match="deliberately broken"):
        execute(nbformat.read(copy_path, as_version=4))
    assert notebook.cells[1].execution_count is None  # the copy written was not executed


def executed_cells(notebook: nbformat.NotebookNode) -> list[int]:
    """Indices of the code cells that carry outputs or an execution count."""
    return [
        index
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None)
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebooks_carry_no_outputs(path: pathlib.Path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert executed_cells(notebook) == [], f"{path.name}: strip the outputs of these cells"
    assert "widgets" not in notebook.metadata


def test_the_no_outputs_check_sees_outputs():
    notebook = copy.deepcopy(nbformat.read(NOTEBOOKS[0], as_version=4))
    index = next(i for i, c in enumerate(notebook.cells) if c.cell_type == "code")
    notebook.cells[index].outputs = [nbformat.v4.new_output("stream", name="stdout", text="x")]
    assert executed_cells(notebook) == [index]


def test_readme_python_blocks_run():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README.md has no python example"
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
