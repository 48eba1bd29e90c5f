"""Calibration metrics of Dask collections: tree reductions of mergeable accumulators.

:func:`accumulate` (Dask arrays) and :func:`accumulate_dataframe` (Dask DataFrames, one
accumulator per group with ``by=``) compute one
:class:`~skcalib.streaming.CalibrationAccumulator` per chunk on the workers and merge them
in a tree: the predictions never leave the workers, only the accumulators (a few hundred
kilobytes each) travel.  Needs the ``dask`` extra (``pip install 'skcalib[dask]'``).
"""

from ._accumulate import accumulate, accumulate_dataframe

__all__ = ["accumulate", "accumulate_dataframe"]
