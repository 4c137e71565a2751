"""Decode raw policy outputs [B, A] into motor commands, by the contract's ActionDim table.

Reads the sampled (pre-squash) actions and the BotView; gives actor.brain the target speed, body,
gun turn rates and firepower, and keeps the current goto/aim targets actor.observation reads.
Each dim is squash(raw) * scale + offset (sigmoid(x) computed as (1 + tanh(x / 2)) / 2); v1 sends
the motor dims directly, v2 runs the goto and aimTo controllers on its points, and v4 makes its
aim point from a lead fraction and the tracker's enemy estimate (actor/lead.py). A shot needs
fire_decision >= 0, gun_heat == 0 exactly and energy > power; otherwise firepower is 0.

Safe action: a bot whose output row holds NaN or an infinity is counted (per bot and in total)
and that turn gets target speed = the planner's braking step toward 0 (new_target_speed(speed,
0)), body and gun turn rate 0 and firepower 0. For v2 that equals goto = own position and aim =
the current gun direction, which become its targets. Non-finite values never reach the math:
the BotView's are rejected by actor.brain once per turn, so the math here runs unchecked.
"""

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from tankrl.actor.controllers import goto_and_aim
from tankrl.actor.lead import lead_point
from tankrl.shared.botview import BotView
from tankrl.shared.contracts import Contract, ContractError
from tankrl.shared.movement import max_turn_rate_unchecked, new_target_speed

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
Bool = npt.NDArray[np.bool_]

MOTOR_DIMS = ("target_speed", "turn_rate", "gun_turn_rate", "fire_decision", "fire_power")
GOTO_AIM_DIMS = ("goto_x", "goto_y", "aim_x", "aim_y", "fire_decision", "fire_power")
GOTO_LEAD_DIMS = ("goto_x", "goto_y", "aim_lead", "fire_decision", "fire_power")
DECODERS = {"motor": MOTOR_DIMS, "goto_aim": GOTO_AIM_DIMS, "goto_lead": GOTO_LEAD_DIMS}
"""Decoder kind (the contract's `decoder` text up to the colon) -> the dim names it needs."""

PER_BOT_SCALES = ("arena_width", "arena_height", "max_turn_rate(speed)")
SAFE_AIM_DISTANCE = 100.0
"""The safe action's aim point lies this far along the current gun direction."""

_SQUASH = {"tanh": (1.0, 1.0, 0.0), "sigmoid": (0.5, 0.5, 0.5)}
"""squash(x) = tanh(x * pre) * mul + add."""

_ZERO = np.array(0.0)
"""A 0-d operand: numpy converts a Python float operand on every call (same bits)."""


@dataclass
class Motor:
    """What the decoder asks of the body, gun and trigger this turn; arrays [B]."""

    target_speed: F64
    turn_rate: F64
    gun_turn_rate: F64
    firepower: F64


class EnemyEstimate(Protocol):
    """Where the enemy is believed to be and how it moves, arrays [B] (actor.tracker's)."""

    x: F64
    y: F64
    speed: F64
    direction: F64
    """degrees"""


class Targets:
    """The current goto and aim points [B] (v2); `active` is False before the first decision.

    `points` [2, 2, B] holds x then y of the goto point (column 0) and the aim point (column 1);
    `points_x`/`points_y` [2, B] and `goto_x`, `goto_y`, `aim_x`, `aim_y` are views of it.
    """

    def __init__(self, n_bots: int, points: F64 | None = None):
        self.points = np.zeros((2, 2, n_bots)) if points is None else points
        self.points_x, self.points_y = self.points
        self.goto_x, self.aim_x = self.points_x
        self.goto_y, self.aim_y = self.points_y
        self.active = np.zeros(n_bots, dtype=np.bool_)

    def reset(self, mask: Bool) -> None:
        self.active[mask] = False


