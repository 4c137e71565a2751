"""Give the memory a training pass freed back to the operating system.

A pass allocates and frees hundreds of MB of numpy and torch buffers from several threads (Ray
receives trajectories, intake decodes them, the trainer runs). glibc keeps freed chunks in its
arenas and hands them out again only for requests that fit, so part of the learner's resident
memory is freed buffers (a trim 10 minutes into a run gave back 18 of 317 MB). `configure` keeps
big buffers out of the arenas; `trim` (`malloc_trim(0)`) returns every whole free page inside
them. Elsewhere than glibc (macOS, musl) both do nothing.
"""

import ctypes
import ctypes.util
import functools
from collections.abc import Callable

M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
MMAP_THRESHOLD_BYTES = 128 * 1024
"""Buffers of at least this size get pages of their own, unmapped the moment they are freed."""
ARENA_MAX = 2
"""glibc arenas at most (its default is 8 per core): fewer heaps to hold freed memory."""


@functools.cache
def _libc_function(name: str) -> Callable[..., int] | None:
    lib = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(lib), name, None) if lib else None
    except OSError:
        return None


def configure() -> bool:
    """Fix glibc's mmap threshold at MMAP_THRESHOLD_BYTES and cap its arenas at ARENA_MAX for
    this process; call it before the threads that allocate start. True if glibc took both.

    glibc raises its mmap threshold to the size of each mapped buffer it frees (up to 32 MB), so
    after the first big pass the buffers of later passes and trajectories come from the heap of
    the thread that allocates them, and neither free() nor `malloc_trim` shrinks a thread's
    heap past its top. A fixed threshold keeps every buffer of 128 KB or more mapped on its own
    and unmapped when freed (tests/unit/test_heap.py: 6 MB kept in a thread without, none with).
    """
    mallopt = _libc_function("mallopt")
    if mallopt is None:
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) and bool(
        mallopt(M_ARENA_MAX, ARENA_MAX)
    )


def trim() -> bool:
    """Return free heap pages to the OS; True if glibc's malloc_trim ran and released some."""
    fn = _libc_function("malloc_trim")
    return bool(fn(0)) if fn is not None else False
