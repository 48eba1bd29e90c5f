"""matplotlib is imported only by skcalib.display, and only when something is drawn."""

import ast
import pathlib
import subprocess
import sys

import skcalib

PACKAGE_DIR = pathlib.Path(skcalib.__file__).resolve().parent
PLOTTING = ("matplotlib", "mpl_toolkits")


def test_importing_the_displays_does_not_import_matplotlib():
    code = (
        "import sys, skcalib, skcalib.display, skcalib.report, skcalib.__main__; "
        "from skcalib.display import ReliabilityDisplay, PITDisplay, "
        "ConfidenceHistogramDisplay, RejectionDisplay, RegressionCalibrationDisplay, "
        "PredictionIntervalDisplay; "
        "sys.exit('matplotlib' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0


def _plotting_imports(source):
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in PLOTTING]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module.split(".")[0] in PLOTTING:
                found.append(node.module)
    return found


def test_matplotlib_is_imported_only_inside_the_display_package():
    users = {
        str(p.relative_to(PACKAGE_DIR))
        for p in PACKAGE_DIR.rglob("*.py")
        if _plotting_imports(p.read_text(encoding="utf-8"))
    }
    assert users, "the display package draws with matplotlib"
    assert all(u.startswith("display/") for u in users), sorted(users)


def test_the_checker_sees_lazy_imports():
    src = "def f():\n    import matplotlib.pyplot as plt\n    from mpl_toolkits import x\n"
    assert _plotting_imports(src) == ["matplotlib.pyplot", "mpl_toolkits"]
    assert _plotting_imports("from .matplotlib import x\nimport numpy") == []


def test_display_depends_only_on_metrics_the_core_and_the_compat_layer():
    from tests.test_architecture import _import_graph, _package_sources, _within

    graph = _import_graph(_package_sources())
    for module, targets in graph.items():
        if not _within(module, "skcalib.display"):
            continue
        outside = {
            t
            for t in targets
            if not any(
                _within(t, p) for p in ("skcalib.display", "skcalib.metrics", "skcalib._core")
            )
            and not _within(t, "skcalib.utils")
            and t != "skcalib"
        }
        assert not outside, f"{module} imports {sorted(outside)}"
    # and neither metrics nor the core depends on the displays
    for module, targets in graph.items():
        if _within(module, "skcalib.metrics") or _within(module, "skcalib._core"):
            assert not any(_within(t, "skcalib.display") for t in targets), module
