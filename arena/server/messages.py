"""The outgoing half of the Tank Royale protocol: the server's non-tick messages as camelCase
JSON objects (ticks come from arena/server/ticks.py), and `encode`, the one serialiser of every
outgoing message. Pure: the session builds them, the server shell encodes and sends them.

Only schema fields are sent and nulls are omitted (as Gson does). Bots only ever receive the
seven types in BOT_MESSAGE_TYPES; everything else goes to observers and controllers.
"""

from collections.abc import Iterable, Mapping
from importlib import metadata
from typing import Any, Final

import orjson

from tankrl.arena.rules.game_setup import GameSetup
from tankrl.shared.game_constants import BEHAVIOR_VERSION

Json = dict[str, Any]

BOT_MESSAGE_TYPES: Final = frozenset(
    {
        "ServerHandshake",
        "GameStartedEventForBot",
        "RoundStartedEvent",
        "TickEventForBot",
        "SkippedTurnEvent",
        "RoundEndedEventForBot",
        "GameEndedEventForBot",
    }
)
SERVER_NAME: Final = "tankrl arena server"
VARIANT: Final = "Tank Royale"
FALLBACK_VERSION: Final = "1.4.0"


def encode(msg: Json) -> bytes:
    """A message as compact UTF-8 JSON (as the official server's Gson writes it), to be sent in a
    Text frame (`send(data, text=True)`): the Bot APIs refuse Binary frames. Floats are written in
    shortest round-trip form (1.0 stays 1.0), ints as ints, numpy scalars as the numbers they hold.
    """
    return orjson.dumps(msg, option=orjson.OPT_SERIALIZE_NUMPY)


OBSERVER_TICK_PREFIX: Final = b'{"type":"TickEventForObserver"'
"""How our server's observer ticks begin (`encode` is compact and the tick's type comes first): a
controller of ours that only counts them recognises them without decoding them
(ws_connection.CountingClientConnection); any other spelling is decoded and judged by type."""


def server_version() -> str:
    """`major.minor.0` of the installed Python Bot API (which refuses another major), else
    1.4.0. Reads package metadata only; the Bot API itself is not imported."""
    try:
        parts = metadata.version("robocode-tank-royale").split(".")
        major, minor = int(parts[0]), int(parts[1])
    except (metadata.PackageNotFoundError, ValueError, IndexError):
        return FALLBACK_VERSION
    return f"{major}.{minor}.0" if major >= 1 else FALLBACK_VERSION


def server_handshake(
    session_id: str, version: str, game_types: Iterable[str], setup: GameSetup | None
) -> Json:
    msg: Json = {
        "type": "ServerHandshake",
        "sessionId": session_id,
        "name": SERVER_NAME,
        "variant": VARIANT,
        "version": version,
        "behaviorVersion": BEHAVIOR_VERSION,
        "gameTypes": list(game_types),
        "features": {"debugMode": True, "breakpointMode": False},
    }
    if setup is not None:
        msg["gameSetup"] = setup.to_protocol()
    return msg


def bot_info(session_id: str, info: Mapping[str, Any], host: str, port: int) -> Json:
    """A BotListUpdate item: the handshake's fields plus the remote address."""
    return {"type": "BotInfo", "sessionId": session_id, **info, "host": host, "port": port}


def bot_list_update(bots: Iterable[Json]) -> Json:
    return {"type": "BotListUpdate", "bots": list(bots)}


def game_started_for_bot(
    my_id: int,
    setup: GameSetup,
    names: Iterable[tuple[int, str]],
    start: tuple[float | None, float | None, float | None] | None = None,
) -> Json:
    msg: Json = {
        "type": "GameStartedEventForBot",
        "myId": my_id,
        "gameSetup": setup.to_protocol(),
        "botNames": [{"botId": i, "name": n} for i, n in names],
    }
    if start is not None:
        for key, value in zip(("startX", "startY", "startDirection"), start, strict=True):
            if value is not None:
                msg[key] = value
    return msg


_PARTICIPANT_KEYS: Final = (
    "name",
    "version",
    "authors",
    "description",
    "homepage",
    "countryCodes",
    "gameTypes",
    "platform",
    "programmingLang",
    "initialPosition",
    "teamId",
    "teamName",
    "teamVersion",
    "isDroid",
    "debuggerAttached",
)


def participant(bot_id: int, session_id: str, info: Mapping[str, Any]) -> Json:
    p: Json = {"id": bot_id, "sessionId": session_id}
    p.update((k, info[k]) for k in _PARTICIPANT_KEYS if info.get(k) is not None)
    return p


def game_started_for_observer(setup: GameSetup, participants: Iterable[Json]) -> Json:
    return {
        "type": "GameStartedEventForObserver",
        "gameSetup": setup.to_protocol(),
        "participants": list(participants),
    }


def round_started(round_number: int) -> Json:
    return {"type": "RoundStartedEvent", "roundNumber": round_number}


def skipped_turn(turn_number: int) -> Json:
    return {"type": "SkippedTurnEvent", "turnNumber": turn_number}


def results_for_observer(
    results: list[Json], ids: list[int], names: list[tuple[str, str]]
) -> list[Json]:
    """ResultsForObserver rows (id, name, version + the ResultsForBot fields) sorted by rank."""
    rows = [
        {"id": ids[seat], "name": names[seat][0], "version": names[seat][1], **r}
        for seat, r in enumerate(results)
    ]
    rows.sort(key=lambda r: (r["rank"], r["id"]))
    return rows


def round_ended_for_bot(round_number: int, turn_number: int, results: Json) -> Json:
    return {
        "type": "RoundEndedEventForBot",
        "roundNumber": round_number,
        "turnNumber": turn_number,
        "results": results,
    }


def round_ended_for_observer(round_number: int, turn_number: int, results: list[Json]) -> Json:
    return {
        "type": "RoundEndedEventForObserver",
        "roundNumber": round_number,
        "turnNumber": turn_number,
        "results": results,
    }


def game_ended_for_bot(rounds: int, results: Json) -> Json:
    return {"type": "GameEndedEventForBot", "numberOfRounds": rounds, "results": results}


def game_ended_for_observer(rounds: int, results: list[Json]) -> Json:
    return {"type": "GameEndedEventForObserver", "numberOfRounds": rounds, "results": results}


def game_aborted() -> Json:
    return {"type": "GameAbortedEvent"}


def game_paused(cause: str) -> Json:
    return {"type": "GamePausedEventForObserver", "pauseCause": cause}


def game_resumed() -> Json:
    return {"type": "GameResumedEventForObserver"}


def tps_changed(tps: int) -> Json:
    return {"type": "TpsChangedEvent", "tps": tps}


ID_KEYS: Final = frozenset(
    {"id", "ownerId", "victimId", "botId", "scannedBotId", "scannedByBotId", "senderId", "myId"}
)


def remap_ids(obj: Any, ids: Mapping[int, int]) -> Any:
    """Replace engine bot ids (seat + 1) by announced ids, in place, wherever a bot id can occur.

    Only needed when bots were dropped at the ready timeout, so announced ids have gaps.
    """
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ID_KEYS and isinstance(v, int) and not isinstance(v, bool):
                obj[k] = ids.get(v, v)
            elif isinstance(v, dict | list):
                remap_ids(v, ids)
    elif isinstance(obj, list):
        for v in obj:
            remap_ids(v, ids)
    return obj
