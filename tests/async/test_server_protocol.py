"""The pure halves of the server (no sockets): decoding and validating every incoming message
type (anything malformed is a ProtocolError with a close code, never another exception; numbers
out of range keep their reasons), encoding outgoing messages as compact UTF-8 JSON, the
intent merge of docs/protocol.md §7.3, address matching and id order, id remapping, session ids, the
announced version, and that the pure modules import no sockets, Ray, torch or Bot API."""

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tankrl.arena.rules.game_setup import GAME_TYPES, GameSetup
from tankrl.arena.server import intent_merge as merge
from tankrl.arena.server import messages as out
from tankrl.arena.server import protocol as proto
from tankrl.arena.server.lobby import Lobby, LobbyBot, canonical_host
from tankrl.arena.server.outbox import new_session_id

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids, max_size=4)
    ),
    max_leaves=20,
)
FIELDS = ["sessionId", "name", "version", "authors", "secret", "turnRate", "targetSpeed",
          "firepower", "rescan", "fireAssist", "bodyColor", "teamMessages", "stdOut",
          "botAddresses", "gameSetup", "tps", "botId", "initialPosition", "isDroid"]  # fmt: skip
messages = st.builds(
    lambda kind, fields: {"type": kind, **fields},
    st.sampled_from(sorted(proto.KNOWN_TYPES)),
    st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6),
)


def parse(msg: dict[str, Any]) -> object:
    kind = msg["type"]
    if kind == "BotHandshake":
        return proto.parse_bot_handshake(msg)
    if kind in ("ControllerHandshake", "ObserverHandshake"):
        return proto.parse_client_handshake(msg)
    if kind == "BotIntent":
        return merge.parse_bot_intent(msg)
    if kind == "StartGame":
        return proto.parse_start_game(msg, GAME_TYPES)
    if kind == "ChangeTps":
        return proto.parse_tps(msg)
    if kind == "BotPolicyUpdate":
        return proto.parse_bot_policy(msg)
    return None


@settings(max_examples=200, deadline=None)
@given(messages)
def test_any_message_parses_or_raises_a_protocol_error(msg: dict[str, Any]) -> None:
    try:
        decoded = proto.decode(json.dumps(msg))
        parse(decoded)
    except proto.ProtocolError as e:
        assert e.code in (proto.CLOSE_UNSUPPORTED, proto.CLOSE_INVALID, proto.CLOSE_POLICY)
        assert e.reason and len(e.reason.encode()) <= 123
    except proto.InvalidRequest:
        assert msg["type"] == "StartGame"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80) | st.binary(max_size=40))
def test_any_frame_decodes_or_raises_a_protocol_error(frame: str | bytes) -> None:
    try:
        msg = proto.decode(frame)
    except proto.ProtocolError:
        return
    assert isinstance(msg, dict) and msg["type"] in proto.KNOWN_TYPES


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b'{"type": "BotReady"}', 1003),
        ("not json", 1007),
        ("[1, 2]", 1007),
        ('{"type": 1}', 1007),
        ('{"type": "Nope"}', 1003),
        ('{"type": "BotIntent", "turnRate": NaN}', 1007),
        ('{"type": "BotIntent", "turnRate": 1e999}', 1007),
        ("[" * 100_000, 1007),
    ],
)
def test_malformed_frames_name_their_close_code(frame: str | bytes, code: int) -> None:
    with pytest.raises(proto.ProtocolError) as e:
        merge.parse_bot_intent(proto.decode(frame))
    assert e.value.code == code


NINES = "9" * 400


@pytest.mark.parametrize(
    ("frame", "reason"),
    [
        ('{"type": "BotIntent", "turnRate": NaN}', "Malformed JSON: NaN is not a JSON number"),
        ('{"type": "BotIntent", "turnRate": -Infinity}',
         "Malformed JSON: -Infinity is not a JSON number"),
        ('{"type": "BotIntent", "turnRate": 1e999}', "Malformed JSON: number out of range: 1e999"),
        ('{"type": "BotIntent", "turnRate": ' + NINES + "}", "BotIntent.turnRate is out of range"),
        ('{"type": "BotIntent", "turnRate": -' + NINES + "}", "BotIntent.turnRate is out of range"),
        ('{"type": "BotIntent", "stdOut": "\\ud800"}', "Malformed JSON: "),
        ("not json", "Malformed JSON: Expecting value: line 1 column 1 (char 0)"),
    ],
)  # fmt: skip
def test_numbers_out_of_range_and_bad_json_close_with_their_reason(frame: str, reason: str) -> None:
    with pytest.raises(proto.ProtocolError) as e:
        merge.parse_bot_intent(proto.decode(frame))
    assert e.value.code == proto.CLOSE_INVALID and e.value.reason.startswith(reason)


def test_a_huge_integer_in_a_field_nobody_reads_is_ignored() -> None:
    assert proto.decode('{"type": "BotReady", "extra": ' + NINES + "}")["type"] == "BotReady"


def test_messages_are_encoded_as_compact_utf8_json() -> None:
    msg = {"type": "T", "turnNumber": 3, "energy": 100.0, "x": 0.1, "tiny": 1e-7,
           "name": "Björn", "id": np.int32(2), "power": np.float64(1.5), "ok": True}  # fmt: skip
    data = out.encode(msg)
    assert isinstance(data, bytes)
    assert data.startswith(b'{"type":"T","turnNumber":3,"energy":100.0,"x":0.1,')
    decoded = json.loads(data.decode("utf-8"))
    assert decoded == {**msg, "id": 2, "power": 1.5}
    assert type(decoded["turnNumber"]) is int and type(decoded["energy"]) is float
    assert "Björn".encode() in data


