"""The documentation sources under doc/ stay complete and correct.

These checks need no Sphinx (tests/test_docs_build.py builds the site with the ``docs``
extra and checks it in a browser):

* doc/conf.py runs and enables autodoc, autosummary, numpydoc, sphinx-gallery (the
  examples/ folder) and myst-nb, and intersphinx only when asked (it needs the network);
* every public name (``__all__``) of every public module is listed in doc/api.rst, and
  every listed name exists;
* every page is reachable from a toctree of doc/index.rst;
* the pages parse as reStructuredText (docutils, with Sphinx's directives and roles
  stubbed; skipped when docutils is not installed);
* the ``>>>`` examples of every page run, with the doctest flags of the package's
  docstrings (a pytest subprocess with --doctest-glob);
* every output README.md shows is checked: its Python blocks are all doctests (run by
  tests/test_readme.py), and its sample output of ``skcalib report --demo`` is the output
  of the command, run here.
"""

import importlib
import inspect
import io
import pathlib
import platform
import re
import runpy
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "doc"
README = ROOT / "README.md"
PAGES = sorted(DOC.glob("*.rst"))
API_MODULES = [
    "skcalib",
    "skcalib.metrics",
    "skcalib.compat.uncertainty_metrics",
    "skcalib.report",
    "skcalib.display",
    "skcalib.recalibration",
    "skcalib.streaming",
    "skcalib.dask",
]


def test_conf_py_runs_and_configures_extensions(monkeypatch):
    monkeypatch.delenv("SKCALIB_DOCS_INTERSPHINX", raising=False)
    conf = runpy.run_path(str(DOC / "conf.py"))
    ext = conf["extensions"]
    for name in (
        "sphinx.ext.autodoc",
        "sphinx.ext.autosummary",
        "sphinx.ext.mathjax",
        "numpydoc",
        "sphinx_gallery.gen_gallery",
        "myst_nb",
    ):
        assert name in ext
    assert conf["html_theme"] == "pydata_sphinx_theme"
    assert conf["autosummary_generate"] is True
    gallery = conf["sphinx_gallery_conf"]
    assert pathlib.Path(gallery["examples_dirs"]) == ROOT / "examples"
    assert gallery["doc_module"] == ("skcalib",) and gallery["backreferences_dir"]
    # offline by default: no inventories to download
    assert "sphinx.ext.intersphinx" not in ext
    monkeypatch.setenv("SKCALIB_DOCS_INTERSPHINX", "1")
    assert "sphinx.ext.intersphinx" in runpy.run_path(str(DOC / "conf.py"))["extensions"]
    import skcalib

    assert conf["release"] == skcalib.__version__


def _api_entries():
    """{module: [names]} listed under autosummary directives of doc/api.rst."""
    entries = {}
    module = None
    in_summary = False
    for line in (DOC / "api.rst").read_text(encoding="utf-8").splitlines():
        m = re.match(r"\.\. currentmodule:: (\S+)", line)
        if m:
            module = m.group(1)
            continue
        if line.startswith(".. autosummary::"):
            in_summary = True
            continue
        if in_summary:
            if line.strip() == "" or line.strip().startswith(":"):
                continue
            if line.startswith("   "):
                entries.setdefault(module, []).append(line.strip())
                continue
            in_summary = False
    return entries


def test_api_reference_lists_every_public_name():
    entries = _api_entries()
    for modname in API_MODULES:
        mod = importlib.import_module(modname)
        listed = entries.get(modname, [])
        public = {
            name
            for name in mod.__all__
            # skcalib.__version__ and the subpackages of skcalib have no API page
            if not (name.startswith("__") or inspect.ismodule(getattr(mod, name)))
        }
        missing = sorted(public - set(listed))
        assert not missing, f"doc/api.rst does not list {modname}: {missing}"
        for name in listed:
            assert hasattr(mod, name), f"doc/api.rst lists {modname}.{name}, which does not exist"
        assert len(listed) == len(set(listed)), f"duplicates in the {modname} listing"


def test_every_page_is_in_a_toctree():
    text = (DOC / "index.rst").read_text(encoding="utf-8")
    entries = set()
    for block in re.findall(r"\.\. toctree::\n((?:[ \t]+.*\n|\n)+)", text):
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith(":"):
                entries.add(line)
    pages = {p.stem for p in PAGES} - {"index"}
    assert pages - entries == set(), "pages missing from the toctrees of doc/index.rst"
    assert {"calibration", "report", "api", "changelog"} <= entries


