"""Observation encoders for contracts v1 (42 floats) and v2 (44), driven by the contract tables.

Reads a BotView, the EnemyTracker and the current goto/aim targets (actor.actions); writes the
float32 [B, F] observation the policy reads. Every raw quantity the encoder knows fills one row
of a source matrix; the contract's normalisers are then applied in a few vectorised operations.
"""

import numpy as np
import numpy.typing as npt

from actor.actions import Targets
from actor.tracker import HISTORY_FIELDS, EnemyTracker
from shared.angles import bearing_to
from shared.botview import BotView
from shared.contracts import HISTORY_TURNS, Contract, ContractError
from shared.game_constants import BOT_RADIUS

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
Bool = npt.NDArray[np.bool_]

RAW_GROUPS: dict[str, tuple[str, ...]] = {
    "own": (
        "own.x", "own.y", "own.speed", "own.energy", "own.gun_heat", "own.direction",
        "own.turn_rate",
    ),
    "acceleration": ("own.speed - own.previous_speed",),
    "enemy_relative": ("gun_bearing_to(enemy)", "distance_to(enemy)"),
    "walls": (
        "own.x - 18", "arena_width - 18 - own.x", "own.y - 18", "arena_height - 18 - own.y",
    ),
    "enemy": (
        "enemy.x", "enemy.y", "enemy.speed", "enemy.energy", "enemy.direction",
        "enemy.fire_power_this_turn",
    ),
    "history": tuple(
        f"enemy_history[{k}].{f}" for k in range(1, HISTORY_TURNS + 1) for f in HISTORY_FIELDS
    ),
    "goto": ("distance_to(goto_target)",),
    "aim": ("abs(gun_bearing_to(aim_target))",),
}  # fmt: skip
"""Every raw quantity the encoder computes, in groups that are filled together."""

ARENA_DIVISORS = ("arena_width", "arena_height", "arena_diagonal")
_TRIG_PHASE = {"sin": 0.0, "cos": 0.5 * np.pi}  # cos(a) = sin(a + pi/2)


class ObservationEncoder:
    """Encodes one contract's observation for B bots into a preallocated buffer."""

    def __init__(self, contract: Contract, n_bots: int):
        group_of = {key: g for g, keys in RAW_GROUPS.items() for key in keys}
        unknown = sorted({f.raw for f in contract.features} - set(group_of))
        if unknown:
            raise ContractError(f"contract {contract.name}: the encoder cannot compute {unknown}")
        used = {group_of[f.raw] for f in contract.features}
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
        self._arena = np.full((2, n_bots), np.nan)  # the sizes the divisors were set for
        self._far_walls = np.zeros((2, n_bots))  # arena width, height - 18
        self._points = np.zeros((2, 3, n_bots))  # x, y of the goto point, enemy, aim point

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
        self._phase = np.array(phase).reshape(-1, 1)
        self._radians = np.pi / 180.0

    def reset(self, mask: Bool) -> None:
        """A new round for the bots in `mask`: they start at rest."""
        self.previous_speed[mask] = 0.0

    def encode(self, view: BotView, tracker: EnemyTracker, targets: Targets) -> F32:
        """The observation [B, F] float32, finite and within each feature's bounds.

        Returns a view of the encoder's own buffer (Fortran-ordered [B, F]); the next call
        overwrites it, so copy it to keep it.
        """
        self._set_arena(view)
        self._fill_sources(view, tracker, targets)
        y, out = self._y, self._out
        np.take(self._sources, self._rows, axis=0, out=y, mode="wrap")
        np.divide(y, self._div, out=out, casting="same_kind")
        if self._trig.size:
            self._sin_cos(y, out)
        np.minimum(out, self._hi, out=out)
        np.maximum(out, self._lo, out=out)
        return self._out.T

    def _sin_cos(self, y: F64, out: F32) -> None:
        """sin/cos rows: angle folded to (-360, 360) and converted to radians in float64, the
        sine taken in float32 (the output's precision; several times faster than float64)."""
        trig = y[self._trig]
        np.fmod(trig, 360.0, out=trig)
        np.multiply(trig, self._radians, out=trig)
        np.add(trig, self._phase, out=trig)
        out[self._trig] = np.sin(trig.astype(np.float32))

    def _set_arena(self, view: BotView) -> None:
        """Per-bot arena divisors and far walls, recomputed only when an arena size changes."""
        arena = self._arena
        if (arena[0] == view.arena_width).all() and (arena[1] == view.arena_height).all():
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
        s, g = self._sources, self._groups
        if "own" in g:
            r = g["own"].start
            s[r], s[r + 1], s[r + 2], s[r + 3] = view.x, view.y, view.speed, view.energy
            s[r + 4], s[r + 5], s[r + 6] = view.gun_heat, view.direction, view.turn_rate
        if "acceleration" in g:
            np.subtract(view.speed, self.previous_speed, out=s[g["acceleration"].start])
        self.previous_speed[:] = view.speed
        if "walls" in g:
            r = g["walls"].start
            np.subtract(view.x, BOT_RADIUS, out=s[r])
            np.subtract(self._far_walls[0], view.x, out=s[r + 1])
            np.subtract(view.y, BOT_RADIUS, out=s[r + 2])
            np.subtract(self._far_walls[1], view.y, out=s[r + 3])
        if "enemy" in g:
            r = g["enemy"].start
            s[r], s[r + 1], s[r + 2] = tracker.x, tracker.y, tracker.speed
            s[r + 3], s[r + 4], s[r + 5] = tracker.energy, tracker.direction, tracker.fire_power
        if "history" in g:
            tracker.history(out=s[g["history"]])
        self._fill_relative(view, tracker, targets)

    def _fill_relative(self, view: BotView, tracker: EnemyTracker, targets: Targets) -> None:
        """Distance to the goto point and the enemy, gun bearings of the aim point and the enemy;
        one distance and one bearing computation for all of them. The command features are 0
        before the first decision."""
        s, g = self._sources, self._groups
        if not {"enemy_relative", "aim", "goto"} & g.keys():
            return
        p = self._points  # rows: goto, aim, enemy; distances use rows 0 and 2, bearings 1-2
        p[0, :2], p[1, :2] = targets.points_x, targets.points_y
        p[0, 2], p[1, 2] = tracker.x, tracker.y
        distance = np.hypot(np.subtract(p[0, ::2], view.x), np.subtract(p[1, ::2], view.y))
        if "goto" in g:
            s[g["goto"].start] = np.where(targets.active, distance[0], 0.0)
        if "enemy_relative" not in g and "aim" not in g:
            return
        bearings = bearing_to(view.x, view.y, view.gun_direction, p[0, 1:], p[1, 1:])
        if "aim" in g:
            np.multiply(np.abs(bearings[0]), targets.active, out=s[g["aim"].start])
        if "enemy_relative" in g:
            r = g["enemy_relative"].start
            s[r], s[r + 1] = bearings[1], distance[1]

    def enemy_geometry(self) -> tuple[F64, F64] | None:
        """The last encoded gun bearing and distance of the enemy estimate (what
        EnemyTracker.gun_geometry computes), or None if the contract has no such features."""
        if "enemy_relative" not in self._groups:
            return None
        r = self._groups["enemy_relative"].start
        return self._sources[r], self._sources[r + 1]
