"""The battle runner behind `tankrl battle`: start our server (or use a running one), boot the
named bots as processes, start the game as a controller, follow it to GameEnded, and return the
results. Bot processes are always ended, also on errors and Ctrl-C.

Bots are matched to BotListUpdate entries by name and version (as the official Battle Runner
does) and listed in StartGame in command-line order, so the first bot named gets id 1.

On request (`observe_rounds`, `trace_motion`) the observer's ticks are also kept per round: who
died, how many turns, and each bot's per-turn speed, turn rate and position (the evaluator's data).
"""

import asyncio
import contextlib
import importlib.util
import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect

from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.server import booter, event_loop
from tankrl.arena.server import messages as out
from tankrl.arena.server.connection import CountingClientConnection
from tankrl.arena.server.game import RecorderFactory
from tankrl.arena.server.options import ServerOptions
from tankrl.arena.server.server import ArenaServer

Json = dict[str, Any]


GAME_END_EXIT_WAIT_S = 5.0
"""How long bots may take to exit by themselves after GameEnded before they are terminated."""


class BattleError(RuntimeError):
    """The battle could not be run to its end; the message says why."""


@dataclass(frozen=True)
class BattleSpec:
    bots: tuple[str, ...]
    """Bots to boot (names or bot directories)."""
    rounds: int = 10
    server_url: str | None = None
    seed: int | None = None
    tps: int = -1
    record: Path | None = None
    turn_timeout_us: int = 30_000
    ready_timeout_us: int = 10_000_000
    bot_secret: str | None = None
    controller_secret: str | None = None
    join_timeout_s: float = 30.0
    """How long booted bots may take to show up in the lobby."""
    idle_timeout_s: float = 60.0
    """Give up when the server sends nothing for this long."""
    log_dir: Path | None = None
    present: tuple[str, ...] = ()
    """Names of bots already connected to the server (not booted); they get the first ids."""
    env: Mapping[str, str] | None = None
    """Extra environment variables for the bots this battle boots (only theirs, not ours)."""
    observe_rounds: bool = False
    """Keep per-round details (deaths, turns) in BattleResult.details."""
    trace_motion: bool = False
    """Also keep each bot's per-turn speed, turn rate and position (implies observe_rounds)."""


@dataclass
class BotTrace:
    """One bot's state after each turn of one round, as observers see it (turn 1 first)."""

    speed: list[float] = field(default_factory=list)
    turn_rate: list[float] = field(default_factory=list)
    x: list[float] = field(default_factory=list)
    y: list[float] = field(default_factory=list)


@dataclass
class RoundDetail:
    """What the observer saw in one round."""

    round_number: int = 0
    turns: int = 0
    deaths: list[int] = field(default_factory=list)
    """Victim ids of the round's BotDeathEvents, in order."""
    traces: dict[int, BotTrace] = field(default_factory=dict)
    """Per bot id; empty unless BattleSpec.trace_motion."""


@dataclass
class BattleResult:
    results: list[Json]
    """ResultsForObserver rows, sorted by rank."""
    rounds: int
    turns: int
    seed: int | None
    round_results: list[list[Json]] = field(default_factory=list)
    details: list[RoundDetail] = field(default_factory=list)
    """Per round, with BattleSpec.observe_rounds or trace_motion."""
    skipped_turns: int | None = None
    """Turns some bot did not answer in time (all bots; embedded server only)."""


def game_setup(spec: BattleSpec) -> GameSetup:
    n = len(spec.bots) + len(spec.present)
    return GameSetup(
        game_type="1v1" if n == 2 else "melee",
        min_number_of_participants=n,
        max_number_of_participants=n,
        number_of_rounds=spec.rounds,
        turn_timeout_us=spec.turn_timeout_us,
        ready_timeout_us=spec.ready_timeout_us,
    )


def replay_recorder_factory(path: Path) -> RecorderFactory:
    """Record the game with arena/replay.py's ReplayRecorder (the lead's module)."""
    if importlib.util.find_spec("tankrl.arena.replay") is None:
        raise BattleError("--record needs arena/replay.py (ReplayRecorder), which is not there yet")

    def factory(engine: Any, names: list[str], meta: Json) -> Any:
        from tankrl.arena.replay import ReplayRecorder  # type: ignore[import-not-found,unused-ignore]

        return ReplayRecorder(path, engine, names=names, meta=meta)

    return factory


