"""What contract v3 adds to the observation, for fights against a bot that dodges and aims by
guess factors: the newest enemy bullet wave in flight, and how the enemy moves across our line
of sight.

A shot the EnemyTracker detects (an unexplained energy drop at this tick) was fired in the
previous turn from where the enemy was then; its wave grows at the bullet's speed
(shared.game_constants.bullet_speed). Per bot (arrays [B]), each tick:
- `wave_eta`: turns until that wave's front reaches us, / ETA_TURNS, in [0, 1] (1: none in
  flight), so the policy can time a dodge;
- `wave_offset`: how far we have moved around the wave's source since it was fired, as a guess
  factor: the angle from the source between our position now and when it fired, over the
  bullet's maximum escape angle, signed + in the direction we were moving then, in [-1, 1]
  (0: none) - where a guess-factor gun's bullet would find us;
- `enemy_lateral`: the enemy's speed across our line of sight, / 8 (+ = counter-clockwise
  around us);
- `enemy_reversal_age`: turns since the enemy last reversed across our line of sight,
  / REVERSAL_TURNS, in [0, 1].
Pure numpy over [B]; actor/observation.py owns one when its contract has these features.
"""

import numpy as np
import numpy.typing as npt

from tankrl.actor.tracker import EnemyTracker
from tankrl.shared.botview import BotView
from tankrl.shared.game_constants import MAX_SPEED, bullet_speed

F64 = npt.NDArray[np.float64]
Bool = npt.NDArray[np.bool_]

ETA_TURNS = 40.0
REVERSAL_TURNS = 60.0
LATERAL_DEADBAND = 0.5
"""Lateral speeds below this keep the last direction (a stop is not a reversal)."""
FEATURES = ("enemy_wave.eta", "enemy_wave.offset", "enemy.lateral_speed", "enemy.reversal_age")
"""The raw quantities, in the order of `EnemyWaves.features`' rows."""


class EnemyWaves:
    def __init__(self, n_bots: int) -> None:
        self.n_bots = n_bots
        self.features = np.zeros((len(FEATURES), n_bots))
        """[4, B] this tick's values, rows in FEATURES order (normalised)."""
        self._wave = np.zeros((5, n_bots))  # source x, y, fire turn, speed, bearing to us then
        self._wave_dir = np.zeros(n_bots)  # our lateral direction when it fired (+1 / -1)
        self._active = np.zeros(n_bots, dtype=np.bool_)
        self._prev = np.zeros((4, n_bots))  # last tick: enemy x, y; our x, y
        self._our_dir = np.ones(n_bots)
        self._enemy_dir = np.ones(n_bots)
        self._reversed_at = np.zeros(n_bots)
        self._have_prev = np.zeros(n_bots, dtype=np.bool_)
        self.reset(np.ones(n_bots, dtype=np.bool_))

    def reset(self, mask: Bool) -> None:
        """A new round for the bots in `mask`."""
        self._active[mask] = False
        self._have_prev[mask] = False
        self._our_dir[mask] = 1.0
        self._enemy_dir[mask] = 1.0
        self._reversed_at[mask] = 0.0
        self.features[0, mask], self.features[1:, mask] = 1.0, 0.0

    def update(self, view: BotView, tracker: EnemyTracker) -> F64:
        """Take this tick (after `tracker.update`); returns `features`."""
        turn = view.turn_number.astype(np.float64)
        ex, ey = tracker.x, tracker.y
        bearing_to_enemy = np.arctan2(ey - view.y, ex - view.x)
        heading = np.radians(view.direction)
        # our lateral direction as the enemy sees us: + = counter-clockwise around it
        our_lat = view.speed * np.sin(heading - (bearing_to_enemy + np.pi))
        np.copyto(self._our_dir, np.sign(our_lat), where=np.abs(our_lat) >= LATERAL_DEADBAND)
        fired = (tracker.fire_power > 0.0) & self._have_prev
        if np.count_nonzero(fired):
            src_x, src_y, our_x, our_y = self._prev
            w = self._wave
            np.copyto(w[0], src_x, where=fired)
            np.copyto(w[1], src_y, where=fired)
            np.copyto(w[2], turn - 1.0, where=fired)
            np.copyto(w[3], bullet_speed(np.clip(tracker.fire_power, 0.1, 3.0)), where=fired)
            np.copyto(w[4], np.arctan2(our_y - src_y, our_x - src_x), where=fired)
            np.copyto(self._wave_dir, self._our_dir, where=fired)
            self._active |= fired
        self._wave_features(view, turn)
        lateral = tracker.speed * np.sin(np.radians(tracker.direction) - bearing_to_enemy)
        turned = (np.abs(lateral) >= LATERAL_DEADBAND) & (np.sign(lateral) != self._enemy_dir)
        np.copyto(self._enemy_dir, np.sign(lateral), where=turned)
        np.copyto(self._reversed_at, turn, where=turned)
        f = self.features
        f[2] = np.clip(lateral / MAX_SPEED, -1.0, 1.0)
        f[3] = np.clip((turn - self._reversed_at) / REVERSAL_TURNS, 0.0, 1.0)
        self._prev[0], self._prev[1], self._prev[2], self._prev[3] = ex, ey, view.x, view.y
        self._have_prev.fill(True)
        return f

    def _wave_features(self, view: BotView, turn: F64) -> None:
        f, w = self.features, self._wave
        if not np.count_nonzero(self._active):
            f[0], f[1] = 1.0, 0.0
            return
        dx, dy = view.x - w[0], view.y - w[1]
        speed = np.maximum(w[3], 1e-9)
        remaining = np.hypot(dx, dy) - speed * (turn - w[2])
        self._active &= remaining > 0.0  # the front has passed us
        angle = np.arctan2(dy, dx) - w[4]
        angle = (angle + np.pi) % (2.0 * np.pi) - np.pi
        escape = np.arcsin(np.minimum(MAX_SPEED / speed, 1.0))
        f[0] = np.where(self._active, np.clip(remaining / speed / ETA_TURNS, 0.0, 1.0), 1.0)
        f[1] = np.where(self._active, np.clip(angle / escape * self._wave_dir, -1.0, 1.0), 0.0)
