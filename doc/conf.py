"""Sphinx configuration of the skcalib documentation.

Build with::

    pip install -e ".[docs]"
    sphinx-build -W -b html doc doc/_build/html

The build runs offline and is warning-free (``-W`` turns a warning into an error):

* ``examples/*.py`` become the gallery (sphinx-gallery): each script runs during the
  build, its figures and printed output appear on its page, and the page offers the
  script and a Jupyter notebook for download.  The API pages show a mini-gallery of the
  examples that use them (``doc/_templates/autosummary/``).
* ``examples/displays.ipynb`` is executed by the build (myst-nb), so its figures appear
  on the site; outputs are never committed.
* MathJax is copied into the site (sphinx-mathjax-offline): the pages load nothing
  from the network.
* Cross-references to Python, numpy, scipy, scikit-learn, matplotlib and pandas
  (intersphinx) are resolved only when ``SKCALIB_DOCS_INTERSPHINX=1`` is set, which needs
  the network to download the projects' inventories.  Without it (the default, and in
  CI, which reaches only the package index) such references render as code and do not
  warn (``nitpicky = False``), so the build never waits for a network that is not there.
"""

import datetime
import os
import shutil
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parent
ROOT = DOC.parent
# document the checkout this file belongs to, even when skcalib is not installed (the
# gallery's scripts run in this process; setup() below does the same for the kernel
# that executes the notebook)
sys.path.insert(0, str(ROOT))

import skcalib  # noqa: E402

# -- project ---------------------------------------------------------------------------
project = "skcalib"
author = "skcalib developers"
copyright = f"{datetime.date.today().year}, {author}"
release = skcalib.__version__
version = ".".join(release.split(".")[:2])

# -- general ---------------------------------------------------------------------------
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax served from _static/mathjax, not from a CDN: the site works offline
    "sphinx-mathjax-offline",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_nb",
]

root_doc = "index"
source_suffix = {".rst": "restructuredtext", ".ipynb": "myst-nb"}
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    # written by sphinx-gallery next to each example page; the notebook of the gallery
    # is a download, not a page of its own
    "auto_examples/*.ipynb",
    "**.py.md5",
    "**.codeobj.json",
    "**.zip",
]
templates_path = ["_templates"]
default_role = "literal"
nitpicky = False

autosummary_generate = True
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_typehints = "none"  # the numpydoc "Parameters" sections are the reference
add_module_names = False

numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# -- cross-references to other projects (only when asked: needs the network) ----------
intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "scipy": ("https://docs.scipy.org/doc/scipy", None),
    "sklearn": ("https://scikit-learn.org/stable", None),
    "matplotlib": ("https://matplotlib.org/stable", None),
    "pandas": ("https://pandas.pydata.org/docs", None),
}
intersphinx_timeout = 10
if os.environ.get("SKCALIB_DOCS_INTERSPHINX") == "1":
    extensions.append("sphinx.ext.intersphinx")

# -- the gallery -----------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    # run every script, not only plot_*.py: the text-only examples show their output
    "filename_pattern": r"\.py$",
    "ignore_pattern": r"__init__\.py",
    # the API pages list the examples that use each function and class
    "doc_module": ("skcalib",),
    "backreferences_dir": "generated/backreferences",
    "reference_url": {"skcalib": None},
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "download_all_examples": True,
    "remove_config_comments": True,
    "show_memory": False,
    # the computation-times pages load jQuery and DataTables from the network
    "write_computation_times": False,
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    # no links to Binder or JupyterLite: the site works offline
    "binder": {},
    "jupyterlite": None,
    "recommender": {"enable": False},
}

# -- the notebook (myst-nb) ------------------------------------------------------------
# examples/displays.ipynb is committed without outputs and executed by every build
NOTEBOOKS = {"displays.ipynb"}
NOTEBOOK_DIR = DOC / "notebooks"  # a copy made by the build (ignored by git)
nb_execution_mode = "force"
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True
myst_enable_extensions = ["dollarmath"]
suppress_warnings = ["myst.header"]


def _copy_notebooks(app):
    """Copy the example notebooks into the source tree, where Sphinx finds them."""
    NOTEBOOK_DIR.mkdir(exist_ok=True)
    for name in NOTEBOOKS:
        src, dst = ROOT / "examples" / name, NOTEBOOK_DIR / name
        if not dst.exists() or dst.read_bytes() != src.read_bytes():
            shutil.copyfile(src, dst)


def _skip_metadata_routing(app, what, name, obj, skip, options):
    """Leave out ``set_fit_request`` & co.: scikit-learn generates them on every estimator
    (their docstrings point into scikit-learn's own user guide)."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    # the notebook's kernel is another process: it imports this checkout too, and draws
    # with its inline backend (a MPLBACKEND=Agg of the caller would leave the notebook
    # without figures; sphinx-gallery selects Agg for the scripts by itself)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p
    )
    os.environ.pop("MPLBACKEND", None)
    # before the sources are read (sphinx-gallery writes its pages at the same event)
    app.connect("builder-inited", _copy_notebooks)
    app.connect("autodoc-skip-member", _skip_metadata_routing)


# -- HTML ------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"skcalib {release}"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": False,
    "header_links_before_dropdown": 4,
    # no icon links or version switcher: they would fetch from the network
    "icon_links": [],
}
# without a default the theme's script logs "Got invalid theme mode" as a console error
html_context = {"default_mode": "auto"}
html_sidebars = {"changelog": []}
html_show_sourcelink = False
