"""The incoming half of the Tank Royale protocol (docs/protocol.md): WebSocket text frames from
bots, controllers and observers decoded (orjson) and validated into typed messages (BotIntent
and its merge live in arena/server/intent_merge.py).

Pure: no I/O. The server shell (arena/server/server.py) feeds it frames; a `ProtocolError` means
"close this one client with this code and reason", an `InvalidRequest` means "ignore and log"
(docs/protocol.md §6.1).
Unknown fields are ignored and nulls mean "absent" everywhere, as the official server does.
Over 300 lines: one validator per incoming message type, kept together as the vocabulary.
"""

import json
import math
from dataclasses import dataclass
from typing import Any, Final

import orjson

from tankrl.arena.rules.game_setup import GameSetup

Json = dict[str, Any]

CLOSE_NORMAL: Final = 1000
CLOSE_UNSUPPORTED: Final = 1003
"""Binary frames, unknown message types."""
CLOSE_INVALID: Final = 1007
"""Malformed JSON, wrong field types or values."""
CLOSE_POLICY: Final = 1008
"""Session id, secrets, a message the client's role may not send, a client too slow to read."""
CLOSE_TOO_BIG: Final = 1009

MAX_REASON_BYTES: Final = 120
"""A close frame's reason must fit in 123 bytes."""

BOT_COMMANDS: Final = ("BotReady", "BotIntent")
CONTROLLER_COMMANDS: Final = (
    "StartGame",
    "StopGame",
    "PauseGame",
    "ResumeGame",
    "NextTurn",
    "ChangeTps",
    "BotPolicyUpdate",
    "EnableDebugMode",
    "DisableDebugMode",
)
HANDSHAKES: Final = ("BotHandshake", "ControllerHandshake", "ObserverHandshake")
KNOWN_TYPES: Final = frozenset(HANDSHAKES + BOT_COMMANDS + CONTROLLER_COMMANDS)


class ProtocolError(Exception):
    """A message this client should not have sent: close its connection with `code` and
    `reason`; every other connection keeps running."""

    def __init__(self, reason: str, code: int = CLOSE_INVALID) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = clip_reason(reason)


class InvalidRequest(Exception):
    """A well-formed request the server refuses (a bad GameSetup, no matching bots): ignored."""


def clip_reason(reason: str) -> str:
    data = reason.encode()
    if len(data) <= MAX_REASON_BYTES:
        return reason
    return data[: MAX_REASON_BYTES - 3].decode(errors="ignore") + "..."


# ---- frames -------------------------------------------------------------------------------------
def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number out of range: {text[:20]}")
    return value


def decode(frame: str | bytes) -> Json:
    """One frame → a JSON object with a known string `type`."""
    if not isinstance(frame, str):
        raise ProtocolError("Binary frames are not supported", CLOSE_UNSUPPORTED)
    try:
        msg = orjson.loads(frame)
    except orjson.JSONDecodeError as e:
        msg = _decode_refused(frame, e)
    if not isinstance(msg, dict):
        raise ProtocolError("A message must be a JSON object")
    kind = msg.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("A message needs a string 'type'")
    if kind not in KNOWN_TYPES:
        raise ProtocolError(f"Unknown message type: {kind[:40]}", CLOSE_UNSUPPORTED)
    return msg


def _decode_refused(frame: str, error: orjson.JSONDecodeError) -> Any:
    """A frame orjson refused, parsed again by the standard library (rare, so its speed does not
    matter): malformed JSON, NaN, Infinity and non-finite numbers such as 1e999 get the reasons
    they always had; integers beyond a double's range (which only orjson refuses) are accepted, and
    the field readers judge them as before. Strings with lone surrogates (\\ud800), which only the
    standard library accepts, are refused: orjson could not send them back out in a message."""
    try:
        msg = json.loads(frame, parse_constant=_reject_constant, parse_float=_finite_float)
        json.dumps(msg, ensure_ascii=False).encode()
    except (ValueError, RecursionError) as e:  # UnicodeEncodeError is a ValueError
        reason = error if isinstance(e, UnicodeEncodeError) else e
        raise ProtocolError(f"Malformed JSON: {reason}") from None
    return msg


# ---- field readers (null = absent) --------------------------------------------------------------
def _where(msg: Json, key: str) -> str:
    return f"{msg.get('type', 'object')}.{key}"


def opt_str(msg: Json, key: str, max_len: int = 1000) -> str | None:
    v = msg.get(key)
    if v is None:
        return None
    if not isinstance(v, str):
        raise ProtocolError(f"{_where(msg, key)} must be a string")
    if len(v) > max_len:
        raise ProtocolError(f"{_where(msg, key)} is longer than {max_len} characters")
    return v


