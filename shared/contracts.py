"""Contracts: an observation layout plus an action layout and decoder, pinned by SHA-256.

The id is the SHA-256 of `canonical_text()`, which lists every feature with its raw quantity and
normaliser and every action dim with its squash and scale. The observation encoder and the action
decoder in `actor/` read these tables, so the text and the behaviour cannot drift apart.
Weights, checkpoints, packages and trajectories carry the id; a mismatch is an error naming both.
"""

import hashlib
from dataclasses import dataclass, replace
from typing import Literal

NormKind = Literal["scale", "sin", "cos"]
Squash = Literal["sigmoid", "tanh"]


class ContractError(ValueError):
    """A payload was made for another contract, or a contract name is unknown."""


@dataclass(frozen=True)
class Normaliser:
    """How a raw quantity becomes an observation float.

    `scale`: raw / divisor, clipped to [lo, hi]; `divisor` is a number or one of `arena_width`,
    `arena_height`, `arena_diagonal`. `sin`/`cos`: of the raw angle in degrees.
    """

    kind: NormKind
    divisor: float | str = 1.0
    lo: float = -1.0
    hi: float = 1.0

    def text(self) -> str:
        if self.kind == "scale":
            return f"clip(raw / {self.divisor!s}, {self.lo!r}, {self.hi!r})"
        return f"{self.kind}(radians(raw))"


@dataclass(frozen=True)
class Feature:
    """One observation float: a named raw quantity the encoder computes, and its normaliser."""

    name: str
    raw: str
    norm: Normaliser


@dataclass(frozen=True)
class ActionDim:
    """One action dim: squash(raw network output) * scale + offset.

    `scale` is a number, `arena_width`, `arena_height` or `max_turn_rate(speed)`.
    """

    name: str
    squash: Squash
    scale: float | str
    offset: float = 0.0

    def text(self) -> str:
        return f"{self.squash} * {self.scale!s} + {self.offset!r}"


@dataclass(frozen=True)
class Contract:
    """A named observation + action layout; `sha256` identifies it everywhere."""

    name: str
    decoder: str
    features: tuple[Feature, ...]
    actions: tuple[ActionDim, ...]

    @property
    def obs_size(self) -> int:
        return len(self.features)

    @property
    def action_size(self) -> int:
        return len(self.actions)

    def canonical_text(self) -> str:
        lines = [f"tankrl-contract {self.name}", f"decoder {self.decoder}"]
        lines += [
            f"obs {i} {f.name} = {f.raw} -> {f.norm.text()}" for i, f in enumerate(self.features)
        ]
        lines += [f"act {i} {a.name} = {a.text()}" for i, a in enumerate(self.actions)]
        return "\n".join(lines) + "\n"

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.canonical_text().encode("utf-8")).hexdigest()

    def require(self, other_sha256: str, what: str) -> None:
        """Raise ContractError naming both ids unless `other_sha256` is this contract's id."""
        if other_sha256 != self.sha256:
            raise ContractError(
                f"{what} was made for contract {other_sha256}, "
                f"but this is contract {self.name} ({self.sha256})"
            )


def _scale(divisor: float | str, lo: float = -1.0, hi: float = 1.0) -> Normaliser:
    return Normaliser("scale", divisor, lo, hi)


_UNIT = _scale(1.0, 0.0, 1.0)
HISTORY_TURNS = 5
"""Length of the enemy history window (turns t-1 .. t-5)."""

WALL_NEAR_DISTANCE = 200.0
"""Wall distances saturate at this many units: closer walls matter, farther ones do not."""

_CURRENT = (
    Feature("own_x", "own.x", _scale("arena_width", 0.0, 1.0)),
    Feature("own_y", "own.y", _scale("arena_height", 0.0, 1.0)),
    Feature("own_speed", "own.speed", _scale(8.0)),
    Feature("own_energy", "own.energy", _scale(100.0, 0.0, 1.0)),
    Feature("own_gun_heat", "own.gun_heat", _scale(3.0, 0.0, 1.0)),
    Feature("own_heading_sin", "own.direction", Normaliser("sin")),
    Feature("own_heading_cos", "own.direction", Normaliser("cos")),
    Feature("enemy_x", "enemy.x", _scale("arena_width", 0.0, 1.0)),
    Feature("enemy_y", "enemy.y", _scale("arena_height", 0.0, 1.0)),
    Feature("enemy_speed", "enemy.speed", _scale(8.0)),
    Feature("enemy_energy", "enemy.energy", _scale(100.0, 0.0, 1.0)),
    Feature("enemy_heading_sin", "enemy.direction", Normaliser("sin")),
    Feature("enemy_heading_cos", "enemy.direction", Normaliser("cos")),
    Feature("enemy_fire_power", "enemy.fire_power_this_turn", _scale(3.0, 0.0, 1.0)),
)
_DERIVED = (
    Feature("own_acceleration", "own.speed - own.previous_speed", _scale(2.0)),
    Feature("own_turn_rate", "own.turn_rate", _scale(10.0)),
    Feature("enemy_gun_bearing", "gun_bearing_to(enemy)", _scale(180.0)),
    Feature("enemy_distance", "distance_to(enemy)", _scale("arena_diagonal", 0.0, 1.0)),
    Feature("wall_left", "own.x - 18", _scale(WALL_NEAR_DISTANCE, 0.0, 1.0)),
    Feature("wall_right", "arena_width - 18 - own.x", _scale(WALL_NEAR_DISTANCE, 0.0, 1.0)),
    Feature("wall_bottom", "own.y - 18", _scale(WALL_NEAR_DISTANCE, 0.0, 1.0)),
    Feature("wall_top", "arena_height - 18 - own.y", _scale(WALL_NEAR_DISTANCE, 0.0, 1.0)),
)
_HISTORY = tuple(
    f
    for k in range(1, HISTORY_TURNS + 1)
    for f in (
        Feature(f"enemy_x_t-{k}", f"enemy_history[{k}].x", _scale("arena_width", 0.0, 1.0)),
        Feature(f"enemy_y_t-{k}", f"enemy_history[{k}].y", _scale("arena_height", 0.0, 1.0)),
        Feature(f"enemy_speed_t-{k}", f"enemy_history[{k}].speed", _scale(8.0)),
        Feature(f"enemy_energy_t-{k}", f"enemy_history[{k}].energy", _scale(100.0, 0.0, 1.0)),
    )
)
_COMMAND_FEEDBACK = (
    Feature("goto_remaining", "distance_to(goto_target)", _scale("arena_diagonal", 0.0, 1.0)),
    Feature("gun_remaining", "abs(gun_bearing_to(aim_target))", _scale(180.0, 0.0, 1.0)),
)

