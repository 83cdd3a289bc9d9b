"""The seeded sample of candidates: one pick from each equal slice of the history.

The picks are drawn with numpy's ``default_rng(seed).random(count)`` (PCG64 seeded through a
``SeedSequence``), computed here in plain Python, bit for bit, so that mining does not import
numpy at all: the import is a tenth of a second, a tenth of what mining a small repository may
take (bench/BENCHMARKS.md, issue 24 item 1, round 3). ``tests/mining/test_sample.py`` holds it
equal to numpy. The algorithms are numpy's ``bit_generator.pyx`` (``SeedSequence``) and
``pcg64.h`` (``pcg_setseq_128_xsl_rr_64``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_M32, _M64, _M128 = (1 << 32) - 1, (1 << 64) - 1, (1 << 128) - 1
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_POOL = 4  # SeedSequence's pool size, in 32-bit words
_PCG_MULT = (2549297995355413924 << 64) + 4865540595714422341


def _seed_pool(seed: int) -> list[int]:
    """``SeedSequence(seed).pool``: the seed's 32-bit words, hashed and mixed into four."""
    if seed < 0:
        raise ValueError(f"a seed is a non-negative integer, got {seed}")
    words = [seed & _M32]
    while seed := seed >> 32:
        words.append(seed & _M32)
    const = _INIT_A

    def hashmix(value: int) -> int:
        nonlocal const
        value ^= const
        const = const * _MULT_A & _M32
        value = value * const & _M32
        return value ^ value >> 16

    def mix(x: int, y: int) -> int:
        value = (_MIX_L * x - _MIX_R * y) & _M32
        return value ^ value >> 16

    pool = [hashmix(words[i] if i < len(words) else 0) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for src in range(_POOL, len(words)):
        for dst in range(_POOL):
            pool[dst] = mix(pool[dst], hashmix(words[src]))
    return pool


def _state_words(pool: list[int]) -> list[int]:
    """``SeedSequence.generate_state(4, uint64)``: four 64-bit words (little-endian pairs)."""
    const, out = _INIT_B, []
    for index in range(8):
        value = pool[index % _POOL] ^ const
        const = const * _MULT_B & _M32
        value = value * const & _M32
        out.append(value ^ value >> 16)
    return [out[2 * i] | out[2 * i + 1] << 32 for i in range(4)]


def uniform_draws(seed: int, count: int) -> list[float]:
    """``numpy.random.default_rng(seed).random(count)``, as Python floats."""
    words = _state_words(_seed_pool(seed))
    start, sequence = words[0] << 64 | words[1], words[2] << 64 | words[3]
    increment = (sequence << 1 | 1) & _M128
    state = ((increment + start) * _PCG_MULT + increment) & _M128  # srandom: step from 0, add the start, step
    draws = []
    for _ in range(count):
        state = (state * _PCG_MULT + increment) & _M128
        mixed, rotation = (state >> 64 ^ state) & _M64, state >> 122
        value = (mixed >> rotation | mixed << (64 - rotation)) & _M64
        draws.append((value >> 11) * (1.0 / 9007199254740992.0))
    return draws


def spread_sample(items: Sequence[T], count: int | None, seed: int) -> list[T]:
    """``count`` items, one drawn (seeded) from each of ``count`` equal slices, in order; all if fewer.
    The slices are ``numpy.linspace(0, len(items), count + 1)`` truncated to integers."""
    if count is None or len(items) <= count:
        return list(items)
    step = len(items) / count
    bounds = [int(i * step) for i in range(count)] + [len(items)]
    draws = uniform_draws(seed, count)
    return [items[bounds[i] + math.floor(draws[i] * (bounds[i + 1] - bounds[i]))] for i in range(count)]
