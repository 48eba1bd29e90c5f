"""Shared checks of the frozen results that unpack as their main values."""

import dataclasses
import pickle
from collections.abc import Mapping

import numpy as np
import pytest


def check_unpackable_result(res, cls, unpacked):
    """``res`` is a frozen ``cls`` that unpacks as the attributes ``unpacked``, in order.

    It is not a dict (unpacking a dict gives its keys), its names are read as
    attributes only, an attribute cannot be reassigned, and it survives a pickle.
    Returns the unpacked tuple.
    """
    assert type(res) is cls
    assert not isinstance(res, dict | Mapping)
    values = tuple(res)
    assert len(res) == len(values) == len(unpacked)
    for name, value in zip(unpacked, values, strict=True):
        assert not isinstance(value, str), f"{name} unpacked as a string: {value!r}"
        assert value is getattr(res, name), name
    with pytest.raises(TypeError):
        res[unpacked[0]]  # a name is not a key
    assert not hasattr(res, "keys")
    first = dataclasses.fields(res)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(res, first, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.not_a_field = 1
    assert pickle.loads(pickle.dumps(res)) == res
    assert repr(res).startswith(f"{cls.__name__}({first}=")
    return values


def assert_same_values(a, b):
    """Equal floats or arrays (NaN equal to NaN)."""
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
