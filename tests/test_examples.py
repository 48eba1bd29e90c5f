"""Every script in examples/ runs to completion, offline, in a subprocess.

The scripts are the gallery of the documentation (sphinx-gallery runs them and shows
their figures): a ``plot_*`` example draws its figures and ends with ``plt.show()``.
Here each runs as the gallery runs it (Agg backend, ``plt.show`` does nothing), and the
figures a ``plot_*`` example leaves open are saved and checked to be real images.
New examples are picked up automatically.  ``plot_*`` examples are skipped when
matplotlib is not installed; temporary files go to pytest's temporary directory.
"""

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

EXAMPLES_DIR = pathlib.Path(__file__).resolve().parents[1] / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.py"))
TIMEOUT = 180  # seconds; each example is meant to run in a few seconds

# run a script as sphinx-gallery does, then save the figures it left open
RUNNER = """
import runpy, sys
script, out = sys.argv[1], sys.argv[2]
try:
    import matplotlib
except ImportError:
    plt = None
else:
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.show = lambda *args, **kwargs: None
runpy.run_path(script, run_name="__main__")
if plt is not None:
    for num in plt.get_fignums():
        path = f"{out}/figure_{num}.png"
        plt.figure(num).savefig(path, dpi=100)
        print(f"saved {path}")
"""


def test_examples_exist():
    names = {p.name for p in EXAMPLES}
    assert {
        "plot_reliability_diagram.py",
        "plot_pit_regression.py",
        "plot_report_from_csv.py",
    } <= names


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    if script.name.startswith("plot_") and importlib.util.find_spec("matplotlib") is None:
        pytest.skip("matplotlib is not installed")
    env = {**os.environ, "MPLBACKEND": "Agg", "TMPDIR": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, str(script), str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    if script.name.startswith("plot_"):
        # every plotting example draws a figure, which saves as a real PNG
        pngs = sorted(tmp_path.glob("figure_*.png"))
        assert pngs, f"{script.name} drew no figure"
        for png in pngs:
            assert f"saved {png}" in proc.stdout
            data = png.read_bytes()
            assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 20_000
