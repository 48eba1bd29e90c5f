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


def _quick_rows(option, value, label):
    """The lines of ``bench_scale.py --quick`` with ``option value`` that name ``label``."""
    proc = subprocess.run(
        [sys.executable, "bench_scale.py", "--quick", "--repeat", "1", option, value],
        cwd=BENCH_DIR,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [line for line in proc.stdout.splitlines() if label in line]


def test_bench_scale_times_the_report_on_a_dask_cluster():
    pytest.importorskip("distributed")
    rows = _quick_rows("--dask", "2", "report on 2 Dask workers")
    assert len(rows) == 2  # one per size
    assert all("ratio" in line and "peak RSS" not in line for line in rows)


def test_bench_scale_times_the_report_by_groups():
    rows = _quick_rows("--groups", "50", "report --by g (50 groups)")
    assert len(rows) == 3  # one per size, and the memory line
    assert all("ratio" in line and "peak RSS" in line for line in rows)
