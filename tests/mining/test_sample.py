"""The sample's draws are numpy's ``default_rng(seed).random(count)`` bit for bit, computed without
numpy, so every mined corpus keeps the cases the numpy-based sample picked."""

from __future__ import annotations

import random

import numpy as np
import pytest

from workbench.mining.sample import spread_sample, uniform_draws

SEEDS = [*range(40), 2**31, 2**32 - 1, 2**32, 2**64 + 5, 2**130 + 7, 12345678901234567890123]


@pytest.mark.parametrize("seed", SEEDS)
def test_draws_are_numpys(seed: int) -> None:
    assert uniform_draws(seed, 300) == np.random.default_rng(seed).random(300).tolist()


def _numpy_sample(items: range, count: int, seed: int) -> list[int]:
    """The sample as it was written with numpy (linspace slices, one draw per slice)."""
    if len(items) <= count:
        return list(items)
    bounds = np.linspace(0, len(items), count + 1).astype(np.int64)
    draws = np.random.default_rng(seed).random(count)
    picks = bounds[:-1] + np.floor(draws * (bounds[1:] - bounds[:-1])).astype(np.int64)
    return [items[i] for i in picks]


def test_picks_are_the_numpy_samples() -> None:
    rng = random.Random(5)
    shapes = [(n, c) for n in range(0, 90) for c in (1, 2, 7, 30)]
    shapes += [(rng.randrange(1, 80_000), rng.randrange(1, 500)) for _ in range(400)]
    for n, count in shapes:
        seed = rng.randrange(1000)
        assert spread_sample(range(n), count, seed) == _numpy_sample(range(n), count, seed), (n, count)


def test_a_negative_seed_is_refused() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        uniform_draws(-1, 3)
