from __future__ import annotations

import numpy as np
import pytest

from models.transformer import attention_rollout, head_average


def _random_attention(layers, heads, n, seed=0):
    rng = np.random.default_rng(seed)
    w = rng.random((layers, heads, n, n))
    return w / w.sum(-1, keepdims=True)


def test_head_average_is_the_mean_over_heads():
    w = _random_attention(2, 3, 4)
    np.testing.assert_allclose(head_average(w), w.mean(1), rtol=1e-6)


def test_rollout_rows_are_distributions_and_first_layer_is_the_mix():
    w = _random_attention(3, 2, 5)
    r = attention_rollout(w)
    np.testing.assert_allclose(r.sum(-1), 1.0, atol=1e-6)
    np.testing.assert_allclose(r[0], 0.5 * np.eye(5) + 0.5 * w[0].mean(0), atol=1e-6)


def test_rollout_matches_an_independent_loop():
    w = _random_attention(4, 3, 6, seed=1)
    expected = np.eye(6)
    for layer in range(4):
        a = 0.5 * np.eye(6) + 0.5 * w[layer].mean(0)
        a = a / a.sum(1, keepdims=True)
        expected = a @ expected
    np.testing.assert_allclose(attention_rollout(w)[-1], expected, atol=1e-6)


def test_identity_attention_rolls_out_to_identity():
    w = np.broadcast_to(np.eye(4), (3, 2, 4, 4)).copy()
    np.testing.assert_allclose(attention_rollout(w)[-1], np.eye(4), atol=1e-7)


def test_cross_attention_is_refused():
    with pytest.raises(ValueError, match="self-attention"):
        attention_rollout(np.ones((1, 1, 3, 4)) / 4)
