"""learner/heap.py: buffers freed between live objects stay resident until `trim` gives their
pages back, so the learner's resident memory follows what it holds (glibc only)."""

import ctypes.util
import subprocess
import sys
from pathlib import Path

import pytest

GLIBC_ONLY = pytest.mark.skipif(
    not Path("/proc/self/status").exists() or "libc.so" not in str(ctypes.util.find_library("c")),
    reason="glibc on Linux only",
)


_PRELUDE = """
import sys, threading
from pathlib import Path
import numpy as np
from tankrl.learner import heap

def anon_mb():
    status = Path("/proc/self/status").read_text().splitlines()
    return int(next(l for l in status if l.startswith("RssAnon:")).split()[1]) / 1024
"""


def _run(script: str, *args: str) -> list[float]:
    """Run `script` after the prelude in a fresh interpreter (what this process allocated and
    freed before would decide where its buffers land); the numbers it prints."""
    out = subprocess.run(
        [sys.executable, "-c", _PRELUDE + script, *args], capture_output=True, text=True, check=True
    )
    return [float(x) for x in out.stdout.split()]


_HOLES = """
heap.trim()
before = anon_mb()
# 200 MB of 100 KB buffers, each followed by a small object that outlives it (as decoded rounds
# and a pass's tensors lie between longer-lived state): freeing the buffers leaves holes that
# free() keeps, since no arena can shrink past a live object
buffers, kept = [], []
for _ in range(2000):
    buffers.append(np.ones(100 * 1024 // 8))
    kept.append(np.ones(64))
grown = anon_mb()
del buffers
freed = anon_mb()
assert heap.trim()
print(grown - before, freed - before, anon_mb() - before, len(kept))
"""


@GLIBC_ONLY
def test_freed_buffers_leave_the_resident_memory() -> None:
    grown, freed, trimmed, kept = _run(_HOLES)
    assert grown > 150.0 and kept == 2000
    assert freed > 0.75 * grown  # freed, yet still resident
    assert trimmed < 0.25 * grown


_THREAD_PASS = """
if sys.argv[1] == "configure":
    assert heap.configure()
retained = []

def training_thread():
    big = np.ones(8 * 2**20 // 8)  # one pass's buffer
    del big
    heap.trim()
    before = anon_mb()
    smaller = np.ones(6 * 2**20 // 8)  # the next pass's, a little smaller
    del smaller
    heap.trim()
    retained.append(anon_mb() - before)

t = threading.Thread(target=training_thread)
t.start()
t.join()
print(retained[0])
"""


def _retained_mb(mode: str) -> float:
    return _run(_THREAD_PASS, mode)[0]


@GLIBC_ONLY
def test_a_threads_freed_pass_buffers_leave_once_configured() -> None:
    # glibc's default: freeing the 8 MB buffer raised the mmap threshold, so the 6 MB one came
    # from the thread's own heap, and neither free() nor malloc_trim gives that heap's top back
    assert _retained_mb("plain") > 4.0
    # configured (as the learner is at start): both buffers are mapped and unmapped
    assert _retained_mb("configure") < 1.0
