"""The import structure of skcalib, checked by parsing every module with ``ast``.

Every import counts, including those inside functions (a lazy import is still an
edge: it runs, later).  Importing ``a.b.c`` also runs the packages ``a.b`` and ``a``
unless the importer is inside them already, so those are edges too.

* the import graph between skcalib modules has no cycle;
* the scikit-learn compatibility layer (``skcalib.utils``) is the bottom layer:
  ``skcalib.utils._sklearn_compat`` imports nothing from skcalib, and the rest of the
  layer imports only the layer;
* the private core (``skcalib._core``) imports only itself and that layer; the modules
  of ``skcalib.metrics`` import only ``skcalib.metrics``, the core and that layer;
* no module other than ``skcalib.utils._sklearn_compat`` imports a private scikit-learn
  module or reads a private scikit-learn name;
* ``import skcalib`` does not import matplotlib.

The checkers are tested on synthetic sources too, so that a broken checker fails.
"""

from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

import skcalib

PACKAGE_DIR = pathlib.Path(skcalib.__file__).resolve().parent
COMPAT = "skcalib.utils._sklearn_compat"
BOTTOM = "skcalib.utils"  # the compatibility layer: this package and its modules
CORE = "skcalib._core"  # validation, statistics, binning, namespace helpers
METRICS = "skcalib.metrics"
RECALIBRATION = "skcalib.recalibration"

#: private attributes of scikit-learn objects that skcalib reads or overrides (through
#: the compatibility layer only): the scorer registry, a scorer's state and scoring hook,
#: the constraints stored by ``validate_params``
PRIVATE_SKLEARN_ATTRIBUTES = frozenset(
    {"_SCORERS", "_score", "_score_func", "_response_method", "_skl_parameter_constraints"}
)


# --------------------------------------------------------------------------------------
# parsing
# --------------------------------------------------------------------------------------


def _is_private(part):
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def _within(name, package):
    return name == package or name.startswith(package + ".")


def _package_sources(root=PACKAGE_DIR, package="skcalib"):
    """{module name: (source, is_package)} of every module of the package."""
    sources = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        name = ".".join([package, *parts])
        sources[name] = (path.read_text(encoding="utf-8"), is_package)
    return sources


def _resolve(module, is_package, node):
    """The absolute module name of an ``ImportFrom`` node."""
    if not node.level:
        return node.module
    base = module if is_package else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{node.module}" if node.module else base


