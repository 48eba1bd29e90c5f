"""The example notebooks run headless, and the displays render inline in them.

Each notebook under examples/ is executed in a fresh IPython kernel (nbclient), with
the kernel's default (inline) matplotlib backend: a cell that ends with
``SomeDisplay.from_estimator(...)`` must have a PNG image among its outputs, as with
scikit-learn's displays.
"""

import ast
import os
import pathlib

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "examples").glob("*.ipynb"))


def test_there_is_a_notebook():
    assert [p.name for p in NOTEBOOKS] == ["displays.ipynb"]


def _ends_with_a_display(source):
    """Whether the cell's last statement is an expression ``SomeDisplay.from_...(...)``."""
    body = ast.parse(source).body
    if not body or not isinstance(body[-1], ast.Expr):
        return False
    call = body[-1].value
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr.startswith("from_")
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id.endswith("Display")
    )


def test_display_cell_detection():
    assert _ends_with_a_display("x = 1\nReliabilityDisplay.from_estimator(\n  a, b, c\n)")
    assert not _ends_with_a_display("disp = PITDisplay.from_estimator(a, b, c)")
    assert not _ends_with_a_display("ReliabilityDisplay.from_estimator(a, b, c)\nx = 1")


def _images(cell):
    return [o for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_and_shows_figures(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}  # the kernel's inline
    root = str(ROOT)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute(env=env)
    code = [c for c in nb.cells if c.cell_type == "code"]
    display_cells = [c for c in code if _ends_with_a_display(c.source)]
    assert display_cells
    for cell in code:
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, errors
    for cell in display_cells:
        images = _images(cell)
        assert len(images) == 1, cell.source
        png = images[0]["data"]["image/png"]
        assert len(png) > 10_000  # base64 of a real figure, not an empty canvas
