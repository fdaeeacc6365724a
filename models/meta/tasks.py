"""The sinusoid tasks (Finn et al. 2017) and the seeded streams they are drawn from.

A task is ``y = A·sin(x − φ)`` with A ~ U[0.1, 5], φ ~ U[0, π], x ~ U[−5, 5]. Every
stream is ``np.random.default_rng([seed, tag, ...])`` with its own tag, so the training
batches, the evaluation tasks, the tab's test task and the prototypical network's
episodes never share random numbers: each is a pure function of its seed (and step).

Shapes:
    amplitudes, phases: float64[T]; points x, y: float64[T, n]
"""

from __future__ import annotations

import numpy as np

from models.meta.options import AMPLITUDE, EVAL_POINTS, PHASE, X_RANGE

__all__ = ["sample_tasks", "sinusoid", "batch_points", "eval_points", "one_test_task"]

# the tags that keep the seeded streams apart: np.random.default_rng([seed, tag, ...])
_TRAIN, _EVAL, _TEST_TASK, _PROTO_TRAIN, _PROTO_EPISODE = range(5)


def sample_tasks(n: int, rng: np.random.Generator,
                 amp_max: float = AMPLITUDE[1]) -> tuple[np.ndarray, np.ndarray]:
    """n sinusoid tasks: amplitudes U[0.1, amp_max] and phases U[0, π] (float64 [n] each).
    ``amp_max = 10`` is the out-of-distribution setting."""
    amplitudes = rng.uniform(AMPLITUDE[0], amp_max, size=n)
    phases = rng.uniform(PHASE[0], PHASE[1], size=n)
    return amplitudes, phases


def sinusoid(x, amplitude, phase) -> np.ndarray:
    """``A·sin(x − φ)``, broadcast (a [T] amplitude against x [T, K] needs ``[:, None]``)."""
    return np.asarray(amplitude) * np.sin(np.asarray(x) - np.asarray(phase))


def batch_points(seed: int, step: int, meta_batch: int, k: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Meta-batch ``step`` of the training stream: amplitudes, phases [T] and 2K points
    per task, x and y [T, 2K] (the first K the support set, the rest the query set)."""
    rng = np.random.default_rng([seed, _TRAIN, step])
    amp, phase = sample_tasks(meta_batch, rng)
    x = rng.uniform(*X_RANGE, size=(meta_batch, 2 * k))
    y = sinusoid(x, amp[:, None], phase[:, None])
    return amp, phase, x, y


def eval_points(n_tasks: int, k: int, amp_max: float, seed: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The evaluation stream: K support points per task, x_s and y_s [n, K], and the
    ``EVAL_POINTS`` scoring points spread evenly over [−5, 5], x_e and y_e [n, 100]."""
    rng = np.random.default_rng([seed, _EVAL])
    amp, phase = sample_tasks(n_tasks, rng, amp_max)
    x_s = rng.uniform(*X_RANGE, size=(n_tasks, k))
    y_s = sinusoid(x_s, amp[:, None], phase[:, None])
    x_e = np.broadcast_to(np.linspace(*X_RANGE, EVAL_POINTS), (n_tasks, EVAL_POINTS))
    y_e = sinusoid(x_e, amp[:, None], phase[:, None])
    return x_s, y_s, x_e, y_e


def one_test_task(seed: int, k: int, amp_max: float = AMPLITUDE[1]) -> dict:
    """One test task for the scrubbable view: ``amplitude``, ``phase``, ``x_support``,
    ``y_support`` (float32[K]) and the true curve ``x_grid``, ``y_grid`` (200 points)."""
    rng = np.random.default_rng([seed, _TEST_TASK])
    amp, phase = sample_tasks(1, rng, amp_max)
    x = rng.uniform(*X_RANGE, size=k)
    grid = np.linspace(*X_RANGE, 200)
    return {"amplitude": float(amp[0]), "phase": float(phase[0]),
            "x_support": x.astype(np.float32),
            "y_support": sinusoid(x, amp[0], phase[0]).astype(np.float32),
            "x_grid": grid.astype(np.float32),
            "y_grid": sinusoid(grid, amp[0], phase[0]).astype(np.float32)}
