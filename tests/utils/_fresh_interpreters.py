"""Run Python snippets, each in an interpreter that has imported nothing of
scikit-learn or skcalib, without starting a new interpreter for each.

:func:`run_fresh` starts one interpreter (this file, run as ``python -c`` runs a
snippet) that imports the libraries ``import sklearn`` itself imports before any module
of its own (numpy, scipy, pandas where installed, joblib, threadpoolctl: none of them
imports scikit-learn or skcalib), checks that no module of scikit-learn or skcalib is
loaded, and then forks one child per snippet.  Each child starts from that state with
its own environment variables and runs its snippet as ``python -c`` would; its exit
status, standard output and standard error come back.  The import order of
scikit-learn and skcalib in a snippet is therefore the snippet's own, as in a new
interpreter; only the seconds spent importing numpy, scipy and pandas are shared.
Where ``os.fork`` is missing (Windows), each snippet runs in its own ``python -c``.
"""

import contextlib
import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import traceback

#: what ``import sklearn`` imports first (``sklearn.utils.fixes`` imports pandas where
#: it is installed): imported once, before the children fork
BELOW_SKLEARN = (
    "numpy",
    "scipy.linalg",
    "scipy.optimize",
    "scipy.sparse",
    "scipy.special",
    "scipy.stats",
    "joblib",
    "threadpoolctl",
)
IF_INSTALLED = ("pandas",)

#: children running at the same time
PARALLEL = max(1, min(4, os.cpu_count() or 1))


def run_fresh(snippets, *, env=None, timeout=600):
    """Run each snippet in a fresh interpreter state.

    Parameters
    ----------
    snippets : dict of str to (str, dict)
        ``{name: (code, environment variables)}``; the environment replaces the
        interpreter's whole environment, as ``subprocess.run(env=...)`` does.
    env : dict, default=None
        The environment of the interpreter that imports numpy, scipy and pandas and
        forks the children (what those libraries read when imported, such as
        ``OPENBLAS_NUM_THREADS``, is read from it); this process's by default.
    timeout : float
        Seconds for all of them together.

    Returns
    -------
    dict of str to subprocess.CompletedProcess
        The exit status, standard output and standard error of each snippet.
    """
    return FreshInterpreters(snippets, env=env).results(timeout=timeout)


class FreshInterpreters:
    """:func:`run_fresh` started in the background: the snippets run while the caller
    goes on; :meth:`results` waits for them (and :meth:`close` stops them)."""

    def __init__(self, snippets, *, env=None):
        self.names = list(snippets)
        self._results = None
        if not hasattr(os, "fork"):  # pragma: no cover - Windows: one interpreter each
            self._snippets, self._proc = snippets, None
            return
        with open(__file__, encoding="utf-8") as f:
            server = f.read()
        jobs = [[name, code, dict(env_)] for name, (code, env_) in snippets.items()]
        fd, self._jobs_path = tempfile.mkstemp(suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(jobs, f)
        # its own process group: close() stops the children with it
        self._proc = subprocess.Popen(
            [sys.executable, "-c", server, self._jobs_path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,
        )

    def results(self, timeout=600):
        """``{name: CompletedProcess}`` of every snippet, once they all ended."""
        if self._results is not None:
            return self._results
        if self._proc is None:  # pragma: no cover - Windows
            self._results = {
                name: subprocess.run(
                    [sys.executable, "-c", code],
                    capture_output=True,
                    text=True,
                    env=env,
                    timeout=timeout,
                )
                for name, (code, env) in self._snippets.items()
            }
            return self._results
        try:
            out, err = self._proc.communicate(timeout=timeout)
        finally:
            self.close()
        if self._proc.returncode != 0:
            raise RuntimeError(f"the interpreter running the snippets failed:\n{err}")
        results = json.loads(out)
        self._results = {
            name: subprocess.CompletedProcess(name, *results[name]) for name in self.names
        }
        return self._results

    def close(self):
        """Stop the snippets that still run, and remove the file that lists them."""
        if self._proc is None:  # pragma: no cover - Windows
            return
        if self._proc.poll() is None:
            os.killpg(self._proc.pid, signal.SIGKILL)  # the server and its children
            self._proc.communicate()
        with contextlib.suppress(FileNotFoundError):
            os.remove(self._jobs_path)


def _child(code, env, out_path, err_path):  # pragma: no cover - runs in the child
    status = 1
    try:
        os.environ.clear()
        os.environ.update(env)
        sys.argv = ["-c"]
        for fd, path in ((1, out_path), (2, err_path)):
            opened = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(opened, fd)
            os.close(opened)
        namespace = {"__name__": "__main__", "__builtins__": __builtins__}
        exec(compile(code, "<string>", "exec"), namespace)
        status = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            status = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)


def _serve():  # pragma: no cover - runs in the interpreter run_fresh starts
    for name in BELOW_SKLEARN:
        importlib.import_module(name)
    for name in IF_INSTALLED:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("sklearn", "skcalib"))
    if loaded:
        raise RuntimeError(f"imported before the snippets: {loaded}")
    with open(sys.argv[1], encoding="utf-8") as f:
        jobs = json.load(f)
    results, running = {}, {}
    with tempfile.TemporaryDirectory() as tmp:

        def wait_one():
            pid, wait_status = os.wait()
            name, out_path, err_path = running.pop(pid)
            with open(out_path, encoding="utf-8", errors="replace") as out:
                with open(err_path, encoding="utf-8", errors="replace") as err:
                    code = os.waitstatus_to_exitcode(wait_status)
                    results[name] = [code, out.read(), err.read()]

        for i, (name, code, env) in enumerate(jobs):
            while len(running) >= PARALLEL:
                wait_one()
            paths = (os.path.join(tmp, f"{i}.out"), os.path.join(tmp, f"{i}.err"))
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _child(code, env, *paths)
            running[pid] = (name, *paths)
        while running:
            wait_one()
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    _serve()