def _imported(module, source, is_package, known):
    """The modules that ``module`` imports, anywhere in its source (absolute names)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node)
            found.add(base)
            for alias in node.names:  # ``from package import submodule``
                if f"{base}.{alias.name}" in known:
                    found.add(f"{base}.{alias.name}")
    return found


def _import_graph(sources, package="skcalib"):
    """{module: set of modules of the package that importing it runs}."""
    known = set(sources)
    graph = {}
    for module, (source, is_package) in sources.items():
        inside = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 2)}
        edges = set()
        for target in _imported(module, source, is_package, known):
            if not _within(target, package):
                continue
            parts = target.split(".")
            for i in range(1, len(parts) + 1):  # the target and the packages it runs
                name = ".".join(parts[:i])
                if name in known and name not in inside:
                    edges.add(name)
        graph[module] = edges
    return graph


def _find_cycle(graph):
    """One cycle ``[a, b, ..., a]`` of the directed graph, or None."""
    state = {}  # 1: on the current path, 2: done
    path = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def _private_sklearn_uses(source):
    """``(line, what)`` for every private scikit-learn module or name the source uses."""
    tree = ast.parse(source)
    bound = set()  # local names bound to scikit-learn modules or objects
    uses = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _within(alias.name, "sklearn"):
                    if any(_is_private(p) for p in alias.name.split(".")):
                        uses.append((node.lineno, f"import {alias.name}"))
                    bound.add(alias.asname or "sklearn")
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if _within(node.module, "sklearn"):
                if any(_is_private(p) for p in node.module.split(".")):
                    uses.append((node.lineno, f"from {node.module} import ..."))
                for alias in node.names:
                    if _is_private(alias.name):
                        uses.append((node.lineno, f"from {node.module} import {alias.name}"))
                    bound.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            sklearn_rooted = isinstance(root, ast.Name) and root.id in bound
            if (_is_private(node.attr) and sklearn_rooted) or (
                node.attr in PRIVATE_SKLEARN_ATTRIBUTES
            ):
                uses.append((node.lineno, f".{node.attr}"))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"getattr", "setattr", "hasattr", "delattr"}
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            target, attr = node.args[0], node.args[1].value
            while isinstance(target, ast.Attribute):
                target = target.value
            sklearn_rooted = isinstance(target, ast.Name) and target.id in bound
            if (_is_private(attr) and sklearn_rooted) or attr in PRIVATE_SKLEARN_ATTRIBUTES:
                uses.append((node.lineno, f"{node.func.id}(..., {attr!r})"))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if (
                    isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                    and item.name in PRIVATE_SKLEARN_ATTRIBUTES
                ):
                    uses.append((item.lineno, f"def {node.name}.{item.name}"))
    return sorted(set(uses))


SOURCES = _package_sources()
GRAPH = _import_graph(SOURCES)


# --------------------------------------------------------------------------------------
# skcalib
# --------------------------------------------------------------------------------------


def test_the_package_is_parsed():
    for module in (COMPAT, BOTTOM, METRICS, "skcalib", "skcalib.metrics._scorer"):
        assert module in GRAPH, module
    # known edges, including one inside a function (skcalib/__init__.py registers the
    # scorer names from a function) and the packages an import runs
    assert "skcalib.metrics._calibration._binned" in GRAPH["skcalib.metrics._scorer"]
    assert COMPAT in GRAPH["skcalib.metrics._calibration._binned"]
    assert "skcalib._core._binning" in GRAPH["skcalib.metrics._calibration._binned"]
    assert "skcalib.metrics._registration" in GRAPH["skcalib"]
    assert "skcalib.metrics._scorer" in GRAPH["skcalib.metrics._registration"]
    assert {"skcalib.metrics._registration", "skcalib.metrics._scorer"} <= GRAPH[METRICS]


def test_no_import_cycle():
    assert _find_cycle(GRAPH) is None, " -> ".join(_find_cycle(GRAPH))


def test_the_compat_layer_is_the_bottom_layer():
    assert GRAPH[COMPAT] == set(), f"{COMPAT} imports {sorted(GRAPH[COMPAT])}"
    for module, edges in GRAPH.items():
        if _within(module, BOTTOM):
            outside = sorted(e for e in edges if not _within(e, BOTTOM))
            assert not outside, f"{module} imports {outside}"


def test_the_core_imports_only_the_core_and_the_compat_layer():
    assert CORE in GRAPH
    for module, edges in GRAPH.items():
        if _within(module, CORE):
            other = sorted(e for e in edges if not (_within(e, CORE) or _within(e, BOTTOM)))
            assert not other, f"{module} imports {other}"


def test_metrics_import_only_metrics_the_core_and_the_compat_layer():
    allowed = (METRICS, CORE, BOTTOM)
    for module, edges in GRAPH.items():
        if _within(module, METRICS):
            other = sorted(e for e in edges if not any(_within(e, a) for a in allowed))
            assert not other, f"{module} imports {other}"
        elif _within(module, CORE) or _within(module, BOTTOM):
            back = sorted(e for e in edges if _within(e, METRICS))
            assert not back, f"{module} imports {back}"


def test_recalibration_depends_on_metrics_and_never_the_reverse():
    assert RECALIBRATION in GRAPH
    allowed = (RECALIBRATION, METRICS, CORE, BOTTOM)
    for module, edges in GRAPH.items():
        if _within(module, RECALIBRATION):
            other = sorted(e for e in edges if not any(_within(e, a) for a in allowed))
            assert not other, f"{module} imports {other}"
        else:
            back = sorted(e for e in edges if _within(e, RECALIBRATION))
            if any(_within(module, a) for a in (METRICS, CORE, BOTTOM)):
                assert not back, f"{module} imports {back}"
    # the binning calibrators are built on the metrics core
    assert "skcalib._core._binning" in GRAPH["skcalib.recalibration._histogram"]
    assert "skcalib._core._validation" in GRAPH["skcalib.recalibration._base"]


def test_streaming_depends_on_metrics_and_never_the_reverse():
    streaming = "skcalib.streaming"
    assert streaming in GRAPH
    allowed = (streaming, METRICS, CORE, BOTTOM)
    for module, edges in GRAPH.items():
        if _within(module, streaming):
            other = sorted(e for e in edges if not any(_within(e, a) for a in allowed))
            assert not other, f"{module} imports {other}"
        elif any(_within(module, a) for a in (METRICS, CORE, BOTTOM)):
            back = sorted(e for e in edges if _within(e, streaming))
            assert not back, f"{module} imports {back}"
    # the accumulator is built on the one binning core
    assert "skcalib._core._binning" in GRAPH["skcalib.streaming._accumulator"]


def test_only_the_compat_layer_touches_private_sklearn_names():
    offenders = {
        module: uses
        for module, (source, _) in SOURCES.items()
        if module != COMPAT and (uses := _private_sklearn_uses(source))
    }
    assert not offenders, offenders
    # and the compat module is where they are (the checker sees them)
    seen = {what for _, what in _private_sklearn_uses(SOURCES[COMPAT][0])}
    assert "from sklearn.utils._param_validation import ..." in seen
    assert {"getattr(..., '_SCORERS')", "getattr(..., '_skl_parameter_constraints')"} <= seen
    assert "def ScorerBase._score" in seen


def test_import_skcalib_does_not_import_matplotlib():
    code = "import sys, skcalib; print(sorted(m for m in sys.modules if 'matplotlib' in m))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=PACKAGE_DIR.parent,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------------------
# the checkers fail on bad code
# --------------------------------------------------------------------------------------


def _graph_of(files):
    sources = {
        name: (textwrap.dedent(src), name.endswith("__init__")) for name, src in files.items()
    }
    sources = {(name.removesuffix(".__init__")): value for name, value in sources.items()}
    return _import_graph(sources, package="pkg")


def test_cycle_checker_finds_a_lazy_import_circle():
    # the shape skcalib had: _guard -> _scorer (inside a function) -> _metric -> _guard
    graph = _graph_of(
        {
            "pkg.__init__": "from . import _scorer\n",
            "pkg._guard": """
                def message():
                    from ._scorer import names
                    return names()
            """,
            "pkg._metric": "from ._guard import message\n",
            "pkg._scorer": "from ._metric import metric\n",
        }
    )
    assert graph["pkg._guard"] == {"pkg._scorer"}
    cycle = _find_cycle(graph)
    assert cycle is not None and cycle[0] == cycle[-1]
    assert set(cycle) == {"pkg._guard", "pkg._scorer", "pkg._metric"}
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert _find_cycle({"a": {"a"}}) == ["a", "a"]


def test_graph_counts_the_packages_an_import_runs():
    graph = _graph_of(
        {
            "pkg.__init__": "from .core import f\n",
            "pkg.core.__init__": "from ._impl import f\n",
            "pkg.core._impl": "from ..util import helper\n",  # runs pkg.util too
            "pkg.util.__init__": "from pkg.core import f\n",  # a circle through packages
            "pkg.util.helper": "",
        }
    )
    assert graph["pkg.core._impl"] == {"pkg.util", "pkg.util.helper"}
    assert "pkg" not in graph["pkg.core._impl"]  # already running
    assert _find_cycle(graph) is not None


@pytest.mark.parametrize(
    "source",
    [
        "from sklearn.metrics._scorer import _SCORERS",
        "import sklearn.metrics._scorer",
        "from sklearn.metrics import _scorer",
        "import sklearn\nx = sklearn.metrics._scorer",
        "import sklearn.metrics as m\nx = m._scorer._SCORERS",
        "from sklearn import metrics\nx = getattr(metrics, '_scorer')",
        "def f(scorer):\n    return scorer._score_func",
        "def f(metric):\n    return getattr(metric, '_skl_parameter_constraints', None)",
        "class S(Base):\n    def _score(self, method_caller, estimator, X, y_true, **kw):\n"
        "        pass",
        "def f():\n    from sklearn.utils._param_validation import validate_params",
    ],
)
def test_private_sklearn_checker_flags(source):
    assert _private_sklearn_uses(source)


def test_private_sklearn_checker_passes_public_use():
    source = """
        import numpy as np
        import sklearn
        from sklearn.metrics import make_scorer
        from sklearn.utils import Bunch
        from ..utils._sklearn_compat import validate_params

        class Scorer:
            def score_estimator(self, method_caller, estimator, X, y_true, **kwargs):
                return self._own_helper(sklearn.get_config())
    """
    assert _private_sklearn_uses(textwrap.dedent(source)) == []


# --------------------------------------------------------------------------------------
# the sources themselves: clean text, one version
# --------------------------------------------------------------------------------------

REPO = PACKAGE_DIR.parent
#: folders whose text files are scanned, and the files of the repository's top level
SOURCE_DIRS = ("skcalib", "tests", "doc", "examples", "benchmarks", ".ci")
TEXT_SUFFIXES = frozenset({".py", ".pyi", ".rst", ".md", ".toml", ".cfg", ".txt", ".ipynb"})
#: control characters other than newline and tab (carriage return and form feed
#: included: the sources use Unix line ends), DEL, the C1 controls and the Unicode
#: line and paragraph separators, which editors hide and ``str.splitlines`` splits on
CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _text_files(root=REPO):
    files = [p for p in root.iterdir() if p.is_file() and p.suffix in TEXT_SUFFIXES]
    for folder in SOURCE_DIRS:
        for path in sorted((root / folder).rglob("*")):
            inner = path.relative_to(root / folder).parts
            if any(p.startswith(".") or p in ("_build", "__pycache__") for p in inner):
                continue  # caches, build outputs, notebook checkpoints
            if path.is_file() and (path.suffix in TEXT_SUFFIXES or folder == ".ci"):
                files.append(path)
    return sorted(files)


def _control_characters(text):
    """``(line number, column, repr of the character)`` of every control character."""
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        for match in CONTROL_CHARACTERS.finditer(line):
            found.append((number, match.start() + 1, repr(match.group())))
    return found


def test_text_files_found():
    names = {p.relative_to(REPO).as_posix() for p in _text_files()}
    for name in (
        "README.md",
        "pyproject.toml",
        "skcalib/metrics/_ensembles/_members.py",
        "tests/test_architecture.py",
        "doc/index.rst",
        "benchmarks/bench_calibration.py",
    ):
        assert name in names, name


def test_no_control_characters_in_the_sources():
    # e.g. "\bigl" and "\varepsilon" in a non-raw docstring become a backspace and a
    # vertical tab, which render as nothing (or garbage) in the documentation
    bad = {}
    for path in _text_files():
        found = _control_characters(path.read_bytes().decode("utf-8"))
        if found:
            bad[path.relative_to(REPO).as_posix()] = found[:5]
    assert not bad, f"control characters (line, column, character): {bad}"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ok\ttab\nnext line\n", []),
        ('r"""\\bigl"""\n"""\bigl \varepsilon"""\n', [(2, 4, "'\\x08'"), (2, 9, "'\\x0b'")]),
        ("windows\r\nline\n", [(1, 8, "'\\r'")]),
        ("a\x0cb\x00c\x1bd\x7fe\x85f\u2028", [(1, c, None) for c in (2, 4, 6, 8, 10, 12)]),
    ],
)
def test_control_character_checker(text, expected):
    found = _control_characters(text)
    assert [(line, col) for line, col, _ in found] == [(line, col) for line, col, _ in expected]
    for (_, _, char), (_, _, expected_char) in zip(found, expected, strict=True):
        assert expected_char is None or char == expected_char


def _pyproject():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        tomllib = pytest.importorskip("tomli")
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_is_written_once():
    # pyproject.toml reads it from skcalib/__init__.py (setuptools parses the literal
    # assignment without importing skcalib, so building needs no numpy)
    project = _pyproject()["project"]
    assert "version" not in project
    assert "version" in project["dynamic"]
    dynamic = _pyproject()["tool"]["setuptools"]["dynamic"]
    assert dynamic["version"] == {"attr": "skcalib.__version__"}
    tree = ast.parse((PACKAGE_DIR / "__init__.py").read_text(encoding="utf-8"))
    literals = [
        node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets] == ["__version__"]
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ]
    assert literals == [skcalib.__version__]


def test_installed_metadata_has_the_package_version():
    from importlib.metadata import version

    assert version("skcalib") == skcalib.__version__
