"""Every public function validates its options (``validate_params``).

In the style of scikit-learn's ``sklearn/tests/test_public_functions.py``: for every
public function of the walked packages (their ``__all__``),

* it carries ``_skl_parameter_constraints`` (set by ``validate_params``; a wrapper is
  looked through via ``__wrapped__``) with a constraint for every parameter of its
  signature, and none for a parameter it does not have;
* a value of a type no constraint accepts raises a ``ValueError`` naming the parameter;
* for every constraint that is not plain ``"array-like"`` / ``"no_validation"``, an
  invalid value of an accepted type (``generate_invalid_param_val``) raises a
  ``ValueError`` naming the parameter.
"""

import importlib
import inspect

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skcalib.metrics import brier_score, compute_bin_stats
from skcalib.utils._sklearn_compat import (
    InvalidParameterError,
    generate_invalid_param_val,
    make_constraint,
)

#: packages whose public functions are checked
PUBLIC_MODULES = ["skcalib.metrics", "skcalib.compat.uncertainty_metrics"]


def _public_functions():
    seen = set()
    for modname in PUBLIC_MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            obj = getattr(module, name)
            if not inspect.isfunction(obj) or id(obj) in seen:
                continue  # classes, constants; aliases are checked once
            seen.add(id(obj))
            yield f"{modname}.{name}", obj


PUBLIC_FUNCTIONS = list(_public_functions())
IDS = [path for path, _ in PUBLIC_FUNCTIONS]


def _constraints(func):
    f = func
    while not hasattr(f, "_skl_parameter_constraints") and hasattr(f, "__wrapped__"):
        f = f.__wrapped__
    return getattr(f, "_skl_parameter_constraints", None)


def _parameters(func):
    """Named parameters of the signature (``inspect.signature`` follows ``__wrapped__``)."""
    sig = inspect.signature(func)
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return {name: p for name, p in sig.parameters.items() if p.kind not in kinds}


def _valid_value(constraints):
    """A value satisfying the first constraint (only validation runs before the error)."""
    if constraints == "no_validation":
        return 1
    constraint = make_constraint(constraints[0])
    candidates = [np.array([0.0, 1.0]), True, 1, 0.5, 2, 10, None, LogisticRegression()]
    candidates += [compute_bin_stats([0, 1], [0.2, 0.7]), "ece"]
    candidates += [brier_score]  # a metric, for the functions that take one
    candidates += sorted(getattr(constraint, "options", ()), key=str)
    for value in candidates:
        if constraint.is_satisfied_by(value):
            return value
    raise AssertionError(f"no valid value found for constraint {constraint}")


def test_public_functions_found():
    names = {path.rsplit(".", 1)[1] for path in IDS}
    assert {"brier_score", "negative_waic", "crps_normal", "gce", "ece"} <= names


@pytest.mark.parametrize("path, func", PUBLIC_FUNCTIONS, ids=IDS)
def test_function_has_constraints_for_every_parameter(path, func):
    constraints = _constraints(func)
    assert constraints is not None, f"{path} is not decorated with validate_params"
    params = set(_parameters(func))
    missing = params - set(constraints)
    unexpected = set(constraints) - params
    assert not missing, f"{path}: no constraint for the parameters {sorted(missing)}"
    assert not unexpected, f"{path}: constraints for unknown parameters {sorted(unexpected)}"


@pytest.mark.parametrize("path, func", PUBLIC_FUNCTIONS, ids=IDS)
def test_function_param_validation(path, func):
    constraints = _constraints(func)
    if constraints is None:
        pytest.fail(f"{path} is not decorated with validate_params")
    params = _parameters(func)
    required = {
        name: _valid_value(constraints[name])
        for name, p in params.items()
        if p.default is inspect.Parameter.empty and name in constraints
    }
    bad_type = type("BadType", (), {})()
    for name in params:
        spec = constraints.get(name, "no_validation")
        if spec == "no_validation":
            continue
        match = f"'{name}' parameter"
        # a value of a type that no constraint accepts
        with pytest.raises(InvalidParameterError, match=match):
            func(**{**required, name: bad_type})
        assert issubclass(InvalidParameterError, ValueError)
        # a value of an accepted type that is outside the allowed values
        for constraint in (make_constraint(c) for c in spec):
            if str(constraint) in ("an array-like",):
                continue
            try:
                bad_value = generate_invalid_param_val(constraint)
            except NotImplementedError:
                continue  # types, booleans, None, random_state: no invalid value exists
            with pytest.raises(ValueError, match=match):
                func(**{**required, name: bad_value})
