"""End-to-end helpers: our server in a background thread, official Bot API bots booted as
subprocesses (always ended by process group), and the official schema's field lists taken from
the Bot API's generated `robocode_tank_royale.schema` classes."""

import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from robocode_tank_royale import schema
from robocode_tank_royale.bot_api.internal.json_util import to_camel_case

from tankrl.arena.server import booter
from tankrl.arena.server.options import ServerOptions
from tankrl.arena.server.thread import ServerThread

BOTS = Path(__file__).parent / "bots"


@pytest.fixture
def bots_dir() -> Path:
    """tests/e2e/bots: our small official-API test bots (Spinner, Idler)."""
    return BOTS


@pytest.fixture
def opponent() -> Any:
    """opponent(name): a scripted opponent from actor/bots/ when it exists, else Spinner."""

    def pick(name: str, fallback: str = "Spinner") -> str:
        if (booter.BUILTIN_BOTS / name / f"{name}.json").is_file():
            return name
        return str(BOTS / fallback)

    return pick


@pytest.fixture(name="schema_problems")
def schema_problems_fixture() -> Any:
    """schema_problems(message, type): every deviation from the official schema's fields."""
    return schema_problems


@pytest.fixture
def server_thread() -> Iterator[ServerThread]:
    with ServerThread(ServerOptions(port=0, seed=11)) as st:
        yield st


@pytest.fixture
def boot(tmp_path: Path) -> Iterator[Any]:
    """boot(bot_dir_or_name, url, secret=None) -> BootedBot; all are stopped at the end."""
    booted: list[booter.BootedBot] = []

    def start(spec: str, url: str, secret: str | None = None) -> booter.BootedBot:
        bot = booter.boot(booter.resolve_bot(spec), url, secret, tmp_path / "logs")
        booted.append(bot)
        return bot

    yield start
    booter.stop(booted)


def schema_fields(type_name: str) -> tuple[set[str], set[str]]:
    """(allowed, required) camelCase fields of a schema class, from its constructor."""
    cls = schema.CLASS_MAP[type_name]
    params = [p for name, p in inspect.signature(cls.__init__).parameters.items() if name != "self"]
    allowed = {to_camel_case(p.name) for p in params}
    required = {to_camel_case(p.name) for p in params if p.default is inspect.Parameter.empty}
    return allowed, required


NESTED = {
    "botState": "BotState",
    "bulletStates": "BulletState",
    "botStates": "BotStateWithId",
    "bullet": "BulletState",
    "hitBullet": "BulletState",
    "gameSetup": "GameSetup",
    "botNames": "BotName",
    "participants": "Participant",
    "bots": "BotInfo",
    "initialPosition": "InitialPosition",
}
RESULTS = {
    "RoundEndedEventForBot": "ResultsForBot",
    "GameEndedEventForBot": "ResultsForBot",
    "RoundEndedEventForObserver": "ResultsForObserver",
    "GameEndedEventForObserver": "ResultsForObserver",
}


def schema_problems(obj: dict[str, Any], type_name: str, where: str = "") -> list[str]:
    """Every field of `obj` (recursively) that the schema does not list, or lists as required
    but is missing, or that is null."""
    allowed, required = schema_fields(type_name)
    where = where or type_name
    problems = [f"{where}: unknown field {k}" for k in obj.keys() - allowed]
    problems += [f"{where}: missing {k}" for k in required - obj.keys()]
    problems += [f"{where}: null {k}" for k, v in obj.items() if v is None]
    for key, value in obj.items():
        nested = RESULTS.get(type_name) if key == "results" else NESTED.get(key)
        if key == "events":
            nested = "*"
        if nested is None:
            continue
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            kind = item.get("type") if nested == "*" else nested
            problems += schema_problems(item, kind, f"{where}.{key}[{i}]")
    return problems
