"""The booter's processes: booted bots run under SCHED_BATCH (Linux), threads and children included,
so a woken bot does not preempt the server mid-send (arena/server/booter.py)."""

import json
import os
import sys
import time
from pathlib import Path

import pytest

from tankrl.arena.server import booter

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_getscheduler"), reason="scheduling policies are Linux's"
)

SLEEPER = """
import threading, time
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
print("up", flush=True)
time.sleep(60)
"""


def _bot_dir(root: Path, shell: bool) -> Path:
    d = root / "Sleeper"
    d.mkdir()
    (d / "Sleeper.json").write_text(json.dumps({"name": "Sleeper", "version": "1"}))
    (d / "Sleeper.py").write_text(SLEEPER)
    if shell:  # the official booter's other form: a script that starts the bot
        (d / "Sleeper.sh").write_text('"$PYTHON" Sleeper.py\n')  # a child process
    return d


def _tasks(pid: int) -> list[int]:
    """Every thread of `pid` and of its descendants."""
    out = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    for t in list(out):
        children = Path(f"/proc/{pid}/task/{t}/children").read_text().split()
        for child in children:
            out += _tasks(int(child))
    return out


@pytest.mark.parametrize("shell", [False, True], ids=["py", "sh"])
def test_booted_bots_and_their_threads_run_as_batch(tmp_path: Path, shell: bool) -> None:
    bot = booter.boot(
        booter.resolve_bot(str(_bot_dir(tmp_path, shell))),
        "ws://127.0.0.1:9",
        log_dir=tmp_path / "logs",
        extra_env={"PYTHON": sys.executable} if shell else None,
    )
    try:
        deadline = time.monotonic() + 30
        while "up" not in bot.log_tail():
            assert bot.process.poll() is None, bot.log_tail()
            assert time.monotonic() < deadline, "the bot did not start"
            time.sleep(0.05)
        tasks = _tasks(bot.process.pid)
        assert len(tasks) >= (3 if shell else 2)  # sh, python, the thread it started
        assert {os.sched_getscheduler(t) for t in tasks} == {os.SCHED_BATCH}
    finally:
        booter.stop([bot])
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # the booting process is untouched
