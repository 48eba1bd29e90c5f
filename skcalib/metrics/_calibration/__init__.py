"""Calibration errors: the binned ECE family and reliability curves, TFP-compatible
quantile bins, semiparametric and censored estimators, the smooth ECE, and the
statistical tests and intervals.
"""