SPHINX_DIRECTIVES = [
    "toctree",
    "autosummary",
    "currentmodule",
    "automodule",
    "autofunction",
    "autoclass",
    "automethod",
    "autodata",
    "autoattribute",
    "module",
    "versionadded",
    "versionchanged",
    "deprecated",
    "seealso",
    "plot",
    "literalinclude",
    "code-block",
    "sourcecode",
    "doctest",
    "testcode",
    "testoutput",
    "only",
    "glossary",
    "index",
    "program",
    "option",
    "highlight",
    "py:function",
    "py:class",
    "function",
    "class",
    "data",
    "tab-set",
]
SPHINX_ROLES = [
    "func",
    "class",
    "mod",
    "meth",
    "attr",
    "ref",
    "doc",
    "obj",
    "data",
    "exc",
    "term",
    "py:func",
    "py:class",
    "py:mod",
    "py:meth",
    "py:obj",
    "program",
    "option",
    "envvar",
    "file",
    "command",
    "kbd",
    "samp",
    "numref",
    "any",
    "eq",
]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_is_valid_restructuredtext(page):
    pytest.importorskip("docutils")
    import docutils.core
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles

    class AnyOptions(dict):
        def __contains__(self, key):
            return True

        def __getitem__(self, key):
            return directives.unchanged

    class Stub(Directive):
        has_content = True
        optional_arguments = 20
        final_argument_whitespace = True
        option_spec = AnyOptions()

        def run(self):
            return []

    def stub_role(name, rawtext, text, lineno, inliner, options=None, content=None):
        return [nodes.literal(rawtext, text)], []

    for name in SPHINX_DIRECTIVES:
        directives.register_directive(name, Stub)
    for name in SPHINX_ROLES:
        roles.register_local_role(name, stub_role)
    messages = io.StringIO()
    docutils.core.publish_doctree(
        page.read_text(encoding="utf-8"),
        source_path=str(page),
        settings_overrides={
            "warning_stream": messages,
            "report_level": 2,
            "halt_level": 5,
            "file_insertion_enabled": False,
        },
    )
    assert messages.getvalue() == "", messages.getvalue()


def test_doc_pages_doctests():
    if not any(">>>" in p.read_text(encoding="utf-8") for p in PAGES):
        pytest.skip("no doctests in doc/")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "--doctest-glob=*.rst",
            *[str(p) for p in PAGES],
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-8000:] + proc.stderr[-2000:]


# --------------------------------------------------------------------------------------
# README.md: every output it shows is checked
# --------------------------------------------------------------------------------------

FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
DEMO_COMMAND = "skcalib report --demo --out skcalib-report"


def _readme_blocks():
    """(language, body) of every fenced code block of README.md."""
    text = README.read_text(encoding="utf-8")
    return [(m.group(1).lower(), m.group(2)) for m in FENCE.finditer(text)]


def _demo_block():
    blocks = [
        body
        for lang, body in _readme_blocks()
        if lang == "text" and body.startswith("skcalib report --demo:")
    ]
    assert len(blocks) == 1, "README.md shows the output of skcalib report --demo once"
    return blocks[0]


def test_every_readme_block_is_a_command_a_doctest_or_the_demo_output():
    # a block of any other kind would show an output that no test checks
    for lang, body in _readme_blocks():
        if lang in ("bash", "sh"):
            continue  # commands (the set-up commands are checked by tests/test_readme.py)
        if lang in ("python", "py", "pycon"):
            assert body.lstrip().startswith(">>>"), (
                "every Python block of README.md is a doctest (tests/test_readme.py runs "
                f"them); this one is not:\n{body[:300]}"
            )
            continue
        assert lang == "text" and body == _demo_block(), (
            f"README.md block of kind {lang!r} is not checked by a test:\n{body[:300]}"
        )


def _numbers_close(readme_line, actual_line, tolerance):
    """The lines are equal up to numbers that differ by at most ``tolerance``."""
    number = r"-?\d+\.\d+"
    if re.sub(number, "#", readme_line) != re.sub(number, "#", actual_line):
        return False
    pairs = zip(re.findall(number, readme_line), re.findall(number, actual_line), strict=True)
    return all(abs(float(a) - float(b)) <= tolerance for a, b in pairs)


def test_readme_demo_output_is_what_the_command_prints(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")  # the block shows the reliability diagrams written
    import sklearn

    from skcalib.__main__ import main

    text = README.read_text(encoding="utf-8")
    # the paragraph above the block's opening fence
    before = text[: text.index(_demo_block())].rstrip("\n")
    intro = before.rsplit("\n", 1)[0].rsplit("\n\n", 1)[-1]
    assert f"`{DEMO_COMMAND}`" in intro, "the block says which command printed it"
    stated = re.search(r"\(scikit-learn (\d+\.\d+), x86-64", intro)
    assert stated, "the block says which scikit-learn version printed it"
    monkeypatch.chdir(tmp_path)  # the command writes skcalib-report/ and says so
    assert main(DEMO_COMMAND.split()[1:]) == 0
    actual = capsys.readouterr().out.splitlines()
    shown = _demo_block().splitlines()
    assert len(shown) == len(actual), "\n".join(actual)
    exact = sklearn.__version__.startswith(stated.group(1) + ".") and platform.machine() in (
        "x86_64",
        "AMD64",
    )
    for readme_line, actual_line in zip(shown, actual, strict=True):
        if exact:
            # the version and platform the README names: every line exactly as printed
            assert readme_line == actual_line
        else:
            # "other versions may differ in the last digits"
            assert _numbers_close(readme_line, actual_line, 5e-3), (readme_line, actual_line)


def test_numbers_close():
    assert _numbers_close("a  0.0318  1.2", "a  0.0320  1.2", 5e-3)
    assert not _numbers_close("a  0.0265  1.2", "a  0.0318  1.2", 5e-3)
    assert not _numbers_close("a 0.1", "b 0.1", 1.0)
    assert not _numbers_close("a 0.1", "a 0.1 0.2", 1.0)


def test_readme_links_the_benchmark_notes():
    text = README.read_text(encoding="utf-8")
    assert "[benchmarks/README.md](benchmarks/README.md)" in text
    notes = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    assert notes.startswith("# ")
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        assert script.name in notes, f"benchmarks/README.md does not describe {script.name}"
