"""Suite-wide pytest hooks."""

import os
import sys

import pytest


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[_EXIT_STATUS] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """End the test process once pytest has reported, without the interpreter's teardown: one
    fresh-clone run of the whole suite (all 919 tests passed) died by a segmentation fault after
    the summary, in the teardown of what the suite leaves behind in this process (Ray's client,
    torch, Bot API threads), and make took the crash for a failed test run. The exit status is
    pytest's own."""
    status = config.stash.get(_EXIT_STATUS, None)
    if status is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


_EXIT_STATUS = pytest.StashKey[int]()