def run_battle(spec: BattleSpec) -> BattleResult:
    return event_loop.run(run_battle_async(spec))


async def run_battle_async(spec: BattleSpec) -> BattleResult:
    if len(spec.bots) + len(spec.present) < 1:
        raise BattleError("name at least one bot")
    dirs = [booter.resolve_bot(b) for b in spec.bots]
    if spec.server_url is not None:
        if spec.record is not None:
            raise BattleError("--record needs the embedded server (drop --server-url)")
        return await _run(spec, dirs, spec.server_url, None)
    options = ServerOptions(
        port=0,
        seed=spec.seed,
        tps=spec.tps,
        bot_secrets=(spec.bot_secret,) if spec.bot_secret else (),
        controller_secrets=(spec.controller_secret,) if spec.controller_secret else (),
    )
    factory = replay_recorder_factory(spec.record) if spec.record is not None else None
    server = ArenaServer(options, recorder_factory=factory)
    await server.start()
    try:
        async with asyncio.TaskGroup() as tg:
            tg.create_task(server.serve_forever())
            try:
                result = await _run(spec, dirs, server.url, server)
                result.skipped_turns = server.stats.skipped_turns
            finally:
                await server.close()
    except* (BattleError, booter.BootError) as group:  # the battle's own error, not a group
        raise group.exceptions[0] from None
    return result


async def _run(
    spec: BattleSpec, dirs: list[booter.BotDir], url: str, server: ArenaServer | None
) -> BattleResult:
    with contextlib.ExitStack() as stack:
        log_dir = spec.log_dir
        if log_dir is None:
            log_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tankrl-bots-")))
        booted: list[booter.BootedBot] = []
        finished = False
        try:
            for d in dirs:
                booted.append(booter.boot(d, url, spec.bot_secret, log_dir, spec.env))
            async with asyncio.timeout(spec.join_timeout_s):
                ws = await connect(
                    url,
                    compression=None,
                    max_size=None,
                    create_connection=CountingClientConnection,
                )
            async with ws:
                await controller_handshake(ws, spec)
                addresses = await wait_for_bots(ws, booted, spec)
                await ws.send(
                    json.dumps(
                        {
                            "type": "StartGame",
                            "botAddresses": addresses,
                            "gameSetup": game_setup(spec).to_protocol(),
                        }
                    )
                )
                result = await _follow(ws, booted, spec)
            result.seed = server.last_game_seed if server is not None else None
            finished = True
            return result
        finally:
            # after a finished game the bots exit on their own; let them finish their last round
            booter.stop(booted, exit_wait_s=GAME_END_EXIT_WAIT_S if finished else 0.0)


async def _recv_frame(ws: ClientConnection, timeout_s: float) -> str | bytes:
    """The next message the connection delivers; BattleError once the server has sent nothing
    for `timeout_s` (ticks a CountingClientConnection counts without delivering them count)."""
    counted = _counted(ws)
    while True:
        try:
            async with asyncio.timeout(timeout_s):
                return await ws.recv()  # cancelling recv loses nothing (websockets' asyncio API)
        except TimeoutError:
            if (now := _counted(ws)) == counted:
                raise BattleError(f"the server sent nothing for {timeout_s:.0f} s") from None
            counted = now


def _counted(ws: ClientConnection) -> int:
    return ws.counted if isinstance(ws, CountingClientConnection) else 0


def _decode(frame: str | bytes) -> Json:
    try:
        msg = orjson.loads(frame)
    except orjson.JSONDecodeError as e:
        raise BattleError(f"the server sent malformed JSON: {e}") from None
    if not isinstance(msg, dict):
        raise BattleError("the server sent a non-object message")
    return msg


async def _recv(ws: ClientConnection, timeout_s: float) -> Json:
    return _decode(await _recv_frame(ws, timeout_s))


async def controller_handshake(ws: ClientConnection, spec: BattleSpec) -> None:
    """Answer the server's handshake as a controller (with spec's controller secret, if any)."""
    hello = await _recv(ws, spec.idle_timeout_s)
    if hello.get("type") != "ServerHandshake":
        raise BattleError(f"expected ServerHandshake, got {hello.get('type')}")
    msg: Json = {
        "type": "ControllerHandshake",
        "sessionId": hello["sessionId"],
        "name": "tankrl battle",
        "version": "1.0",
        "author": "tankrl",
    }
    if spec.controller_secret:
        msg["secret"] = spec.controller_secret
    await ws.send(json.dumps(msg))


