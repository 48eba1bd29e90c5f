"""Calibration across groups and over time: the cumulative calibration error and its
test, per-group tables, multicalibration over segments, and a sequential test."""
