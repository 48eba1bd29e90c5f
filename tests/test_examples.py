"""Every script in examples/ runs to completion, offline, in a subprocess.

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


def test_examples_exist():
    names = {p.name for p in EXAMPLES}
    assert {"plot_reliability_diagram.py", "plot_pit_regression.py", "report_from_csv.py"} <= names


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    if script.name.startswith("plot_") and importlib.util.find_spec("matplotlib") is None:
        pytest.skip("matplotlib is not installed")
    env = {**os.environ, "MPLBACKEND": "Agg", "TMPDIR": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    if script.name.startswith("plot_"):
        # every plotting example writes its figure, a real PNG, where it says it does
        pngs = sorted(tmp_path.rglob("*.png"))
        assert pngs, f"{script.name} wrote no PNG"
        for png in pngs:
            assert f"saved {png}" in proc.stdout
            data = png.read_bytes()
            assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 20_000