def req_str(msg: Json, key: str, max_len: int = 1000) -> str:
    v = opt_str(msg, key, max_len)
    if v is None or not v.strip():
        raise ProtocolError(f"{_where(msg, key)} is required")
    return v


def opt_bool(msg: Json, key: str) -> bool | None:
    v = msg.get(key)
    if v is None or isinstance(v, bool):
        return v
    raise ProtocolError(f"{_where(msg, key)} must be a boolean")


def opt_float(msg: Json, key: str) -> float | None:
    v = msg.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ProtocolError(f"{_where(msg, key)} must be a number")
    try:
        f = float(v)
    except OverflowError:
        raise ProtocolError(f"{_where(msg, key)} is out of range") from None
    if not math.isfinite(f):
        raise ProtocolError(f"{_where(msg, key)} must be finite")
    return f


def opt_int(msg: Json, key: str) -> int | None:
    v = msg.get(key)
    if v is None:
        return None
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ProtocolError(f"{_where(msg, key)} must be an integer")
    if abs(v) > 2**53:
        raise ProtocolError(f"{_where(msg, key)} is out of range")
    return v


def req_int(msg: Json, key: str) -> int:
    v = opt_int(msg, key)
    if v is None:
        raise ProtocolError(f"{_where(msg, key)} is required")
    return v


def opt_str_list(msg: Json, key: str, max_items: int = 50, max_len: int = 100) -> list[str] | None:
    v = msg.get(key)
    if v is None:
        return None
    if not isinstance(v, list) or len(v) > max_items:
        raise ProtocolError(f"{_where(msg, key)} must be a list of at most {max_items} strings")
    if not all(isinstance(s, str) and len(s) <= max_len for s in v):
        raise ProtocolError(f"{_where(msg, key)} must hold strings of at most {max_len} chars")
    return list(v)


def opt_object(msg: Json, key: str) -> Json | None:
    v = msg.get(key)
    if v is None or isinstance(v, dict):
        return v
    raise ProtocolError(f"{_where(msg, key)} must be an object")


# ---- handshakes ---------------------------------------------------------------------------------
_BOT_INFO_STRINGS = {
    "description": 250,
    "homepage": 150,
    "platform": 30,
    "programmingLang": 30,
    "teamName": 30,
    "teamVersion": 20,
    "teamMemberName": 30,
}


@dataclass(frozen=True)
class BotHandshake:
    session_id: str
    secret: str | None
    info: Json
    """BotInfo fields without secret and host/port (camelCase, nulls dropped)."""
    initial_position: tuple[float | None, float | None, float | None] | None


@dataclass(frozen=True)
class ClientHandshake:
    """ControllerHandshake or ObserverHandshake."""

    kind: str
    session_id: str
    secret: str | None
    name: str
    version: str


def parse_bot_handshake(msg: Json) -> BotHandshake:
    info: Json = {
        "name": req_str(msg, "name", 30),
        "version": req_str(msg, "version", 20),
    }
    authors = opt_str_list(msg, "authors", 20, 50)
    if not authors or not any(a.strip() for a in authors):
        raise ProtocolError("BotHandshake.authors is required")
    info["authors"] = authors
    for key, max_len in _BOT_INFO_STRINGS.items():
        if (s := opt_str(msg, key, max_len)) is not None:
            info[key] = s
    for key in ("countryCodes", "gameTypes"):
        if (lst := opt_str_list(msg, key, 20, 20)) is not None:
            info[key] = lst
    for key in ("isDroid", "debuggerAttached"):
        if (b := opt_bool(msg, key)) is not None:
            info[key] = b
    if (team := opt_int(msg, "teamId")) is not None:
        info["teamId"] = team
    pos = opt_object(msg, "initialPosition")
    initial = None
    if pos is not None:
        initial = (opt_float(pos, "x"), opt_float(pos, "y"), opt_float(pos, "direction"))
        info["initialPosition"] = {
            k: v for k, v in zip(("x", "y", "direction"), initial, strict=True) if v is not None
        }
    return BotHandshake(_session_id(msg), opt_str(msg, "secret"), info, initial)


def parse_client_handshake(msg: Json) -> ClientHandshake:
    kind = "controller" if msg["type"] == "ControllerHandshake" else "observer"
    return ClientHandshake(
        kind,
        _session_id(msg),
        opt_str(msg, "secret"),
        req_str(msg, "name", 100),
        req_str(msg, "version", 50),
    )


