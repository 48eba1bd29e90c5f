"""The built documentation: complete, and rendered by a real browser without a fault.

The site is built once with ``sphinx-build -W`` (warnings are errors): CI builds it in
``.ci/run`` and names the output folder in ``SKCALIB_DOCS_HTML``; without that variable
this module builds the site itself into a temporary folder (skipped when the ``docs``
extra is not installed, except where ``SKCALIB_REQUIRE_DOCS`` is set, as in CI).

Checked on the built HTML:

* every public name (``__all__``) of every public module has its API page;
* every script of examples/ has its gallery page, with its figures (``plot_*``) and the
  script and the notebook to download; the example notebook was executed (its figures
  are on its page); the API page of a display shows the examples that use it;
* in headless Chromium, driven through the DevTools protocol over a pipe (standard
  library only), the index page, the gallery, one example and the notebook page render
  (a screenshot that is not blank), log no console error or uncaught exception, make no
  network request (every resource is a local file) and decode every image (natural size
  > 0).  Skipped when chromium is not installed, except where
  ``SKCALIB_REQUIRE_CHROMIUM`` is set (CI).
"""

import importlib
import inspect
import io
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

from tests.test_docs import API_MODULES

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
NOTEBOOKS = sorted((ROOT / "examples").glob("*.ipynb"))
BROWSER_PAGES = [
    "index.html",
    "auto_examples/index.html",
    "auto_examples/plot_reliability_diagram.html",
    "notebooks/displays.html",
    # formulas (MathJax, served with the site) and the examples using the function
    "generated/skcalib.metrics.expected_calibration_error.html",
]
BUILD_TIMEOUT = 900  # seconds


@pytest.fixture(scope="module")
def html():
    """The folder of the built site: ``SKCALIB_DOCS_HTML``, or a build made here."""
    given = os.environ.get("SKCALIB_DOCS_HTML")
    if given:
        path = pathlib.Path(given)
        assert (path / "index.html").is_file(), f"SKCALIB_DOCS_HTML={given} holds no site"
        yield path
        return
    missing = [
        name
        for name in ("sphinx", "sphinx_gallery", "myst_nb", "pydata_sphinx_theme", "numpydoc")
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        if os.environ.get("SKCALIB_REQUIRE_DOCS"):
            pytest.fail(f"SKCALIB_REQUIRE_DOCS is set but {missing} are not installed")
        pytest.skip(f"the docs extra is not installed ({missing})")
    out = pathlib.Path(tempfile.mkdtemp(prefix="skcalib-docs-"))
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", "doc", str(out)],
        cwd=ROOT,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        },
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
    )
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-5000:]
    yield out
    shutil.rmtree(out, ignore_errors=True)


# --------------------------------------------------------------------------------------
# the content of the built site
# --------------------------------------------------------------------------------------


def test_every_public_name_has_an_api_page(html):
    missing = []
    for modname in API_MODULES:
        try:
            module = importlib.import_module(modname)
        except ImportError:  # skcalib.dask without dask: its pages were built elsewhere
            continue
        for name in module.__all__:
            if name.startswith("__") or inspect.ismodule(getattr(module, name)):
                continue  # skcalib.__version__, and the subpackages of skcalib
            if not (html / "generated" / f"{modname}.{name}.html").is_file():
                missing.append(f"{modname}.{name}")
    assert not missing, f"no API page for {missing} (list them in doc/api.rst)"


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_has_its_gallery_page(html, script):
    page = html / "auto_examples" / f"{script.stem}.html"
    assert page.is_file(), f"{script.name} is not in the gallery"
    text = page.read_text(encoding="utf-8")
    # the script ran during the build: its output or figures are on the page
    assert "sphx-glr-script-out" in text or "sphx-glr-single-img" in text
    if script.name.startswith("plot_"):
        images = [i for i in text.split('src="../_images/')[1:] if i.startswith("sphx_glr_")]
        assert images, f"the gallery page of {script.name} shows no figure"
    for suffix in (".py", ".ipynb"):
        assert f"{script.stem}{suffix}" in text, f"no {suffix} download on {page.name}"
    downloads = {p.name for p in (html / "_downloads").rglob("*")}
    assert {f"{script.stem}.py", f"{script.stem}.ipynb"} <= downloads


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebooks_are_executed_by_the_build(html, notebook):
    import nbformat

    code_cells = [c for c in nbformat.read(notebook, as_version=4).cells if c.cell_type == "code"]
    assert all(not c.get("outputs") for c in code_cells), "commit notebooks without outputs"
    text = (html / "notebooks" / f"{notebook.stem}.html").read_text(encoding="utf-8")
    assert text.count("<img ") >= 4, "the notebook's figures are not on its page"
    assert "Traceback" not in text


