"""EnemyTracker for B bots at once: enemy estimate, fire detection and the radar.

Reads each tick's BotView (scan, events, own state); its estimate and history feed
actor.observation and actor.reward, and `radar_turn_rate()` goes into the next intent.

Conventions chosen here:
- Before the first scan of a round the estimate is the arena centre (from the constructor's
  arena size), speed 0, direction 0, energy 100 (every bot starts with 100); the history window
  holds that same default. Our own position is never used as a default.
- `speed` and `direction` are the last scanned values; on a missed turn x, y move one step along
  them (clamped into [18, size - 18]). `energy` is the last scanned energy plus every change that
  our own events reveal exactly (our bullets' damage, its 3p gains from hitting us, rams,
  inactivity zaps), so it is exact while the radar holds the lock.
- A scan's energy is taken before that turn's bullets and zaps (docs/rules.md §5, §9), so those
  events are applied after the scan of their own tick; rams and wall hits happen before it.
- The per-turn path runs for B = 1 on every hosted turn, so it counts numpy calls: the estimate
  is one [6, B] array (x, y, speed, energy, direction, fire power) whose rows the history and
  actor.observation copy in one call each, rare events are skipped when no bot has them, and
  the radar uses the unchecked angle kernel (actor.brain checks each BotView once; `update`
  checks what it reads itself when it aims the radar on its own).
"""

import numpy as np
import numpy.typing as npt

from tankrl.shared.angles import bearing_to, relative_unchecked, turn_remainder
from tankrl.shared.botview import BotView
from tankrl.shared.contracts import HISTORY_TURNS
from tankrl.shared.finite import require_finite
from tankrl.shared.game_constants import (
    BOT_RADIUS,
    BULLET_HIT_ENERGY_GAIN_FACTOR,
    INACTIVITY_DAMAGE,
    INITIAL_ENERGY,
    MAX_FIREPOWER,
    MAX_INACTIVITY_TURNS,
    MAX_RADAR_TURN_RATE,
    MIN_FIREPOWER,
    RAM_DAMAGE,
)

F64 = npt.NDArray[np.float64]
Bool = npt.NDArray[np.bool_]

HISTORY_FIELDS = ("x", "y", "speed", "energy")
"""The values kept per history turn, in the contract's order."""

ESTIMATE_FIELDS = (*HISTORY_FIELDS, "direction", "fire_power")
"""The rows of `EnemyTracker.estimate`; the history window is its first rows."""

WIDEN_AFTER_MISSES = 2
"""Consecutive missed turns after which the radar stops locking and sweeps at full rate."""

FIRE_TOLERANCE = 1e-6
"""Slack on the [0.1, 3.0] fire-power window for floating-point noise in energy sums."""

WALL_STOP_MARGIN = 1.0
"""A scan within this distance of the [18, size - 18] box edge counts as 'at a wall'."""

# Operands of the per-turn path as 0-d arrays: numpy converts a Python float or int operand on
# every call, about half the cost of a one-element operation. Same values, same bits.
_DEGREES, _RADIANS = np.array(180.0 / np.pi), np.array(np.pi / 180.0)
_BOT_RADIUS, _BOT_DIAMETER = np.array(BOT_RADIUS), np.array(2.0 * BOT_RADIUS)
_RADAR_MAX, _RADAR_MIN = np.array(MAX_RADAR_TURN_RATE), np.array(-MAX_RADAR_TURN_RATE)
_WIDEN_AFTER, _ONE_TURN = np.array(WIDEN_AFTER_MISSES, np.int64), np.array(1, np.int64)
_STOPPED = np.array(0.0)
_FIRE_MIN = np.array(MIN_FIREPOWER - FIRE_TOLERANCE)
_FIRE_MAX = np.array(MAX_FIREPOWER + FIRE_TOLERANCE)