class ActionDecoder:
    """Decodes actions of one contract for B bots; counts non-finite outputs."""

    def __init__(self, contract: Contract, n_bots: int):
        kind = contract.decoder.split(":", 1)[0]
        if kind not in DECODERS:
            raise ContractError(f"contract {contract.name}: unknown decoder {kind!r}")
        names = [a.name for a in contract.actions]
        if sorted(names) != sorted(DECODERS[kind]):
            raise ContractError(
                f"contract {contract.name}: decoder {kind} needs dims {DECODERS[kind]}, got {names}"
            )
        self.contract, self.kind, self.n_bots = contract, kind, n_bots
        # the value rows follow the decoder's own dim order, so the v2 targets are plain views
        self._dim = {name: i for i, name in enumerate(DECODERS[kind])}
        self._columns = [names.index(name) for name in DECODERS[kind]]
        if self._columns == list(range(len(names))):
            self._columns = []
        n = len(names)
        self._pre, self._mul, self._add, self._offset = (np.zeros((n, 1)) for _ in range(4))
        self._scale = np.ones((n, n_bots))
        scale_rows: dict[str, list[int]] = {s: [] for s in PER_BOT_SCALES}
        for a in contract.actions:
            i = self._dim[a.name]
            if a.squash not in _SQUASH:
                raise ContractError(f"contract {contract.name}: unknown squash {a.squash!r}")
            self._pre[i], self._mul[i], self._add[i] = _SQUASH[a.squash]
            self._offset[i] = a.offset
            if isinstance(a.scale, str):
                if a.scale not in scale_rows:
                    raise ContractError(f"contract {contract.name}: unknown scale {a.scale!r}")
                scale_rows[a.scale].append(i)
            else:
                self._scale[i] = a.scale
        self._scale_rows = {s: np.array(r, dtype=np.intp) for s, r in scale_rows.items() if r}
        self._values = np.empty((n, n_bots))
        self._fire_power = self._values[self._dim["fire_power"]]
        self._fire_decision = self._values[self._dim["fire_decision"]]
        self._headings = np.empty((2, n_bots))
        self._enemy_velocity = np.empty((2, n_bots))
        if kind == "goto_aim":
            # rows goto_x, goto_y, aim_x, aim_y seen as [x/y, point, B]: the targets are views
            points = self._values[0:4].reshape(2, 2, n_bots).transpose(1, 0, 2)
            self.targets = Targets(n_bots, points)
            self.targets.points[:] = 0.0
        else:
            self.targets = Targets(n_bots)
        self.nonfinite_per_bot = np.zeros(n_bots, dtype=np.int64)
        self.nonfinite_total = 0

    def decode(self, actions: F32, view: BotView, enemy: EnemyEstimate | None = None) -> Motor:
        """Motor commands [B] for raw actions [B, A]; updates the goto/aim targets. A goto/lead
        contract aims at the `enemy` estimate (the tracker's), which it therefore needs."""
        bad: Bool | None = None
        # a NaN or infinity anywhere makes the sum non-finite (a finite overflow just looks)
        if not math.isfinite(np.add.reduce(actions, axis=None)):
            rows: Bool = np.logical_not(np.isfinite(actions).all(axis=1))
            if rows.any():
                self.nonfinite_per_bot += rows
                self.nonfinite_total += int(rows.sum())
                actions = np.where(rows[:, None], np.float32(0.0), actions)
                bad = rows
        v = self._squash(actions, view)
        power = self._fire_power  # a row of v
        fire = self._fire_decision >= _ZERO
        np.logical_and(fire, view.gun_heat == _ZERO, out=fire)
        np.logical_and(fire, view.energy > power, out=fire)
        if bad is not None:
            np.logical_and(fire, np.logical_not(bad), out=fire)
        firepower = np.multiply(power, fire)
        if self.kind == "goto_lead":
            if enemy is None:
                raise ValueError(f"contract {self.contract.name} aims by lead: pass the enemy")
            self._lead(view, enemy)
        if self.kind != "motor":
            motor = self._goto_aim(view, firepower)
        else:
            d = self._dim
            motor = Motor(
                v[d["target_speed"]].copy(), v[d["turn_rate"]].copy(), v[d["gun_turn_rate"]].copy(),
                firepower,
            )  # fmt: skip
        if bad is not None:
            self._apply_safe_action(motor, view, bad)
        return motor

    def _squash(self, actions: F32, view: BotView) -> F64:
        """squash(raw) * scale + offset for every dim, as [A, B] (the decoder's buffer)."""
        rows = self._scale_rows
        if "arena_width" in rows:
            self._scale[rows["arena_width"]] = view.arena_width
        if "arena_height" in rows:
            self._scale[rows["arena_height"]] = view.arena_height
        if "max_turn_rate(speed)" in rows:
            self._scale[rows["max_turn_rate(speed)"]] = max_turn_rate_unchecked(view.speed)
        v = self._values
        raw = actions.T if not self._columns else np.take(actions, self._columns, axis=1).T
        np.multiply(raw, self._pre, out=v)
        np.tanh(v, out=v)
        np.multiply(v, self._mul, out=v)
        np.add(v, self._add, out=v)
        np.multiply(v, self._scale, out=v)
        np.add(v, self._offset, out=v)
        return v

    def _lead(self, view: BotView, enemy: EnemyEstimate) -> None:
        """goto/lead: the goto point as decoded; the aim point by lead_point (actor/lead.py)
        with the decoded lead and fire power, whether or not this turn fires."""
        v, d, t = self._values, self._dim, self.targets
        t.goto_x[:], t.goto_y[:] = v[d["goto_x"]], v[d["goto_y"]]
        heading = np.radians(enemy.direction)
        vel = self._enemy_velocity
        np.multiply(enemy.speed, np.cos(heading), out=vel[0])
        np.multiply(enemy.speed, np.sin(heading), out=vel[1])
        t.aim_x[:], t.aim_y[:] = lead_point(
            view.x, view.y, enemy.x, enemy.y, vel[0], vel[1], v[d["aim_lead"]],
            v[d["fire_power"]], view.arena_width, view.arena_height,
        )  # fmt: skip

    def _goto_aim(self, view: BotView, firepower: F64) -> Motor:
        t = self.targets  # views of v's goto and aim rows
        t.active.fill(True)
        h = self._headings
        h[0], h[1] = view.direction, view.gun_direction
        turn_rate, target_speed, gun_turn_rate = goto_and_aim(
            view.x, view.y, h, view.speed, t.points_x, t.points_y
        )
        return Motor(target_speed, turn_rate, gun_turn_rate, firepower)

    def _apply_safe_action(self, motor: Motor, view: BotView, bad: Bool) -> None:
        speed = view.speed[bad]
        motor.target_speed[bad] = new_target_speed(speed, np.zeros_like(speed))
        motor.turn_rate[bad] = 0.0
        motor.gun_turn_rate[bad] = 0.0
        motor.firepower[bad] = 0.0
        if self.kind != "motor":
            t, x, y = self.targets, view.x[bad], view.y[bad]
            gun = np.radians(view.gun_direction[bad])
            t.goto_x[bad], t.goto_y[bad] = x, y
            t.aim_x[bad] = x + SAFE_AIM_DISTANCE * np.cos(gun)
            t.aim_y[bad] = y + SAFE_AIM_DISTANCE * np.sin(gun)