def _session_id(msg: Json) -> str:
    sid = msg.get("sessionId")
    if not isinstance(sid, str) or not sid:
        raise ProtocolError("Missing session id", CLOSE_POLICY)
    return sid


# ---- controller commands ------------------------------------------------------------------------
@dataclass(frozen=True)
class StartGame:
    addresses: list[tuple[str, int]]
    setup: GameSetup
    debug_mode: bool


MAX_ARENA_SIDE: Final = 10_000
"""Our limit (the official server has none): bullet slots grow with the arena's diagonal."""
MAX_ROUNDS: Final = 1_000_000
MAX_TIMEOUT_US: Final = 3_600_000_000


def parse_start_game(msg: Json, game_types: tuple[str, ...]) -> StartGame:
    """Type errors raise ProtocolError; a missing or out-of-range setup raises InvalidRequest."""
    raw = msg.get("botAddresses")
    if not isinstance(raw, list) or len(raw) > 1000:
        raise ProtocolError("StartGame.botAddresses must be a list of {host, port}")
    addresses = []
    for a in raw:
        if not isinstance(a, dict):
            raise ProtocolError("StartGame.botAddresses must be a list of {host, port}")
        host, port = opt_str(a, "host", 255), opt_int(a, "port")
        if host is None or port is None:
            raise ProtocolError("A BotAddress needs host and port")
        addresses.append((host, port))
    debug = bool(opt_bool(msg, "debugMode"))
    gs = opt_object(msg, "gameSetup")
    if gs is None:
        raise InvalidRequest("StartGame without gameSetup")
    if not addresses:
        raise InvalidRequest("StartGame without bot addresses")
    return StartGame(addresses, parse_game_setup(gs, game_types), debug)


_SETUP_INTS = {
    "arenaWidth": "arena_width",
    "arenaHeight": "arena_height",
    "minNumberOfParticipants": "min_number_of_participants",
    "numberOfRounds": "number_of_rounds",
    "maxInactivityTurns": "max_inactivity_turns",
    "turnTimeout": "turn_timeout_us",
    "readyTimeout": "ready_timeout_us",
    "defaultTurnsPerSecond": "default_turns_per_second",
}


def parse_game_setup(gs: Json, game_types: tuple[str, ...]) -> GameSetup:
    kwargs: Json = {}
    game_type = opt_str(gs, "gameType", 20)
    cooling = opt_float(gs, "gunCoolingRate")
    for key, name in _SETUP_INTS.items():
        value = opt_int(gs, key)
        if value is None:
            raise InvalidRequest(f"GameSetup.{key} is missing")
        kwargs[name] = value
    for key in [k for k in gs if k.startswith("is") and k.endswith("Locked")]:
        opt_bool(gs, key)
    if game_type is None or cooling is None:
        raise InvalidRequest("GameSetup.gameType and gunCoolingRate are required")
    max_n = opt_int(gs, "maxNumberOfParticipants")
    setup = GameSetup(
        game_type=game_type, gun_cooling_rate=cooling, max_number_of_participants=max_n, **kwargs
    )
    try:
        setup.validate(game_types)
    except ValueError as e:
        raise InvalidRequest(str(e)) from None
    if max(setup.arena_width, setup.arena_height) > MAX_ARENA_SIDE:
        raise InvalidRequest(f"arena sides are limited to {MAX_ARENA_SIDE} units")
    if setup.number_of_rounds > MAX_ROUNDS:
        raise InvalidRequest(f"numberOfRounds is limited to {MAX_ROUNDS}")
    if max(setup.turn_timeout_us, setup.ready_timeout_us) > MAX_TIMEOUT_US:
        raise InvalidRequest("turnTimeout and readyTimeout are limited to one hour")
    if max_n is not None and max_n < setup.min_number_of_participants:
        raise InvalidRequest("maxNumberOfParticipants is below minNumberOfParticipants")
    return setup


def parse_tps(msg: Json) -> int:
    tps = opt_int(msg, "tps")
    if tps is None or not -1 <= tps <= 999:
        raise ProtocolError("ChangeTps.tps must be an integer in -1..999")
    return tps


@dataclass(frozen=True)
class BotPolicy:
    bot_id: int
    debugging_enabled: bool | None
    breakpoint_enabled: bool | None


def parse_bot_policy(msg: Json) -> BotPolicy:
    return BotPolicy(
        req_int(msg, "botId"), opt_bool(msg, "debuggingEnabled"), opt_bool(msg, "breakpointEnabled")
    )
