"""Observation encoders for contracts v1 (42 floats), v2 (44), v3 and v4 (48) and v5 (50),
driven by the contract tables.

Reads a BotView, the EnemyTracker and the current goto/aim targets (actor.actions); writes the
float32 [B, F] observation the policy reads. Every raw quantity the encoder knows fills one row
of a source matrix; the contract's normalisers are then applied in a few vectorised operations.
At B = 1 the cost is the number of numpy calls, so rows that come from one array (the tracker's
estimate, our x and y) are filled in one call each. Inputs must be finite (actor.brain checks
each BotView once), so the geometry uses the unchecked angle kernel.
"""

import numpy as np
import numpy.typing as npt

from tankrl.actor.actions import Targets
from tankrl.actor.enemy_waves import FEATURES as WAVE_FEATURES
from tankrl.actor.enemy_waves import EnemyWaves
from tankrl.actor.hit_rates import FEATURES as HIT_FEATURES
from tankrl.actor.hit_rates import HitRates
from tankrl.actor.tracker import ESTIMATE_FIELDS, HISTORY_FIELDS, EnemyTracker
from tankrl.shared.angles import offset_bearing_unchecked, turn_remainder
from tankrl.shared.botview import BotView
from tankrl.shared.contracts import HISTORY_TURNS, Contract, ContractError
from tankrl.shared.game_constants import BOT_RADIUS

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
Bool = npt.NDArray[np.bool_]

_ENEMY_RAW = {
    "x": "enemy.x", "y": "enemy.y", "speed": "enemy.speed", "energy": "enemy.energy",
    "direction": "enemy.direction", "fire_power": "enemy.fire_power_this_turn",
}  # fmt: skip
"""The raw key of each row of EnemyTracker.estimate."""

RAW_GROUPS: dict[str, tuple[str, ...]] = {
    "own": (
        "own.x", "own.y", "own.speed", "own.energy", "own.gun_heat", "own.direction",
        "own.turn_rate",
    ),
    "acceleration": ("own.speed - own.previous_speed",),
    "enemy_relative": ("gun_bearing_to(enemy)", "distance_to(enemy)"),
    "walls": (
        "own.x - 18", "own.y - 18", "arena_width - 18 - own.x", "arena_height - 18 - own.y",
    ),
    "enemy": tuple(_ENEMY_RAW[f] for f in ESTIMATE_FIELDS),
    "history": tuple(
        f"enemy_history[{k}].{f}" for k in range(1, HISTORY_TURNS + 1) for f in HISTORY_FIELDS
    ),
    "goto": ("distance_to(goto_target)",),
    "aim": ("abs(gun_bearing_to(aim_target))",),
    "waves": WAVE_FEATURES,
    "hits": HIT_FEATURES,
}  # fmt: skip
"""Every raw quantity the encoder computes, in groups that are filled together. "own" starts with
own.x, own.y and "enemy" follows the tracker's estimate, so each is one block of source rows."""

ARENA_DIVISORS = ("arena_width", "arena_height", "arena_diagonal")
_TRIG_PHASE = {"sin": 0.0, "cos": 0.5 * np.pi}  # cos(a) = sin(a + pi/2)

# Operands of the per-turn path as 0-d arrays: numpy converts a Python float operand on every
# call, about half the cost of a one-element operation. Same values, same bits.
_BOT_RADIUS, _RADIANS = np.array(BOT_RADIUS), np.array(np.pi / 180)
_ZERO = np.array(0.0)


