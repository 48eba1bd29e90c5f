"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe``.

Chromium reads the protocol's JSON messages from file descriptor 3 and writes its
answers and events to descriptor 4, each message ended by a NUL byte; nothing listens on
a port and no package beyond the standard library is needed.
"""

import json
import os
import select
import subprocess
import time


class Browser:
    """A headless Chromium driven over the DevTools pipe (use as a context manager)."""

    def __init__(self, executable, flags, timeout=60):
        self.timeout = timeout
        to_r, self._to_w = os.pipe()
        self._from_r, from_w = os.pipe()

        def child():  # fd 3: the commands, fd 4: the answers and events
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)

        self.proc = subprocess.Popen(
            [executable, *flags, "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=child,
            pass_fds=(3, 4),
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
            self.send("Browser.close")
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
                raise TimeoutError("no answer from chromium")
            ready, _, _ = select.select([self._from_r], [], [], left)
            if ready:
                chunk = os.read(self._from_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None):
        """Send a command and return its result (events met meanwhile are recorded)."""
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_w, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
            self.events.append(answer)

    def wait_for(self, method):
        """Wait for an event (or return it if it already came)."""
        deadline = time.monotonic() + self.timeout
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            event = self._read_message(deadline)
            self.events.append(event)
            if event.get("method") == method:
                return event
