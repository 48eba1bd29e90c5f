"""A one-line progress indicator on stderr for long ``skcalib report`` runs.

Shown only when the stream is a terminal and the work has taken longer than
``delay`` seconds, so that short runs, pipes, log files and tests see nothing.
"""

from __future__ import annotations

import sys
import time

__all__ = ["Progress"]


class Progress:
    """Rows done (of the total when known) and the rate, redrawn in place.

    Parameters
    ----------
    total : int or None
        Number of rows expected, when known (Parquet metadata gives it for free).
    stream : file-like, default=None
        Where to draw (default ``sys.stderr``); nothing is drawn unless
        ``stream.isatty()`` is true.
    delay : float, default=2.0
        Seconds of work before the first line is drawn.
    interval : float, default=0.2
        Least seconds between two redraws.
    clock : callable, default=time.monotonic
        Source of the time, in seconds.

    Examples
    --------
    >>> import io
    >>> p = Progress(total=1000, stream=io.StringIO())   # not a terminal: quiet
    >>> p.update(500).close()
    >>> p.stream.getvalue()
    ''
    """

    def __init__(self, total=None, *, stream=None, delay=2.0, interval=0.2, clock=time.monotonic):
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.done = 0
        self.start = clock()
        self._last_draw = None
        self._width = 0
        try:
            self.enabled = bool(self.stream.isatty())
        except (AttributeError, ValueError):  # closed or unusual streams
            self.enabled = False

    def update(self, n_rows):
        """Count ``n_rows`` more rows done; redraw when due. Returns self."""
        self.done += int(n_rows)
        if not self.enabled:
            return self
        now = self.clock()
        if now - self.start < self.delay:
            return self
        if self._last_draw is not None and now - self._last_draw < self.interval:
            return self
        self._draw(now)
        return self

    def line(self, now=None):
        """The text of the progress line."""
        now = self.clock() if now is None else now
        elapsed = max(now - self.start, 1e-9)
        text = f"skcalib report: {self.done:,} rows"
        if self.total:
            text += f" of {self.total:,} ({100 * self.done / self.total:.0f}%)"
        text += f", {_rate(self.done / elapsed)} rows/s"
        return text

    def _draw(self, now):
        text = self.line(now)
        pad = " " * max(self._width - len(text), 0)
        self.stream.write("\r" + text + pad)
        self.stream.flush()
        self._width = len(text)
        self._last_draw = now

    def close(self):
        """Finish the line (with the final count) when anything was drawn."""
        if self._last_draw is not None:
            self._draw(self.clock())
            self.stream.write("\n")
            self.stream.flush()
            self._last_draw = None


def _rate(r):
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if r >= div:
            return f"{r / div:.1f}{unit}"
    return f"{r:.0f}"
