"""Headless Chromium for the tests that open a page in a real browser (the HTML report,
the documentation site), driven over the Chrome DevTools protocol on a pipe.

Chromium, started with ``--remote-debugging-pipe``, reads the protocol's JSON commands
on its file descriptor 3 and writes its answers and events on descriptor 4, each message
ended by a NUL byte: nothing listens on a port and no package beyond the standard
library is needed.  :func:`visit` loads one page and returns what a reader would see
and what the page did: the values of JavaScript expressions, a screenshot, the console
errors and every URL it requested.
"""

import base64
import dataclasses
import fcntl
import json
import os
import select
import shutil
import subprocess
import time

import pytest

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]
#: URL schemes that stay on the machine
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")


def chromium_or_skip():
    """The chromium executable; a skip where it is not installed, a failure where
    ``SKCALIB_REQUIRE_CHROMIUM`` is set (CI installs it)."""
    if CHROMIUM is None:
        if os.environ.get("SKCALIB_REQUIRE_CHROMIUM"):
            pytest.fail("SKCALIB_REQUIRE_CHROMIUM is set but chromium is not installed")
        pytest.skip("chromium is not installed")
    return CHROMIUM


def _above_10(fd):
    """A copy of the descriptor numbered 10 or more (the original is closed), so that
    putting the child's ends on 3 and 4 cannot overwrite one of them."""
    copy = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return copy


class Browser:
    """A headless Chromium driven over the DevTools pipe (a context manager)."""

    def __init__(self, executable, user_data_dir, timeout=60):
        self.timeout = timeout
        to_r, self._to_w = (_above_10(fd) for fd in os.pipe())
        self._from_r, from_w = (_above_10(fd) for fd in os.pipe())

        def child():  # fd 3: the commands, fd 4: the answers and events
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)

        self.proc = subprocess.Popen(
            [
                executable,
                *FLAGS,
                f"--user-data-dir={user_data_dir}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=child,
            pass_fds=(3, 4),  # kept open after child() put the pipe ends there
        )
        os.close(to_r)
        os.close(from_w)
        self._buffer = b""
        self._id = 0
        self.events = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.send("Browser.close", timeout=10)
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_w)
        os.close(self._from_r)

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from chromium")
            ready, _, _ = select.select([self._from_r], [], [], left)
            if ready:
                chunk = os.read(self._from_r, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"chromium closed the pipe (exit {self.proc.poll()})")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None, timeout=None):
        """Send a command and return its result (events met meanwhile are kept)."""
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_w, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
            self.events.append(answer)

    def wait_for(self, method):
        """Wait for an event (or find it among those already received)."""
        deadline = time.monotonic() + self.timeout
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self._read_message(deadline))

    def drain(self, quiet=1.0, timeout=15):
        """Collect events until none has come for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.events.append(self._read_message(min(deadline, time.monotonic() + quiet)))
            except TimeoutError:
                return


@dataclasses.dataclass
class Visit:
    """What :func:`visit` saw: ``values`` of the expressions (by name), the ``screenshot``
    (PNG bytes), the console ``errors`` (uncaught exceptions, ``console.error`` and
    ``console.assert``, errors in the browser log) and every URL ``requested``."""

    values: dict
    screenshot: bytes
    errors: list
    requested: list

    def remote_requests(self):
        """The requests that would leave the machine."""
        return [u for u in self.requested if not u.startswith(LOCAL_SCHEMES)]


def visit(url, profile_dir, expressions=None, *, width=1280, height=1024):
    """Load ``url`` in headless Chromium (a ``width`` x ``height`` viewport), let it
    settle, evaluate the JavaScript ``expressions`` (name -> source; a promise is
    awaited) and take a screenshot.  Skips where chromium is missing."""
    executable = chromium_or_skip()
    with Browser(executable, profile_dir) as browser:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.send(f"{domain}.enable", session=session)
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        browser.events.clear()  # only what the page does
        browser.send("Page.navigate", {"url": url}, session=session)
        browser.wait_for("Page.loadEventFired")
        browser.drain()
        values = {
            name: browser.send(
                "Runtime.evaluate",
                {"expression": source, "awaitPromise": True, "returnByValue": True},
                session=session,
            )["result"].get("value")
            for name, source in (expressions or {}).items()
        }
        shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
        browser.drain(quiet=0.5)
        events = list(browser.events)
    errors = [
        e["params"]
        for e in events
        if e.get("method") == "Runtime.exceptionThrown"
        or (
            e.get("method") == "Runtime.consoleAPICalled"
            and e["params"]["type"] in ("error", "assert")
        )
        or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")
    ]
    requested = [
        e["params"]["request"]["url"]
        for e in events
        if e.get("method") == "Network.requestWillBeSent"
    ]
    return Visit(values, base64.b64decode(shot["data"]), errors, requested)
