"""Calibration metrics of Dask collections, by Dask's own tree reductions.

:func:`accumulate` (Dask arrays, through :func:`dask.array.reduction`) and
:func:`accumulate_dataframe` (Dask DataFrames, through ``DataFrame.reduction``; one
accumulator per group with ``by=``) turn each block of rows into the core's calibration
statistics on the worker that holds it and merge them in a tree: the predictions never
leave the workers, only the statistics (a few kilobytes to a few hundred) travel, and the
classes of a binary problem are found in the same pass.  The result is a
:class:`~skcalib.streaming.CalibrationAccumulator`.  Needs the ``dask`` extra
(``pip install 'skcalib[dask]'``).
"""

from ._accumulate import accumulate, accumulate_dataframe

__all__ = ["accumulate", "accumulate_dataframe"]
