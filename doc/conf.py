"""Sphinx configuration of the skcalib documentation.

Build with ``pip install sphinx numpydoc && sphinx-build -b html doc doc/_build/html``
(Sphinx is not a dependency of skcalib; numpydoc is optional: without it the numpydoc
docstrings are rendered by ``sphinx.ext.napoleon``).
"""

import datetime
import importlib.util
import os
import sys

# document the checkout this file belongs to, even when skcalib is not installed
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

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
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
]
if importlib.util.find_spec("numpydoc") is not None:
    extensions.append("numpydoc")
    numpydoc_show_class_members = False
    numpydoc_class_members_toctree = False
else:
    extensions.append("sphinx.ext.napoleon")
    napoleon_google_docstring = False
    napoleon_numpy_docstring = True
    napoleon_use_rtype = False

root_doc = "index"
source_suffix = {".rst": "restructuredtext"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path = []
default_role = "literal"
nitpicky = False

autosummary_generate = True
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_typehints = "none"  # the numpydoc "Parameters" sections are the reference
add_module_names = False

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "scipy": ("https://docs.scipy.org/doc/scipy", None),
    "sklearn": ("https://scikit-learn.org/stable", None),
    "matplotlib": ("https://matplotlib.org/stable", None),
    "pandas": ("https://pandas.pydata.org/docs", None),
}
intersphinx_timeout = 10

# -- HTML ------------------------------------------------------------------------------
_HAS_PYDATA = importlib.util.find_spec("pydata_sphinx_theme") is not None
html_theme = "pydata_sphinx_theme" if _HAS_PYDATA else "alabaster"
html_title = f"skcalib {release}"
html_static_path = []
