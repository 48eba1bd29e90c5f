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


def test_bench_scale_times_the_report_on_a_dask_cluster():
    pytest.importorskip("distributed")
    proc = subprocess.run(
        [sys.executable, "bench_scale.py", "--quick", "--repeat", "1", "--dask", "2"],
        cwd=BENCH_DIR,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [line for line in proc.stdout.splitlines() if "report on 2 Dask workers" in line]
    assert len(rows) == 2  # one per size
    assert all("ratio" in line and "peak RSS" not in line for line in rows)


def test_bench_scale_times_the_report_by_groups():
    proc = subprocess.run(
        [sys.executable, "bench_scale.py", "--quick", "--repeat", "1", "--groups", "50"],
        cwd=BENCH_DIR,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [line for line in proc.stdout.splitlines() if "report --by g (50 groups)" in line]
    assert len(rows) == 3  # one per size, and the memory line
    assert all("ratio" in line and "peak RSS" in line for line in rows)
