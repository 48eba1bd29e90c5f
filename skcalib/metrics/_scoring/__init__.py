"""Proper scoring rules for classification: Brier score and its decompositions, log-likelihood."""