def test_api_pages_show_the_examples_using_them(html):
    text = (html / "generated" / "skcalib.display.ReliabilityDisplay.html").read_text(
        encoding="utf-8"
    )
    assert "Examples using" in text
    assert "plot_reliability_diagram.html" in text


def test_readme_and_ci_build_the_docs_with_warnings_as_errors():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert 'pip install -e ".[docs]" && sphinx-build -W -b html doc doc/_build/html' in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m sphinx -W " in ci and "SKCALIB_DOCS_HTML=" in ci


# --------------------------------------------------------------------------------------
# headless Chromium (tests/_cdp.py)
# --------------------------------------------------------------------------------------

IMAGES_JS = """
(async () => {
  const images = Array.from(document.images);
  for (const img of images) { img.loading = "eager"; }
  await Promise.all(images.map((img) => img.decode().catch(() => null)));
  return images.map((img) => ({
    src: img.currentSrc || img.src,
    width: img.naturalWidth,
    height: img.naturalHeight,
  }));
})()
"""


# the number of formulas typeset by MathJax (-1 on a page without formulas)
MATH_JS = """
(async () => {
  if (!window.MathJax || !window.MathJax.startup) { return -1; }
  await window.MathJax.startup.promise;
  return document.querySelectorAll("mjx-container").length;
})()
"""


def _screenshot_pixels(data):
    """The screenshot as an (height, width, channels) float array."""
    import matplotlib.image

    return matplotlib.image.imread(io.BytesIO(data), format="png")


def _check_page(url, tmp_path):
    from tests._cdp import visit

    seen = visit(url, tmp_path / "profile", {"images": IMAGES_JS, "formulas": MATH_JS})
    assert url in seen.requested, "the page itself was not loaded"
    remote = seen.remote_requests()
    assert not remote, f"network requests from {url}: {remote}"
    assert not seen.errors, f"console errors on {url}: {seen.errors}"
    images = seen.values["images"]
    broken = [i for i in images if not (i["width"] > 0 and i["height"] > 0)]
    assert not broken, f"images not decoded on {url}: {broken}"
    return images, seen.values["formulas"], _screenshot_pixels(seen.screenshot)


@pytest.mark.parametrize("page", BROWSER_PAGES)
def test_page_renders_in_headless_chromium(html, page, tmp_path):
    pytest.importorskip("matplotlib")  # reads the screenshot
    import numpy as np

    path = html / page
    assert path.is_file()
    images, formulas, pixels = _check_page(path.resolve().as_uri(), tmp_path)
    if 'class="math' in path.read_text(encoding="utf-8"):
        assert formulas > 0, f"MathJax typeset no formula on {page}"
    assert pixels.shape[1] == 1280 and pixels.shape[0] > 500
    if os.environ.get("SKCALIB_DOCS_SCREENSHOTS"):  # to look at them
        import matplotlib.image

        out = pathlib.Path(os.environ["SKCALIB_DOCS_SCREENSHOTS"])
        out.mkdir(parents=True, exist_ok=True)
        matplotlib.image.imsave(out / (page.replace("/", "_") + ".png"), pixels)
    rgb = pixels[..., :3].reshape(-1, 3)
    # not blank: text and figures give many colours, and a good part of the page is ink
    assert len(np.unique((rgb * 255).round().astype(np.uint8), axis=0)) > 50
    assert (rgb.min(axis=1) < 0.5).mean() > 0.005
    if page != "index.html":
        assert images, f"{page} shows no image"