class ObservationEncoder:
    """Encodes one contract's observation for B bots into a preallocated buffer."""

    def __init__(self, contract: Contract, n_bots: int):
        group_of = {key: g for g, keys in RAW_GROUPS.items() for key in keys}
        unknown = sorted({f.raw for f in contract.features} - set(group_of))
        if unknown:
            raise ContractError(f"contract {contract.name}: the encoder cannot compute {unknown}")
        used = {group_of[f.raw] for f in contract.features} | {"own"}  # own.x, own.y: geometry
        self.contract, self.n_bots = contract, n_bots
        self._groups: dict[str, slice] = {}
        row_of: dict[str, int] = {}
        for g in (g for g in RAW_GROUPS if g in used):
            start = len(row_of)
            row_of.update({key: start + i for i, key in enumerate(RAW_GROUPS[g])})
            self._groups[g] = slice(start, len(row_of))
        self._sources = np.zeros((len(row_of), n_bots))
        self._rows = np.array([row_of[f.raw] for f in contract.features], dtype=np.intp)
        self._init_normalisers(contract)
        n = contract.obs_size
        self._y = np.empty((n, n_bots))
        self._out = np.zeros((n, n_bots), dtype=np.float32)
        self.previous_speed = np.zeros(n_bots)
        self.waves = EnemyWaves(n_bots) if "waves" in used else None
        self.hits = HitRates(n_bots) if "hits" in used else None
        self._arena = np.full((2, n_bots), np.nan)  # the sizes the divisors were set for
        self._far_walls = np.zeros((2, n_bots))  # arena width, height - 18
        self._init_views(n_bots)

    def _init_views(self, n_bots: int) -> None:
        """Views of the buffers, made once: making one costs about a third of a one-element
        operation, and a turn writes some twenty row blocks."""
        s = self._sources
        self._block = {g: s[sl] for g, sl in self._groups.items()}  # [k, B] per group
        self._line = {g: tuple(s[sl]) for g, sl in self._groups.items()}  # its [B] rows
        own = self._groups["own"].start
        self._own_xy = s[own : own + 2]  # [2, B] the own.x, own.y rows
        self._own_xy_column = self._own_xy[:, None]  # [2, 1, B], against the points
        n_own = len(RAW_GROUPS["own"])  # the own rows as one flat view, filled by one concatenate
        self._own_rows = s.reshape(-1)[own * n_bots : (own + n_own) * n_bots]
        if "walls" in self._block:  # x - 18, y - 18 rows, then the far-wall rows
            self._walls_near, self._walls_far = self._block["walls"][:2], self._block["walls"][2:]
        p = self._points = np.zeros((2, 3, n_bots))  # x, y of the goto point, aim point, enemy
        self._commands_xy, self._enemy_xy = p[:, :2], p[:, 2]
        offset = self._offset = np.empty((2, 3, n_bots))  # the points minus our position
        self._distance_dx, self._distance_dy = offset[0, ::2], offset[1, ::2]  # goto, enemy
        self._bearing_dx, self._bearing_dy = offset[0, 1:], offset[1, 1:]  # aim point, enemy
        distance = self._distance = np.empty((2, n_bots))
        self._goto_distance, self._enemy_distance = distance[0], distance[1]

    def _init_normalisers(self, contract: Contract) -> None:
        """Per-feature divisor [F, B], clip bounds [F, 1] and the sin/cos rows with their phase."""
        n = contract.obs_size
        self._div = np.ones((n, self.n_bots))
        self._lo, self._hi = np.zeros((n, 1), np.float32), np.zeros((n, 1), np.float32)
        self._arena_rows: dict[str, list[int]] = {d: [] for d in ARENA_DIVISORS}
        trig: list[int] = []
        phase: list[float] = []
        for i, f in enumerate(contract.features):
            norm = f.norm
            if norm.kind in _TRIG_PHASE:
                self._lo[i], self._hi[i] = -1.0, 1.0
                trig.append(i)
                phase.append(_TRIG_PHASE[norm.kind])
            elif norm.kind == "scale":
                if isinstance(norm.divisor, str):
                    if norm.divisor not in self._arena_rows:
                        raise ContractError(
                            f"contract {contract.name}: unknown divisor {norm.divisor!r}"
                        )
                    self._arena_rows[norm.divisor].append(i)
                elif not float(norm.divisor) > 0.0:
                    raise ContractError(f"contract {contract.name}: divisor of {f.name} <= 0")
                else:
                    self._div[i] = norm.divisor
                self._lo[i], self._hi[i] = norm.lo, norm.hi
            else:
                raise ContractError(f"contract {contract.name}: unknown normaliser {norm.kind!r}")
        self._trig = np.array(trig, dtype=np.intp)
        self._trig_angles = np.empty((len(trig), self.n_bots))
        self._phase = np.array(phase).reshape(-1, 1)

    def reset(self, mask: Bool) -> None:
        """A new round for the bots in `mask`: they start at rest."""
        self.previous_speed[mask] = 0.0
        if self.waves is not None:
            self.waves.reset(mask)
        if self.hits is not None:
            self.hits.reset(mask)

    def encode(self, view: BotView, tracker: EnemyTracker, targets: Targets) -> F32:
        """The observation [B, F] float32, finite and within each feature's bounds.

        Returns a view of the encoder's own buffer (Fortran-ordered [B, F]); the next call
        overwrites it, so copy it to keep it.
        """
        self._set_arena(view)
        self._fill_sources(view, tracker, targets)
        y, out = self._y, self._out
        self._sources.take(self._rows, axis=0, out=y, mode="wrap")
        np.divide(y, self._div, out=out, casting="same_kind")
        if self._trig.size:
            self._sin_cos(y, out)
        np.minimum(out, self._hi, out=out)
        np.maximum(out, self._lo, out=out)
        return self._out.T

    def _sin_cos(self, y: F64, out: F32) -> None:
        """sin/cos rows: angle folded to (-360, 360) and converted to radians in float64, the
        sine taken in float32 (the output's precision; several times faster than float64; the
        ufunc's float32 loop casts its input exactly as astype would)."""
        trig = y.take(self._trig, axis=0, out=self._trig_angles)
        turn_remainder(trig, out=trig)
        np.multiply(trig, _RADIANS, out=trig)
        np.add(trig, self._phase, out=trig)
        out[self._trig] = np.sin(trig, dtype=np.float32)

    def _set_arena(self, view: BotView) -> None:
        """Per-bot arena divisors and far walls, recomputed only when an arena size changes."""
        arena = self._arena
        if not (
            np.count_nonzero(arena[0] != view.arena_width)
            or np.count_nonzero(arena[1] != view.arena_height)
        ):
            return
        arena[0], arena[1] = view.arena_width, view.arena_height
        np.subtract(arena, BOT_RADIUS, out=self._far_walls)
        rows = self._arena_rows
        w, h = np.maximum(arena, 1.0)
        if rows["arena_width"]:
            self._div[rows["arena_width"]] = w
        if rows["arena_height"]:
            self._div[rows["arena_height"]] = h
        if rows["arena_diagonal"]:
            self._div[rows["arena_diagonal"]] = np.hypot(w, h)

    def _fill_sources(self, view: BotView, tracker: EnemyTracker, targets: Targets) -> None:
        block, line = self._block, self._line
        v = view  # the seven own rows (RAW_GROUPS order) in one call
        own = (v.x, v.y, v.speed, v.energy, v.gun_heat, v.direction, v.turn_rate)
        np.concatenate(own, out=self._own_rows)
        if "acceleration" in line:
            np.subtract(view.speed, self.previous_speed, out=line["acceleration"][0])
        np.copyto(self.previous_speed, view.speed)
        if "walls" in block:
            np.subtract(self._own_xy, _BOT_RADIUS, out=self._walls_near)
            np.subtract(self._far_walls, self._own_xy, out=self._walls_far)
        if "enemy" in block:
            np.copyto(block["enemy"], tracker.estimate)
        if "history" in block:
            tracker.history(out=block["history"])
        if self.waves is not None:
            np.copyto(block["waves"], self.waves.update(view, tracker))
        if self.hits is not None:
            np.copyto(block["hits"], self.hits.update(view, tracker))
        self._fill_relative(view, tracker, targets)

    def _fill_relative(self, view: BotView, tracker: EnemyTracker, targets: Targets) -> None:
        """Distance to the goto point and the enemy, gun bearings of the aim point and the enemy;
        one offset, one distance and one bearing computation for all of them. The command
        features are 0 before the first decision."""
        line = self._line
        if not {"enemy_relative", "aim", "goto"} & line.keys():
            return
        # the points' columns: goto, aim, enemy; distances use 0 and 2, bearings 1 and 2
        np.copyto(self._commands_xy, targets.points)
        np.copyto(self._enemy_xy, tracker.xy)
        np.subtract(self._points, self._own_xy_column, out=self._offset)
        np.hypot(self._distance_dx, self._distance_dy, out=self._distance)
        if "goto" in line:
            np.copyto(line["goto"][0], np.where(targets.active, self._goto_distance, _ZERO))
        if "enemy_relative" not in line and "aim" not in line:
            return
        bearings = offset_bearing_unchecked(self._bearing_dx, self._bearing_dy, view.gun_direction)
        if "aim" in line:
            np.multiply(np.abs(bearings[0]), targets.active, out=line["aim"][0])
        if "enemy_relative" in line:
            bearing_row, distance_row = line["enemy_relative"]
            np.copyto(bearing_row, bearings[1])
            np.copyto(distance_row, self._enemy_distance)

    def enemy_geometry(self) -> tuple[F64, F64] | None:
        """The last encoded gun bearing and distance of the enemy estimate (what
        EnemyTracker.gun_geometry computes), or None if the contract has no such features."""
        if "enemy_relative" not in self._line:
            return None
        bearing_row, distance_row = self._line["enemy_relative"]
        return bearing_row, distance_row
