"""The CPU threads the app gives torch and numpy when it loads torch (``warm_up``): torch
gets the cores it is given, numpy's BLAS one thread, so numpy's OpenBLAS does not spin
against torch's threads (issue 18: the SBM GCN session ran 4-5x a plain PyG loop).
Run in a fresh interpreter: the settings are process-wide."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_PROBE = """
import json, numpy
from threadpoolctl import threadpool_info
from models.devices import warm_up
warm_up(2)
import torch, scipy.linalg   # a BLAS loaded after warm_up
after = {i["filepath"]: i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}
print(json.dumps({"after": after, "torch": torch.get_num_threads()}))
"""


def _run(env_extra: dict[str, str]) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, env=env, text=True,
                         capture_output=True, timeout=240, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_warm_up_gives_torch_its_threads_and_numpy_one_blas_thread():
    got = _run({})
    assert got["torch"] == 2
    assert got["after"], "numpy's BLAS is not visible to threadpoolctl"
    assert set(got["after"].values()) == {1}, got           # numpy's and scipy's alike


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="OpenBLAS keeps one thread on one core")
def test_a_users_openblas_setting_wins():
    got = _run({"OPENBLAS_NUM_THREADS": "2"})
    assert set(got["after"].values()) == {2}, got
