"""Bot directories (actor/bots/<Name>/) as real processes: each starts the way the booter starts
it (`python <Name>.py`, cwd = its directory, SERVER_URL in the environment) and answers a tiny
raw-websockets stub server's ServerHandshake ("1.4.0") with a BotHandshake carrying its name. One
bot also plays a one-turn game against the stub (GameStarted -> BotReady, a real engine tick ->
its scripted BotIntent) and exits by itself after GameEnded. Process groups are killed after.
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import websockets
from websockets.asyncio.server import ServerConnection

from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.server.ticks import tick_for_bot

BOTS = Path(__file__).resolve().parents[2] / "actor" / "bots"
NAMES = sorted(p.name for p in BOTS.iterdir() if (p / f"{p.name}.py").is_file())
DEADLINE_S = 60.0
"""Failure guard only: a bot that has not answered by then is reported as hanging."""

SERVER_HANDSHAKE = {
    "type": "ServerHandshake",
    "sessionId": "c3R1Yi1zZXNzaW9uLTAwMQ",
    "variant": "Tank Royale",
    "version": "1.4.0",
    "gameTypes": ["classic", "1v1"],
    "name": "tankrl test stub",
    "behaviorVersion": 1,
}
RESULTS = {
    "rank": 1, "survival": 0, "lastSurvivorBonus": 0, "bulletDamage": 0, "bulletKillBonus": 0,
    "ramDamage": 0, "ramKillBonus": 0, "totalScore": 0, "firstPlaces": 1, "secondPlaces": 0,
    "thirdPlaces": 0,
}  # fmt: skip


@asynccontextmanager
async def bot_process(
    name: str, script: Any
) -> AsyncIterator[tuple[subprocess.Popen[bytes], "asyncio.Future[Any]"]]:
    """Serve `script(ws)` on a free port, start bot `name` against it; kill its group after.

    Yields the process and a future with the script's result."""
    done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    async def handler(ws: ServerConnection) -> None:
        try:
            result = await script(ws)
            if not done.done():
                done.set_result(result)
            await ws.wait_closed()
        except Exception as error:
            if not done.done():
                done.set_exception(error)

    async with websockets.serve(handler, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        env = {**os.environ, "SERVER_URL": f"ws://127.0.0.1:{port}", "TANKRL_BOT_SEED": "7"}
        env.pop("SERVER_SECRET", None)
        proc = subprocess.Popen(
            [sys.executable, f"{name}.py"], cwd=BOTS / name, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        try:
            yield proc, done
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


async def outcome(proc: subprocess.Popen[bytes], done: "asyncio.Future[Any]") -> Any:
    """The stub script's result, failing early (with the bot's stderr) if the bot dies first."""
    async with asyncio.timeout(DEADLINE_S):
        while not done.done():
            if proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                pytest.fail(f"bot exited with {proc.returncode} before the stub was done:\n{err}")
            await asyncio.wait([done], timeout=0.1)
    return done.result()


async def handshake(ws: ServerConnection) -> dict[str, Any]:
    await ws.send(json.dumps(SERVER_HANDSHAKE))
    return json.loads(await ws.recv())  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", NAMES)
async def test_bot_directory_starts_and_sends_its_handshake(name: str) -> None:
    async with bot_process(name, handshake) as (proc, done):
        reply = await outcome(proc, done)
    assert reply["type"] == "BotHandshake"
    assert reply["name"] == name and reply["sessionId"] == SERVER_HANDSHAKE["sessionId"]
    assert sorted(reply["gameTypes"]) == ["1v1", "classic"] and reply["platform"] == "Python"


async def test_a_scripted_bot_plays_a_turn_and_exits_after_game_ended() -> None:
    setup = GameSetup(number_of_rounds=1)
    engine = Engine(setup, 1, 2, seeds=5)
    engine.step()
    tick = tick_for_bot(engine, 0, 0)

    async def one_turn_game(ws: ServerConnection) -> dict[str, Any]:
        await handshake(ws)
        start = {"type": "GameStartedEventForBot", "myId": 1, "gameSetup": setup.to_protocol()}
        await ws.send(json.dumps(start))
        assert json.loads(await ws.recv())["type"] == "BotReady"
        await ws.send(json.dumps({"type": "RoundStartedEvent", "roundNumber": 1}))
        await ws.send(json.dumps(tick))
        intent: dict[str, Any] = json.loads(await ws.recv())
        for message in (
            {
                "type": "RoundEndedEventForBot",
                "roundNumber": 1,
                "turnNumber": 1,
                "results": RESULTS,
            },
            {"type": "GameEndedEventForBot", "numberOfRounds": 1, "results": RESULTS},
        ):
            await ws.send(json.dumps(message))
        return intent

    async with bot_process("SpinBot", one_turn_game) as (proc, done):
        intent = await outcome(proc, done)
        async with asyncio.timeout(DEADLINE_S):
            while proc.poll() is None:
                await asyncio.sleep(0.05)
    assert intent["type"] == "BotIntent"
    assert intent["turnRate"] == -10.0 and intent["targetSpeed"] == 1.0  # SpinBot at rest
    assert intent["fireAssist"] is True and intent["adjustGunForBodyTurn"] is False
    assert proc.returncode == 0