V1 = Contract(
    name="v1",
    decoder="motor: adjust_gun_for_body_turn, adjust_radar_for_gun_turn, "
    "adjust_radar_for_body_turn; fire when fire_decision >= 0 and gun_heat == 0; "
    "radar by EnemyTracker",
    features=_CURRENT + _DERIVED + _HISTORY,
    actions=(
        ActionDim("target_speed", "tanh", 8.0),
        ActionDim("turn_rate", "tanh", "max_turn_rate(speed)"),
        ActionDim("gun_turn_rate", "tanh", 20.0),
        ActionDim("fire_decision", "tanh", 1.0),
        ActionDim("fire_power", "sigmoid", 2.9, 0.1),
    ),
)

V2 = Contract(
    name="v2",
    decoder="goto_aim: goto controller (sign-correct speed planner; the drive direction kept "
    "while moving until the target lies 165 deg off it, from rest reverse beyond 90 deg; speed "
    "capped so the tightest turn drives through the target), aimTo controller "
    "(+-20 deg/turn); adjust_gun_for_body_turn, adjust_radar_for_gun_turn, "
    "adjust_radar_for_body_turn; fire when fire_decision >= 0 and gun_heat == 0; "
    "radar by EnemyTracker",
    features=V1.features + _COMMAND_FEEDBACK,
    actions=(
        ActionDim("goto_x", "sigmoid", "arena_width"),
        ActionDim("goto_y", "sigmoid", "arena_height"),
        ActionDim("aim_x", "sigmoid", "arena_width"),
        ActionDim("aim_y", "sigmoid", "arena_height"),
        ActionDim("fire_decision", "tanh", 1.0),
        ActionDim("fire_power", "sigmoid", 2.9, 0.1),
    ),
)

_WAVES = (
    Feature("enemy_wave_eta", "enemy_wave.eta", _UNIT),
    Feature("enemy_wave_offset", "enemy_wave.offset", _scale(1.0)),
    Feature("enemy_lateral_speed", "enemy.lateral_speed", _scale(1.0)),
    Feature("enemy_reversal_age", "enemy.reversal_age", _UNIT),
)
"""Against bots that dodge and aim by guess factors (actor/enemy_waves.py, already normalised):
when the newest enemy wave reaches us and where on it we stand, and how the enemy moves across
our line of sight and how long since it last reversed."""


def _extended(base: Contract, name: str, features: tuple[Feature, ...]) -> Contract:
    """`base` with `features` appended to its observation: same decoder and actions."""
    return replace(base, name=name, features=base.features + features)


V3 = _extended(V2, "v3", _WAVES)

V4 = Contract(
    name="v4",
    decoder="goto_lead: aim point = the enemy estimate + aim_lead x its velocity x the flight "
    "time of a bullet of fire_power to that point (3 iterations, clipped 18 from the walls); "
    + V2.decoder.removeprefix("goto_aim: "),
    features=V3.features,
    actions=(
        ActionDim("goto_x", "sigmoid", "arena_width"),
        ActionDim("goto_y", "sigmoid", "arena_height"),
        ActionDim("aim_lead", "tanh", 1.5),
        ActionDim("fire_decision", "tanh", 1.0),
        ActionDim("fire_power", "sigmoid", 2.9, 0.1),
    ),
)
"""v3's observation; the gun aims by a lead fraction (1 = linear targeting, 0 = head-on, < 0 a
bet on a reversal) instead of an arena point, so a standing enemy is hit whatever the lead and
what PPO learns about leading a dodger cannot blur the aim at simple bots (actor/lead.py)."""

_HIT_RATES = (
    Feature("own_hit_rate", "own.hit_rate", _UNIT),
    Feature("enemy_hit_rate", "enemy.hit_rate", _UNIT),
)
"""How well each gun does this round (actor/hit_rates.py): the decayed share of our shots that
hit, and of the enemy's detected shots that hit us. They tell a guess-factor gun that a round
needs caution against from a simple bot that it does not."""

V5 = _extended(V4, "v5", _HIT_RATES)
"""v4 and both guns' hit rates this round, so that one policy can be cautious against a bot that
hits it and bold against one that does not."""

CONTRACTS: dict[str, Contract] = {c.name: c for c in (V2, V1, V3, V4, V5)}
DEFAULT_CONTRACT = "v2"


def get_contract(name: str) -> Contract:
    """Look a contract up by name (`v1`, `v2`, `v3`, `v4`) or by its SHA-256."""
    for c in CONTRACTS.values():
        if name in (c.name, c.sha256):
            return c
    raise ContractError(f"unknown contract {name!r}; known: {', '.join(CONTRACTS)}")
