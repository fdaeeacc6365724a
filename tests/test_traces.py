"""The traces package: torch-free, one freezing base (``@trace``), one face over the topics."""

from __future__ import annotations

import dataclasses
import importlib
import os
import pickle
import subprocess
import sys
from dataclasses import FrozenInstanceError
from pathlib import Path

import numpy as np
import pytest

import models.traces
from models.traces import Progress, trace

ROOT = Path(__file__).resolve().parents[1]
TOPICS = ("positional", "transformer", "efficient", "flows", "graphs", "ode", "meta")


@trace
class _Example:
    """A trace as every topic writes one."""

    name: str
    values: np.ndarray
    ids: np.ndarray
    keep: np.ndarray
    extent: tuple[float, float] = (0.0, 1.0)
    extra: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))


def _example(**overrides) -> _Example:
    values = np.arange(12, dtype=np.float64).reshape(3, 4).T  # float64 and not C-contiguous
    kw = dict(name="x", values=values, ids=np.arange(4, dtype=np.int64),
              keep=np.array([True, False]))
    return _Example(**{**kw, **overrides})


def test_importing_every_trace_module_does_not_load_torch():
    modules = ", ".join(["models.traces", *(f"models.traces.{t}" for t in TOPICS)])
    code = (f"import sys; import {modules}; "
            "print('torch' in sys.modules, 'torch_geometric' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, env={**os.environ})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False"]


def test_freezing_base_makes_arrays_read_only_contiguous_float32():
    ex = _example()
    assert ex.values.dtype == np.float32
    assert ex.values.flags.c_contiguous
    np.testing.assert_array_equal(ex.values, np.arange(12.0).reshape(3, 4).T)
    assert ex.ids.dtype == np.int64  # integers and bools are kept as they are
    assert ex.keep.dtype == np.bool_
    assert ex.extra.dtype == np.float32  # defaults are frozen too
    for name in ("values", "ids", "keep", "extra"):
        array = getattr(ex, name)
        assert not array.flags.writeable, name
        assert array.flags.c_contiguous, name
        with pytest.raises(ValueError):
            array[...] = 0
    assert ex.extent == (0.0, 1.0) and ex.name == "x"  # other fields untouched


def test_a_trace_is_a_frozen_dataclass():
    ex = _example()
    assert dataclasses.is_dataclass(ex)
    assert [f.name for f in dataclasses.fields(ex)] == [
        "name", "values", "ids", "keep", "extent", "extra"]
    with pytest.raises(FrozenInstanceError):
        ex.name = "y"
    changed = dataclasses.replace(ex, values=np.ones((2, 2), np.float64))
    assert changed.values.dtype == np.float32 and not changed.values.flags.writeable
    assert changed.ids is ex.ids
    plain = {"name": "a", "values": None, "ids": None, "keep": None, "extra": None}
    assert _Example(**plain) == _Example(**plain)  # the dataclass's own equality (by fields)
    assert _Example(**plain) != _Example(**{**plain, "name": "b"})
    back = pickle.loads(pickle.dumps(ex))
    np.testing.assert_array_equal(back.values, ex.values)
    assert back.values.dtype == np.float32


def test_a_trace_keeps_its_own_post_init_after_the_freeze():
    seen = []

    @trace
    class Checked:
        values: np.ndarray

        def __post_init__(self):
            seen.append((self.values.dtype, self.values.flags.writeable))
            if self.values.ndim != 1:
                raise ValueError("values must be 1-D")

    Checked(np.arange(3.0))
    assert seen == [(np.float32, False)]
    with pytest.raises(ValueError):
        Checked(np.zeros((2, 2)))


def test_the_face_re_exports_every_topic_trace():
    exported = set(models.traces.__all__)
    for topic in TOPICS:
        module = importlib.import_module(f"models.traces.{topic}")
        for name in module.__all__:
            assert name in exported, (topic, name)
            cls = getattr(models.traces, name)
            assert cls is getattr(module, name)
            assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, name
            assert "Shapes" in cls.__doc__ or not any(
                "ndarray" in str(f.type) for f in dataclasses.fields(cls)), name
    assert Progress(step=1, total=4, loss=0.0).fraction == 0.25