def test_bot_intent_fields() -> None:
    intent = merge.parse_bot_intent({
        "type": "BotIntent", "turnRate": 5, "targetSpeed": -2.5, "firepower": None,
        "rescan": True, "bodyColor": "#ff0000", "gunColor": " ", "stdOut": "hi\n",
        "teamMessages": [{"message": "m", "messageType": "t"}], "unknownField": 1,
    })  # fmt: skip
    assert intent.motion == {"turn_rate": 5.0, "target_speed": -2.5, "rescan": True}
    assert intent.colors == {"bodyColor": "#ff0000", "gunColor": None}
    assert intent.std_out == "hi\n"
    for bad in ({"turnRate": True}, {"rescan": 1}, {"bodyColor": "red"}, {"teamMessages": {}}):
        with pytest.raises(proto.ProtocolError):
            merge.parse_bot_intent({"type": "BotIntent", **bad})


def test_intent_merge_of_protocol_7_3() -> None:
    slot = merge.IntentSlot()
    assert not slot.answered
    first = merge.parse_bot_intent({"type": "BotIntent", "turnRate": 5, "fireAssist": False,
                                    "bodyColor": "#123", "stdOut": "a"})  # fmt: skip
    assert slot.receive(first)
    assert slot.pending == {**merge.DEFAULTS, "turn_rate": 5.0, "fire_assist": False}
    second = merge.parse_bot_intent({"type": "BotIntent", "targetSpeed": 4, "turnRate": None,
                                     "stdOut": "b"})  # fmt: skip
    assert not slot.receive(second)
    assert slot.pending == {**merge.DEFAULTS, "turn_rate": 5.0, "fire_assist": False,
                            "target_speed": 4.0}  # fmt: skip
    assert slot.take() and not slot.answered and not slot.take()
    assert slot.take_text() == ("ab", None) and slot.take_text() == (None, None)
    third = merge.parse_bot_intent({"type": "BotIntent", "gunTurnRate": 1})
    slot.receive(third)
    assert slot.pending == {**merge.DEFAULTS, "gun_turn_rate": 1.0}
    assert slot.colors == {"bodyColor": "#123"}
    slot.receive(merge.parse_bot_intent({"type": "BotIntent", "bodyColor": ""}))
    assert slot.colors == {}


def test_start_game_validation() -> None:
    setup = GameSetup(number_of_rounds=3).to_protocol()
    msg = {"type": "StartGame", "botAddresses": [{"host": "localhost", "port": 5000}],
           "gameSetup": setup}  # fmt: skip
    req = proto.parse_start_game(msg, GAME_TYPES)
    assert req.addresses == [("localhost", 5000)] and req.setup.number_of_rounds == 3
    assert req.setup == GameSetup(number_of_rounds=3)
    bad_setups = [
        {"numberOfRounds": 0},
        {"gameType": "chess"},
        {"arenaWidth": 50_000},
        {"readyTimeout": 0},
        {"turnTimeout": None},
        {"maxNumberOfParticipants": 1},
    ]
    for bad in bad_setups:
        with pytest.raises(proto.InvalidRequest):
            proto.parse_start_game({**msg, "gameSetup": {**setup, **bad}}, GAME_TYPES)
    with pytest.raises(proto.InvalidRequest):
        proto.parse_start_game({**msg, "botAddresses": []}, GAME_TYPES)
    with pytest.raises(proto.ProtocolError):
        proto.parse_start_game({**msg, "gameSetup": {**setup, "arenaWidth": "wide"}}, GAME_TYPES)


def test_addresses_match_like_the_official_server_and_keep_their_order() -> None:
    assert canonical_host("localhost") == canonical_host("::1") == "127.0.0.1"
    assert canonical_host("::ffff:10.0.0.1") == "10.0.0.1"
    assert canonical_host("Example.ORG") == "example.org"
    lobby = Lobby()
    for i, port in enumerate((5001, 5002, 5003)):
        lobby.add(LobbyBot(f"s{i}", {"name": f"B{i}"}, "127.0.0.1", port))
    chosen = lobby.select([("localhost", 5003), ("127.0.0.1", 5001), ("127.0.0.1", 5003),
                           ("127.0.0.1", 9999)])  # fmt: skip
    assert [b.session_id for b in chosen] == ["s2", "s0"]


def test_remap_ids_touches_bot_ids_only() -> None:
    tick = {"id": 2, "bulletId": 2, "events": [{"scannedBotId": 1, "scannedByBotId": 2,
            "bullet": {"bulletId": 1, "ownerId": 2}}], "turnNumber": 2}  # fmt: skip
    out.remap_ids(tick, {1: 1, 2: 3})
    assert tick == {"id": 3, "bulletId": 2, "events": [{"scannedBotId": 1, "scannedByBotId": 3,
                    "bullet": {"bulletId": 1, "ownerId": 3}}], "turnNumber": 2}  # fmt: skip


def test_session_ids_and_version() -> None:
    ids = {new_session_id() for _ in range(100)}
    assert len(ids) == 100 and {len(i) for i in ids} == {22}
    major, minor, _ = out.server_version().split(".")
    assert major == "1" and minor.isdigit()
