"""learner/heap.py: buffers freed between live objects stay resident until `trim` gives their
pages back, so the learner's resident memory follows what it holds (glibc only)."""

import ctypes.util
from pathlib import Path

import numpy as np
import pytest

from tankrl.learner import heap


def _anon_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no RssAnon")


@pytest.mark.skipif(
    not Path("/proc/self/status").exists() or "libc.so" not in str(ctypes.util.find_library("c")),
    reason="glibc on Linux only",
)
def test_freed_buffers_leave_the_resident_memory() -> None:
    heap.trim()
    before = _anon_mb()
    # 200 MB of 100 KB buffers, each followed by a small object that outlives it (as decoded
    # rounds and a pass's tensors lie between longer-lived state): freeing the buffers leaves
    # holes that free() keeps, since no arena can shrink past a live object
    buffers, kept = [], []
    for _ in range(2000):
        buffers.append(np.ones(100 * 1024 // 8))
        kept.append(np.ones(64))
    grown = _anon_mb()
    del buffers
    assert _anon_mb() - before > 0.75 * (grown - before)  # freed, yet still resident
    assert heap.trim()
    assert _anon_mb() - before < 0.25 * (grown - before)
    assert len(kept) == 2000
