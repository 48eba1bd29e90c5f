"""Cache-sized chunks of rows: how the kernels read big arrays."""

from __future__ import annotations

__all__ = ["CHUNK_BYTES", "MIN_CHUNK_ROWS", "iter_row_chunks", "rows_per_chunk"]

#: Target size, in bytes, of one chunk of rows read by the chunked kernels: small enough
#: for the chunk and its temporaries (several arrays of the chunk's length) to stay in
#: the L2 cache of common CPUs.
CHUNK_BYTES = 1 << 18

#: Fewest rows of a chunk (wide rows: 1,000 float64 classes make 512 KiB chunks), so that
#: the fixed cost of the numpy calls on a chunk stays small against their work.
MIN_CHUNK_ROWS = 64


def rows_per_chunk(row_bytes, chunk_bytes=None):
    """Number of rows of ``row_bytes`` each in a chunk of :func:`iter_row_chunks`: those
    of ``chunk_bytes`` (default :data:`CHUNK_BYTES`), but at least :data:`MIN_CHUNK_ROWS`
    when no size is given, so that wide rows do not make the per-chunk overhead of numpy
    calls dominate."""
    if chunk_bytes is None:
        return max(MIN_CHUNK_ROWS, int(CHUNK_BYTES // max(int(row_bytes), 1)))
    return max(1, int(chunk_bytes // max(int(row_bytes), 1)))


def iter_row_chunks(n_rows, row_bytes, chunk_bytes=None):
    """Yield ``(start, stop)`` row ranges of about ``chunk_bytes`` each."""
    step = rows_per_chunk(row_bytes, chunk_bytes)
    for start in range(0, n_rows, step):
        yield start, min(start + step, n_rows)
