"""Boot bot processes the way the official booter does (docs/rules.md §14.2): a bot
directory holds `<base>.json` and `<base>.py` (or `<base>.sh`), base = the directory's name or
the JSON's `base`; the bot runs in its own process group with cwd = its directory and the
booter's environment (SERVER_URL, SERVER_SECRET, BOT_BOOTED, BOT_NAME, BOT_VERSION, ...).

Built-in names (Target, SpinBot, ..., GotoTest) resolve to actor/bots/<Name>/. Python bots run
with this interpreter (the official template says `python3`; ours has the Bot API installed).
`stop()` ends every process group, also after errors and Ctrl-C.
"""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

BUILTIN_BOTS = Path(__file__).resolve().parents[2] / "actor" / "bots"
"""The built-in bot directories (the folder above arena/ is the repository, or tankrl when
installed from a wheel)."""


LAUNCH_DIR_ENV = "TANKRL_LAUNCH_DIR"
"""Where the command that boots the bots was started: a bot runs in its own directory, so it
resolves relative paths it reads from its environment (TANKRL_WEIGHTS=weights/x.zip) from here."""


class BootError(RuntimeError):
    """A bot directory is missing or incomplete, or a bot process could not start."""


@dataclass(frozen=True)
class BotDir:
    path: Path
    base: str
    info: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.info.get("name", self.base))

    @property
    def version(self) -> str:
        return str(self.info.get("version", ""))


def resolve_bot(spec: str, search: Sequence[Path] = (BUILTIN_BOTS,)) -> BotDir:
    """A bot directory path, or the name of a directory under one of `search`."""
    candidates = [Path(spec)] + [root / spec for root in search]
    for path in candidates:
        if path.is_dir():
            return _read_bot_dir(path.resolve())
    where = ", ".join(str(p) for p in search)
    raise BootError(f"no bot directory {spec!r} (give a path, or a name under {where})")


def _read_bot_dir(path: Path) -> BotDir:
    json_path = path / f"{path.name}.json"
    if not json_path.is_file():
        raise BootError(f"{path}: missing {json_path.name}")
    try:
        info = json.loads(json_path.read_text())
    except (OSError, ValueError) as e:
        raise BootError(f"{json_path}: {e}") from None
    if not isinstance(info, dict):
        raise BootError(f"{json_path}: not a JSON object")
    base = str(info.get("base") or path.name)
    if not (path / f"{base}.py").is_file() and not (path / f"{base}.sh").is_file():
        raise BootError(f"{path}: missing {base}.py (or {base}.sh)")
    return BotDir(path, base, info)


def _listing(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def bot_env(bot: BotDir, server_url: str, secret: str | None = None) -> dict[str, str]:
    """The environment the official booter gives a bot (on top of ours)."""
    env = dict(os.environ)
    env.update(SERVER_URL=server_url, BOT_BOOTED="true", **{LAUNCH_DIR_ENV: os.getcwd()})
    if secret:
        env["SERVER_SECRET"] = secret
    else:
        env.pop("SERVER_SECRET", None)
    keys = {
        "BOT_NAME": "name",
        "BOT_VERSION": "version",
        "BOT_AUTHORS": "authors",
        "BOT_DESCRIPTION": "description",
        "BOT_HOMEPAGE": "homepage",
        "BOT_COUNTRY_CODES": "countryCodes",
        "BOT_GAME_TYPES": "gameTypes",
        "BOT_PLATFORM": "platform",
        "BOT_PROG_LANG": "programmingLang",
        "BOT_INITIAL_POS": "initialPosition",
    }
    for var, key in keys.items():
        value = _listing(bot.info.get(key))
        if value is not None:
            env[var] = value
        else:
            env.pop(var, None)
    return env


@dataclass
class BootedBot:
    bot: BotDir
    process: subprocess.Popen[bytes]
    log_path: Path | None

    def log_tail(self, lines: int = 20) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


def boot(
    bot: BotDir,
    server_url: str,
    secret: str | None = None,
    log_dir: Path | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> BootedBot:
    """Start one bot process in its own process group; `extra_env` is added to this bot's
    environment only (e.g. TANKRL_WEIGHTS for one battle), on top of `bot_env`."""
    script = bot.path / f"{bot.base}.sh"
    cmd = ["/bin/sh", script.name] if script.is_file() else [sys.executable, f"{bot.base}.py"]
    log_path = None
    out: IO[bytes] | int = subprocess.DEVNULL
    if log_dir is not None:
        log_dir.mkdir(parents=True, exist_ok=True)
        log_path = log_dir / f"{bot.base}-{time.monotonic_ns()}.log"
        out = log_path.open("wb")
    env = bot_env(bot, server_url, secret)
    if extra_env:
        env.update(extra_env)
    try:
        with _forking_as_batch():
            proc = subprocess.Popen(
                cmd,
                cwd=bot.path,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
    except OSError as e:
        raise BootError(f"cannot start {bot.path}: {e}") from None
    finally:
        if not isinstance(out, int):
            out.close()
    return BootedBot(bot, proc, log_path)


@contextlib.contextmanager
def _forking_as_batch() -> Iterator[None]:
    """Start bots under SCHED_BATCH (Linux; elsewhere nothing changes): a bot woken by its tick
    then waits for a free core instead of preempting the server, so the server's ticks for the
    other bots go out before the bots start to think. Both bots of a battle are treated alike.
    On 2 cores it more than halves the server's part of a hosted turn (`python -m bench.hosted`
    shows it). The policy is the calling thread's only while it forks: the bot inherits it at
    fork, so its threads and children (a .sh bot's interpreter) all have it from their first
    instruction; setting it on the bot's pid after the fork raced with a child it had already
    started. It needs no privileges, and the thread's own policy is put back afterwards."""
    get_policy = getattr(os, "sched_getscheduler", None)
    if get_policy is None:
        yield
        return
    before = get_policy(0)
    try:
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except OSError:
        yield
        return
    try:
        yield
    finally:
        os.sched_setscheduler(0, before, os.sched_param(0))


def stop(bots: Iterable[BootedBot], grace_s: float = 2.0, exit_wait_s: float = 0.0) -> None:
    """Give bots `exit_wait_s` to exit by themselves (bots end after GameEnded, and may still be
    finishing their last round's work), then SIGTERM every bot's process group, then SIGKILL
    what is left after `grace_s`."""
    bots = list(bots)
    deadline = time.monotonic() + exit_wait_s
    for b in bots:
        with contextlib.suppress(subprocess.TimeoutExpired):
            b.process.wait(timeout=max(0.0, deadline - time.monotonic()))
    for b in bots:
        _signal_group(b.process, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    for b in bots:
        with contextlib.suppress(subprocess.TimeoutExpired):
            b.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        _signal_group(b.process, signal.SIGKILL)
        try:
            b.process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            print(f"warning: bot process {b.process.pid} did not exit", file=sys.stderr)


def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)
