"""BotIntent (docs/protocol.md §7.3): parsing a bot's intent, and the per-turn merge that turns the
intents of one turn into the engine's stored intent (shared.intent field names).

Pure: arena/server/game.py feeds it the parsed intents and writes the merged values to the engine.
"""

import re
from dataclasses import dataclass, field
from math import isfinite
from typing import Any, Final

from tankrl.arena.server.protocol import Json, ProtocolError, opt_float, opt_int, opt_str

MOTION_FIELDS: Final = {
    "targetSpeed": "target_speed",
    "turnRate": "turn_rate",
    "gunTurnRate": "gun_turn_rate",
    "radarTurnRate": "radar_turn_rate",
    "firepower": "firepower",
}
FLAG_FIELDS: Final = {
    "adjustGunForBodyTurn": "adjust_gun_for_body_turn",
    "adjustRadarForGunTurn": "adjust_radar_for_gun_turn",
    "adjustRadarForBodyTurn": "adjust_radar_for_body_turn",
    "rescan": "rescan",
    "fireAssist": "fire_assist",
}
DEFAULTS: Final[dict[str, float | bool]] = {
    **{name: 0.0 for name in MOTION_FIELDS.values()},
    **{name: name == "fire_assist" for name in FLAG_FIELDS.values()},
}
"""An intent with every field omitted (§7.3): rates, speed and firepower 0, fire assist on."""
COLOR_FIELDS: Final = (
    "bodyColor",
    "turretColor",
    "radarColor",
    "bulletColor",
    "scanColor",
    "tracksColor",
    "gunColor",
)
_COLOR = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
MAX_TEAM_MESSAGES: Final = 64
MAX_TEXT: Final = 65_536


@dataclass(frozen=True)
class BotIntent:
    motion: dict[str, float | bool]
    """Engine fields that were present (snake_case names)."""
    colors: dict[str, str | None]
    """Colour fields that were present; None = back to the default (a blank string)."""
    std_out: str | None
    std_err: str | None
    debug_graphics: str | None


_TEXT_FIELDS: Final = {"stdOut": "std_out", "stdErr": "std_err", "debugGraphics": "debug_graphics"}
_NUMBER, _FLAG, _COLOR_FIELD, _TEXT, _TEAM = range(5)
_INTENT_SPEC: Final[dict[str, tuple[int, str]]] = {
    **{key: (_NUMBER, name) for key, name in MOTION_FIELDS.items()},
    **{key: (_FLAG, name) for key, name in FLAG_FIELDS.items()},
    **{key: (_COLOR_FIELD, key) for key in COLOR_FIELDS},
    **{key: (_TEXT, name) for key, name in _TEXT_FIELDS.items()},
    "teamMessages": (_TEAM, ""),
}
_FAST_INT: Final = 2**53
"""Integers up to this size are converted inline; larger ones go through opt_float's checks."""


def parse_bot_intent(msg: Json) -> BotIntent:
    """One pass over the message (a hot path: every bot, every turn); nulls are absent.

    The Bot APIs send every field, most of them null, so a null is skipped first, and plain
    floats and ints are taken without a helper call."""
    motion: dict[str, float | bool] = {}
    colors: dict[str, str | None] = {}
    texts: dict[str, str] = {}
    for key, value in msg.items():
        if value is None:
            continue
        spec = _INTENT_SPEC.get(key)
        if spec is None:
            continue
        kind, name = spec
        if kind == _NUMBER:
            t = type(value)
            if t is float and isfinite(value):
                motion[name] = value
            elif t is int and -_FAST_INT <= value <= _FAST_INT:
                motion[name] = float(value)
            else:
                motion[name] = _num(msg, key)
        elif kind == _FLAG:
            if type(value) is not bool:
                raise ProtocolError(f"BotIntent.{key} must be a boolean")
            motion[name] = value
        elif kind == _COLOR_FIELD:
            colors[key] = _color(msg, key)
        elif kind == _TEXT:
            texts[name] = opt_str(msg, key, 4 * MAX_TEXT) or ""
        else:
            _check_team_messages(value)
    return BotIntent(
        motion,
        colors,
        texts.get("std_out"),
        texts.get("std_err"),
        texts.get("debug_graphics"),
    )


def _num(msg: Json, key: str) -> float:
    f = opt_float(msg, key)
    assert f is not None
    return f


def _color(msg: Json, key: str) -> str | None:
    c = opt_str(msg, key, 20)
    assert c is not None
    if not c.strip():
        return None
    if _COLOR.fullmatch(c):
        return c
    raise ProtocolError(f"BotIntent.{key} must be a colour like #RRGGBB")


def _check_team_messages(team: Any) -> None:
    if (
        not isinstance(team, list)
        or len(team) > MAX_TEAM_MESSAGES
        or not all(isinstance(t, dict) for t in team)
    ):
        raise ProtocolError("BotIntent.teamMessages must be a list of TeamMessage objects")
    for t in team:
        opt_str(t, "message", MAX_TEXT)
        opt_str(t, "messageType", 200)
        opt_int(t, "receiverId")


@dataclass
class IntentSlot:
    """One bot's intents between two turns (§7.3).

    The first intent of a turn starts from DEFAULTS, a second one in the same turn overrides
    field by field; `take()` hands the turn's intent to the engine (None = nothing arrived: the
    engine keeps the stored intent, a skipped turn). Colours and debug graphics persist until
    changed; console text is kept only for the turn it arrived in.
    """

    pending: dict[str, float | bool] | None = None
    colors: dict[str, str] = field(default_factory=dict)
    std_out: str | None = None
    std_err: str | None = None
    debug_graphics: str | None = None
    intents_received: int = 0

    def receive(self, intent: BotIntent) -> bool:
        """Store one BotIntent; True if it is the first of this turn."""
        first = self.pending is None
        if first:
            self.pending = {**DEFAULTS, **intent.motion}
        else:
            assert self.pending is not None
            self.pending.update(intent.motion)
        for key, c in intent.colors.items():
            if c is None:
                self.colors.pop(key, None)
            else:
                self.colors[key] = c
        if intent.std_out is not None:
            self.std_out = (self.std_out or "")[-MAX_TEXT:] + intent.std_out
        if intent.std_err is not None:
            self.std_err = (self.std_err or "")[-MAX_TEXT:] + intent.std_err
        if intent.debug_graphics is not None:
            self.debug_graphics = intent.debug_graphics
        self.intents_received += 1
        return first

    @property
    def answered(self) -> bool:
        return self.pending is not None

    def take(self) -> bool:
        """Whether an intent arrived this turn; starts the next turn."""
        answered, self.pending = self.pending is not None, None
        return answered

    def take_text(self) -> tuple[str | None, str | None]:
        out = (self.std_out, self.std_err)
        self.std_out = self.std_err = None
        return out

    def clear_turn(self) -> None:
        """Round start: intents received before turn 1 are discarded."""
        self.pending = None
