"""The 2D toy densities, their entropies and the point-file loader."""

from __future__ import annotations

import math

import numpy as np
import pytest

from models.errors import InvalidParameterError
from models.flows import densities
from models.flows import points as flow_points


@pytest.mark.parametrize("name", densities.DENSITIES)
def test_sample_seeded_shapes(name):
    a = densities.sample(name, 501, seed=3)
    assert a.shape == (501, 2) and a.dtype == np.float32 and np.isfinite(a).all()
    np.testing.assert_array_equal(a, densities.sample(name, 501, seed=3))
    assert not np.array_equal(a, densities.sample(name, 501, seed=4))


def test_two_moons_is_sklearn_raw_scale():
    x = densities.sample("two_moons", 20_000, seed=0).astype(np.float64)
    # sklearn's make_moons (noise 0): x in [-1, 2], y in [-0.5, 1]; means (0.5, 0.25)
    assert abs(x[:, 0].mean() - 0.5) < 0.02 and abs(x[:, 1].mean() - 0.25) < 0.02
    assert -1.3 < x[:, 0].min() < -0.9 and 1.9 < x[:, 0].max() < 2.3
    clean = densities.sample("two_moons", 1000, seed=0, noise=0.0).astype(np.float64)
    upper = clean[:, 1] > 0.25 + 1e-6   # not true for every upper point, but for most
    r_upper = np.hypot(clean[upper, 0], clean[upper, 1])
    assert np.median(np.abs(r_upper - 1)) < 1e-5


def test_entropy_values():
    assert densities.differential_entropy("two_moons") == pytest.approx(0.29, abs=0.05)
    assert densities.differential_entropy("checkerboard") == pytest.approx(math.log(32))
    # eight well separated Gaussians of std 0.5/1.414: log 8 + log(2πe σ²)
    ref = math.log(8) + math.log(2 * math.pi * math.e * (0.5 / 1.414) ** 2)
    assert densities.differential_entropy("8gaussians") == pytest.approx(ref, abs=0.05)


def test_knn_entropy_matches_gaussian():
    # a reference nobody here wrote: the entropy of N(0, Σ) is ½ log((2πe)^d |Σ|)
    rng = np.random.default_rng(0)
    cov = np.array([[1.0, 0.6], [0.6, 2.0]])
    x = rng.multivariate_normal([0, 0], cov, 8000)
    ref = 0.5 * math.log((2 * math.pi * math.e) ** 2 * np.linalg.det(cov))
    assert densities.knn_entropy(x) == pytest.approx(ref, abs=0.05)
    mc, se = densities.mixture_entropy(np.zeros((1, 2)), 0.5, rng.normal(0, 0.5, (8000, 2)))
    assert mc == pytest.approx(math.log(2 * math.pi * math.e * 0.25), abs=4 * se + 1e-3)


def test_unknown_density():
    with pytest.raises(InvalidParameterError, match="Unknown density"):
        densities.sample("banana", 10)
    with pytest.raises(InvalidParameterError):
        densities.differential_entropy("banana")


def test_load_points_with_header_and_comments(tmp_path, monkeypatch):
    monkeypatch.setattr(flow_points, "MIN_POINTS", 3)      # three points: the parsing is tested
    p = tmp_path / "pts.csv"
    p.write_text("# my points\nx;y\n1.5; 2\n\n3 4  # trailing comment\n5,6,7\n")
    got = flow_points.load_points_csv(p)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [[1.5, 2], [3, 4], [5, 6]])


@pytest.mark.parametrize("text, line, what", [
    ("1,2\n3,abc\n", 2, "not two numbers"),
    ("1,2\n3\n", 2, "2 columns"),
    ("x,y\n1,2\nnan,3\n", 3, "NaN"),
    ("1,2\n# c\n1,inf\n", 3, "NaN or infinity"),
])
def test_load_points_errors_name_file_and_line(tmp_path, text, line, what):
    p = tmp_path / "bad.csv"
    p.write_text(text)
    with pytest.raises(InvalidParameterError, match=f"bad.csv, line {line}: .*{what}"):
        flow_points.load_points_csv(p)


def test_load_points_empty_and_too_many(tmp_path, monkeypatch):
    p = tmp_path / "empty.csv"
    p.write_text("# nothing\nx,y\n")
    with pytest.raises(InvalidParameterError, match="empty.csv: the file holds no points"):
        flow_points.load_points_csv(p)
    monkeypatch.setattr(flow_points, "MAX_POINTS", 3)
    q = tmp_path / "many.csv"
    q.write_text("".join(f"{i},{i}\n" for i in range(5)))
    with pytest.raises(InvalidParameterError, match="many.csv: more than 3 points"):
        flow_points.load_points_csv(q)
    with pytest.raises(InvalidParameterError, match="missing.csv"):
        flow_points.load_points_csv(tmp_path / "missing.csv")


@pytest.mark.slow
def test_the_tabulated_entropies_are_what_the_computation_gives():
    """The table the tabs read (no 0.5-2.4 s computation on the GUI thread) is the
    seeded computation's result, for every built-in density."""
    assert set(densities.ENTROPIES) == set(densities.DENSITIES)
    for name, value in densities.ENTROPIES.items():
        assert densities.computed_differential_entropy(name) == pytest.approx(value, rel=1e-6), name