class EnemyTracker:
    """The 1v1 enemy estimate of B bots, updated once per tick from a BotView."""

    def __init__(self, n_bots: int, arena_width: float = 800.0, arena_height: float = 600.0):
        self.n_bots = n_bots
        self.default_x = 0.5 * float(arena_width)
        self.default_y = 0.5 * float(arena_height)
        self.estimate = np.zeros((len(ESTIMATE_FIELDS), n_bots))
        """[6, B] the estimate, rows in ESTIMATE_FIELDS order; x, y, ... below are its rows
        (fire_power: the fire power detected at this tick, 0 when none)."""
        self.x, self.y, self.speed, self.energy, self.direction, self.fire_power = self.estimate
        self.xy = self.estimate[:2]
        """[2, B] the x and y rows of the estimate."""
        self._history_rows = self.estimate[: len(HISTORY_FIELDS)]
        self.turns_since_scan = np.zeros(n_bots, dtype=np.int64)
        self.known = np.zeros(n_bots, dtype=np.bool_)
        self._zap_turn = np.zeros(n_bots, dtype=np.int64)  # last hit turn + MAX_INACTIVITY_TURNS
        self._sweep_dir = np.zeros(n_bots)  # +1 / -1 while sweeping, 0 while locked
        self._steps = np.empty((2, n_bots), dtype=np.float32)  # dead-reckoning cos, sin
        self._far_walls = np.empty((2, n_bots))  # arena width, height - BOT_RADIUS
        self._radar = np.full(n_bots, MAX_RADAR_TURN_RATE)
        self._ring = np.zeros((HISTORY_TURNS, len(HISTORY_FIELDS), n_bots))
        self._head = 0
        ages = np.arange(1, HISTORY_TURNS + 1)
        self._orders = [(head - ages) % HISTORY_TURNS for head in range(HISTORY_TURNS)]
        self._order = self._orders[0]
        self.reset(np.ones(n_bots, dtype=np.bool_))

    def reset(self, mask: Bool) -> None:
        """Forget the enemy for the bots in `mask` (a new round starts for them)."""
        self.x[mask], self.y[mask] = self.default_x, self.default_y
        for a in (self.direction, self.speed, self.fire_power):
            a[mask] = 0.0
        self.energy[mask] = INITIAL_ENERGY
        self.turns_since_scan[mask] = 0
        self.known[mask] = False
        self._zap_turn[mask] = 1 + MAX_INACTIVITY_TURNS
        self._sweep_dir[mask] = 0.0
        self._radar[mask] = MAX_RADAR_TURN_RATE
        default = np.array([self.default_x, self.default_y, 0.0, INITIAL_ENERGY])
        self._ring[:, :, mask] = default[None, :, None]

    def update(self, view: BotView, aim_radar: bool = True) -> None:
        """Take one tick: history, energy and fire detection, position, then the radar.

        A caller that computes the estimate's gun bearing and distance anyway (actor.brain,
        through the observation) passes aim_radar=False and calls `aim_radar` with them.
        """
        scanned = view.scanned
        n_scanned = int(np.count_nonzero(scanned))  # masked updates by `scanned` skip at 0
        self._push_history()
        self._update_energy(view, scanned)
        self._update_motion(view, scanned, n_scanned)
        np.add(self.turns_since_scan, _ONE_TURN, out=self.turns_since_scan)
        if n_scanned:
            np.logical_or(self.known, scanned, out=self.known)
            np.copyto(self.turns_since_scan, 0, where=scanned)
        if aim_radar:
            geometry = self.gun_geometry(view)  # checks our position, gun and the estimate
            require_finite("radar_direction", view.radar_direction)
            self.aim_radar(view, *geometry)

    def gun_geometry(self, view: BotView) -> tuple[F64, F64]:
        """Bearing [-180, 180) of the estimate from our gun, and its distance from us."""
        bearing = bearing_to(view.x, view.y, view.gun_direction, self.x, self.y)
        return bearing, np.hypot(np.subtract(self.x, view.x), np.subtract(self.y, view.y))

    def radar_turn_rate(self) -> F64:
        """The radar turn rates [B] for the next turn (the radar turns by exactly this).

        A fresh array per update; the tracker does not write into it afterwards.
        """
        return self._radar

    def history(self, out: F64 | None = None) -> F64:
        """The window [HISTORY_TURNS * 4, B]: x, y, speed, energy at t-1, then t-2, ..."""
        h = len(HISTORY_FIELDS)
        if out is None:
            out = np.empty((HISTORY_TURNS * h, self.n_bots))
        self._ring.take(self._order, axis=0, out=out.reshape(HISTORY_TURNS, h, -1), mode="wrap")
        return out

    def _push_history(self) -> None:
        self._ring[self._head] = self._history_rows
        self._head = (self._head + 1) % HISTORY_TURNS
        self._order = self._orders[self._head]

    def _update_energy(self, view: BotView, scanned: Bool) -> None:
        """Predict the scanned energy from known events; an unexplained drop is a shot.

        Each event is applied only where its flag is set (exact per bot, whatever the batch), and
        skipped when no bot has it: its update would subtract 0.0, which changes no value.
        """
        e = self.energy
        rammed = np.count_nonzero(view.hit_bot) > 0
        if rammed:  # a ram, before this tick's scan
            np.subtract(e, np.multiply(view.hit_bot, RAM_DAMAGE), out=e)
        rescanned = np.logical_and(scanned, self.known)
        stopped = np.logical_and(rescanned, view.scan_speed == _STOPPED)
        if np.count_nonzero(stopped):
            np.subtract(e, self._wall_damage(view, stopped), out=e)
        drop = np.subtract(e, view.scan_energy)
        np.logical_and(rescanned, drop >= _FIRE_MIN, out=rescanned)
        np.logical_and(rescanned, drop <= _FIRE_MAX, out=rescanned)
        np.multiply(drop, rescanned, out=self.fire_power)
        if rammed:
            np.copyto(e, view.hit_bot_energy, where=view.hit_bot)
        np.copyto(e, view.scan_energy, where=scanned)
        # after this tick's scan: bullet hits both ways and the inactivity zap (docs/rules.md §9)
        if np.count_nonzero(view.bullet_hit) or np.count_nonzero(view.hit_by_bullet):
            hits = np.logical_or(view.bullet_hit, view.hit_by_bullet)
            zap_turn = np.add(view.turn_number, MAX_INACTIVITY_TURNS, dtype=np.int64)
            np.copyto(self._zap_turn, zap_turn, where=hits)
            np.subtract(e, view.bullet_hit_damage, out=e, where=view.bullet_hit)
            gain = np.multiply(view.hit_by_bullet_power, BULLET_HIT_ENERGY_GAIN_FACTOR)
            np.add(e, gain, out=e, where=view.hit_by_bullet)
        zapped = np.greater(view.turn_number, self._zap_turn)
        if np.count_nonzero(zapped):
            np.subtract(e, np.multiply(zapped, INACTIVITY_DAMAGE), out=e)

    def _wall_damage(self, view: BotView, stopped: Bool) -> F64:
        """Wall damage of enemies scanned stopped at a wall after moving at the last speed."""
        box = np.minimum(
            np.minimum(view.scan_x, view.arena_width - view.scan_x),
            np.minimum(view.scan_y, view.arena_height - view.scan_y),
        )
        at_wall = stopped & (box <= BOT_RADIUS + WALL_STOP_MARGIN)
        damage: F64 = np.maximum(np.abs(self.speed) * 0.5 - 1.0, 0.0) * at_wall
        return damage

    def _update_motion(self, view: BotView, scanned: Bool, n_scanned: int) -> None:
        """Scanned values where scanned, else one step along the last scanned direction and
        speed, kept inside the arena (before the first scan the speed is 0: no move)."""
        if n_scanned < self.n_bots:
            # cos/sin in float32: plenty for an estimate, and SIMD-fast; x and y move together
            rad = np.multiply(turn_remainder(self.direction), _RADIANS).astype(np.float32)
            steps, far = self._steps, self._far_walls
            np.cos(rad, out=steps[0])
            np.sin(rad, out=steps[1])
            xy = self.xy
            np.add(xy, np.multiply(steps, self.speed), out=xy)
            np.subtract(view.arena_width, _BOT_RADIUS, out=far[0])
            np.subtract(view.arena_height, _BOT_RADIUS, out=far[1])
            np.minimum(xy, far, out=xy)
            np.maximum(xy, _BOT_RADIUS, out=xy)
            if np.count_nonzero(view.hit_bot):
                np.copyto(self.x, view.hit_bot_x, where=view.hit_bot)
                np.copyto(self.y, view.hit_bot_y, where=view.hit_bot)
        if not n_scanned:
            return
        for mine, seen in (
            (self.x, view.scan_x),
            (self.y, view.scan_y),
            (self.direction, view.scan_direction),
            (self.speed, view.scan_speed),
        ):
            np.copyto(mine, seen, where=scanned)

    def aim_radar(self, view: BotView, gun_bearing: F64, distance: F64) -> None:
        """The radar rate for the next turn, from the estimate's gun bearing and distance.

        Locked (scanned within the last turn): turn toward the estimate and overshoot by its
        angular diameter, so each sweep crosses it; that margin also covers both bots' moves of
        at most 8 units before the scan. Before the first scan and after 2 missed turns: sweep
        at 45 deg/turn, in the direction the estimate lay when the sweep began.
        """
        bearing = np.add(gun_bearing, view.gun_direction)
        bearing = relative_unchecked(np.subtract(bearing, view.radar_direction, out=bearing))
        side = np.copysign(_DEGREES, bearing)
        spread = np.divide(_BOT_DIAMETER, np.maximum(distance, _BOT_RADIUS))
        lock = np.arctan(spread, out=spread)
        np.multiply(lock, side, out=lock)
        np.add(lock, bearing, out=lock)
        np.minimum(lock, _RADAR_MAX, out=lock)
        np.maximum(lock, _RADAR_MIN, out=lock)
        locked = np.logical_and(self.turns_since_scan < _WIDEN_AFTER, self.known)
        if np.count_nonzero(locked) < self.n_bots:
            sweeping = np.logical_not(locked)
            start = np.logical_and(sweeping, self._sweep_dir == 0.0)
            np.copyto(self._sweep_dir, np.sign(side), where=start)
            np.multiply(self._sweep_dir, sweeping, out=self._sweep_dir)
            np.copyto(lock, np.multiply(self._sweep_dir, _RADAR_MAX), where=sweeping)
        else:
            self._sweep_dir.fill(0.0)
        self._radar = lock
