"""learner/heap.py: buffers freed between live objects stay resident until `trim` gives their
pages back, so the learner's resident memory follows what it holds (glibc only)."""

import ctypes.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tankrl.learner import heap

GLIBC_ONLY = pytest.mark.skipif(
    not Path("/proc/self/status").exists() or "libc.so" not in str(ctypes.util.find_library("c")),
    reason="glibc on Linux only",
)


def _anon_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no RssAnon")


@GLIBC_ONLY
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


_THREAD_PASS = """
import sys, threading
from pathlib import Path
import numpy as np
from tankrl.learner import heap

def anon_mb():
    status = Path("/proc/self/status").read_text().splitlines()
    return int(next(l for l in status if l.startswith("RssAnon:")).split()[1]) / 1024

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
    out = subprocess.run(
        [sys.executable, "-c", _THREAD_PASS, mode], capture_output=True, text=True, check=True
    )
    return float(out.stdout)


@GLIBC_ONLY
def test_a_threads_freed_pass_buffers_leave_once_configured() -> None:
    # glibc's default: freeing the 8 MB buffer raised the mmap threshold, so the 6 MB one came
    # from the thread's own heap, and neither free() nor malloc_trim gives that heap's top back
    assert _retained_mb("plain") > 4.0
    # configured (as the learner is at start): both buffers are mapped and unmapped
    assert _retained_mb("configure") < 1.0
