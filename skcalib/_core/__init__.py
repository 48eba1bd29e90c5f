"""The private core of skcalib: input validation (once, at the public boundary), the
sufficient statistics of every binned number, the one binning rule, and the array
namespace helpers (numpy is one namespace among others).

Everything else in skcalib imports from here; this package imports only the
scikit-learn compatibility layer (:mod:`skcalib.utils._sklearn_compat`).
"""
