"""Smoke test: every benchmark script runs in its --quick mode (no timing assertions)."""

import pathlib
import subprocess
import sys

import pytest

BENCH_DIR = pathlib.Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(BENCH_DIR.glob("bench_*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_benchmark_quick_mode_runs(script):
    proc = subprocess.run(
        [sys.executable, str(script), "--quick", "--repeat", "1"],
        cwd=BENCH_DIR,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "ratio" in proc.stdout