def _check_alive(booted: list[booter.BootedBot]) -> None:
    for b in booted:
        code = b.process.poll()
        if code is not None:
            raise BattleError(
                f"bot {b.bot.name} exited with code {code} before the game ended\n{b.log_tail()}"
            )


async def wait_for_bots(
    ws: ClientConnection, booted: list[booter.BootedBot], spec: BattleSpec
) -> list[Json]:
    """BotAddresses of the booted bots, in command-line order, once all are in the lobby."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + spec.join_timeout_s
    while True:
        _check_alive(booted)
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise BattleError("the bots did not join the server in time")
        try:
            msg = await _recv(ws, min(remaining, 0.5))
        except BattleError:
            continue
        if msg.get("type") != "BotListUpdate":
            continue
        free = list(msg.get("bots", []))
        addresses = []
        wanted: list[tuple[str, str | None]] = [(name, None) for name in spec.present]
        wanted += [(b.bot.name, b.bot.version) for b in booted]
        for name, version in wanted:
            match = next(
                (e for e in free if e.get("name") == name and version in (None, e.get("version"))),
                None,
            )
            if match is None:
                break
            free.remove(match)
            addresses.append({"host": match["host"], "port": match["port"]})
        else:
            return addresses


async def _follow(
    ws: ClientConnection, booted: list[booter.BootedBot], spec: BattleSpec
) -> BattleResult:
    turns = 0  # ticks decoded here; those the connection only counted are added at the end
    rounds: list[list[Json]] = []
    observe = spec.observe_rounds or spec.trace_motion
    if not observe and isinstance(ws, CountingClientConnection):
        ws.count_prefix = out.OBSERVER_TICK_PREFIX
    details: list[RoundDetail] = []
    current = RoundDetail()
    while True:
        msg = _decode(await _recv_frame(ws, spec.idle_timeout_s))
        kind = msg.get("type")
        if kind == "TickEventForObserver":
            turns += 1
            if observe:
                _observe_tick(msg, current, spec.trace_motion)
        elif kind == "RoundEndedEventForObserver":
            rounds.append(msg["results"])
            if observe:
                current.round_number, current.turns = msg["roundNumber"], msg["turnNumber"]
                details.append(current)
                current = RoundDetail()
        elif kind == "GameEndedEventForObserver":
            turns += _counted(ws)
            return BattleResult(msg["results"], msg["numberOfRounds"], turns, None, rounds, details)
        elif kind == "GameAbortedEvent":
            _check_alive(booted)
            raise BattleError("the server aborted the game (bots not ready, or all left)")


def _observe_tick(msg: Json, detail: RoundDetail, motion: bool) -> None:
    """Add one TickEventForObserver to the round's details."""
    for event in msg.get("events", ()):
        if event.get("type") == "BotDeathEvent":
            detail.deaths.append(int(event["victimId"]))
    if not motion:
        return
    for state in msg.get("botStates", ()):
        trace = detail.traces.setdefault(int(state["id"]), BotTrace())
        trace.speed.append(float(state["speed"]))
        trace.turn_rate.append(float(state["turnRate"]))
        trace.x.append(float(state["x"]))
        trace.y.append(float(state["y"]))


def format_results(result: BattleResult) -> str:
    """The results table: rank, name, total score, survival, bullet damage, firsts."""
    header = (
        f"{'rank':>4}  {'id':>2}  {'name':<24} {'total':>7} {'survival':>8} "
        f"{'bullet dmg':>10} {'1sts':>5}"
    )
    lines = [header, "-" * len(header)]
    for r in result.results:
        lines.append(
            f"{r['rank']:>4}  {r['id']:>2}  {r['name'][:24]:<24} {r['totalScore']:>7} "
            f"{r['survival']:>8} {r['bulletDamage']:>10} {r['firstPlaces']:>5}"
        )
    seed = f", seed {result.seed}" if result.seed is not None else ""
    lines.append(f"{result.rounds} rounds, {result.turns} turns{seed}")
    return "\n".join(lines)
