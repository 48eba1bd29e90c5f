"""Ensembles and Bayesian model comparison: PSIS-LOO, WAIC, ISCV, the uncertainty
decomposition, diversity, and the members of fitted scikit-learn ensembles.
"""
