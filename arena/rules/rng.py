"""Counter-based random numbers for the engine: uniform floats from (seed, round, draw) by hashing.

SplitMix64 over the key, vectorised with numpy uint64 arithmetic, so B arenas draw their starting
positions (and the scripted opponents their choices) in one call, reproducibly for a seed, without
any generator state to carry or copy.
"""

import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _mix(z: U64) -> U64:
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def hash64(*keys: npt.ArrayLike) -> U64:
    """A 64-bit hash of integer keys (broadcast together); equal keys give equal hashes."""
    with np.errstate(over="ignore"):
        h = np.zeros(np.broadcast_shapes(*(np.shape(k) for k in keys)), dtype=np.uint64)
        for k in keys:
            h = _mix(h + _GOLDEN + np.asarray(k).astype(np.uint64))
    return h


def uniform(*keys: npt.ArrayLike) -> F64:
    """Uniform floats in [0, 1) determined by the keys (53 random bits)."""
    return (hash64(*keys) >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


# Stream ids: every kind of draw gets its own key so that draws never collide.
STREAM_CELL = 1
STREAM_OFFSET_X = 2
STREAM_OFFSET_Y = 3
STREAM_DIRECTION = 4
STREAM_TELEPORT_X = 5
STREAM_TELEPORT_Y = 6
STREAM_OPPONENT = 100
"""Scripted opponents draw with STREAM_OPPONENT + their own sub-stream."""
