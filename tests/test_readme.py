"""The README's promises: the two set-up commands, and code examples that run.

Every fenced ```python block of README.md whose first line starts with ``>>>`` is run as a
doctest, in order, sharing one namespace (like one interactive session), with the doctest
option flags of the package's own doctests (pyproject.toml: NORMALIZE_WHITESPACE,
ELLIPSIS, NUMBER).  The blocks are run by a pytest subprocess so that NUMBER has the
same meaning as in the docstrings.
"""

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

SETUP_COMMANDS = [
    "pip install . && skcalib report --demo",
    'pip install -e ".[test]" && python -m pytest',
]

FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


def fenced_blocks(text):
    """(language, body) of every fenced code block."""
    return [(m.group(1).lower(), m.group(2)) for m in FENCE.finditer(text)]


def doctest_blocks(text):
    return [
        body
        for lang, body in fenced_blocks(text)
        if lang in ("python", "py", "pycon") and body.lstrip().startswith(">>>")
    ]


def test_fence_parser():
    text = "a\n```bash\necho 1\n```\n\n```python\n>>> 1 + 1\n2\n```\n"
    assert fenced_blocks(text) == [("bash", "echo 1\n"), ("python", ">>> 1 + 1\n2\n")]
    assert doctest_blocks(text) == [">>> 1 + 1\n2\n"]


def test_setup_commands_present_verbatim():
    text = README.read_text(encoding="utf-8")
    bash_lines = [
        line.strip()
        for lang, body in fenced_blocks(text)
        if lang in ("bash", "sh", "shell", "console")
        for line in body.splitlines()
    ]
    for command in SETUP_COMMANDS:
        assert command in bash_lines, command
    # the set-up section shows exactly these two commands, in this order
    setup = text.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    commands = [
        line.strip()
        for lang, body in fenced_blocks(setup)
        for line in body.splitlines()
        if line.strip()
    ]
    assert commands == SETUP_COMMANDS


def test_readme_opens_with_what_skcalib_is_for():
    text = README.read_text(encoding="utf-8")
    assert text.startswith("# skcalib\n")
    first_section = text.split("\n## ", 1)[0]
    assert "calibration" in first_section and "scikit-learn" in first_section


def test_readme_doctests(tmp_path):
    blocks = doctest_blocks(README.read_text(encoding="utf-8"))
    if not blocks:
        pytest.skip("README.md has no doctest-style code blocks")
    # one text file, blocks separated by blank lines so that no output runs into the next
    # block; pytest's doctest runner gives the NUMBER flag its documented meaning
    session = tmp_path / "readme_session.txt"
    session.write_text("\n\n".join(b.rstrip("\n") for b in blocks) + "\n", encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-c",
            str(ROOT / "pyproject.toml"),
            "--rootdir",
            str(tmp_path),
            "-o",
            "addopts=",
            "--doctest-glob=*.txt",
            str(session),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "1 passed" in proc.stdout
