"""Regression uncertainty: CRPS, PIT, quantile and interval scores."""
