"""What contract v5 adds to the observation: how well each gun is doing this round.

A policy that must fight both a wave surfer with a guess-factor gun and simple bots cannot tell
them apart from one tick: against the first, caution pays (long range, low power); against the
others it loses rounds it should win quickly. These two rates tell them apart as a round goes on.
Per bot (arrays [B]), each tick:
- `own_hit_rate`: the share of our recent shots that hit (our BulletFiredEvent and
  BulletHitBotEvent);
- `enemy_hit_rate`: the share of the enemy's recent shots that hit us (shots the EnemyTracker
  detects from energy drops, and HitByBulletEvent).
Both are decayed counts: each new shot multiplies the counts by DECAY before it counts (about the
last 1 / (1 - DECAY) shots weigh), and PRIOR_SHOTS shots at PRIOR_RATE are added so that the
first shots of a round move the rate gently. A hit counts when it lands, after its shot; the rate
is clipped to [0, 1]. They start afresh each round, as the other per-round state does. Pure
numpy over [B]; actor/observation.py owns one when its contract has these features.
"""

import numpy as np
import numpy.typing as npt

from tankrl.actor.tracker import EnemyTracker
from tankrl.shared.botview import BotView

F64 = npt.NDArray[np.float64]
Bool = npt.NDArray[np.bool_]

DECAY = 0.9
PRIOR_SHOTS = 2.0
PRIOR_RATE = 0.25
FEATURES = ("own.hit_rate", "enemy.hit_rate")
"""The raw quantities, in the order of `HitRates.features`' rows."""


class HitRates:
    def __init__(self, n_bots: int) -> None:
        self.n_bots = n_bots
        self.features = np.zeros((len(FEATURES), n_bots))
        """[2, B] this tick's rates, rows in FEATURES order."""
        self._shots = np.zeros((2, n_bots))  # decayed shot counts: ours, the enemy's
        self._hits = np.zeros((2, n_bots))  # decayed hit counts: ours on it, its on us
        self.reset(np.ones(n_bots, dtype=np.bool_))

    def reset(self, mask: Bool) -> None:
        """A new round for the bots in `mask`."""
        self._shots[:, mask] = 0.0
        self._hits[:, mask] = 0.0
        self.features[:, mask] = PRIOR_RATE

    def update(self, view: BotView, tracker: EnemyTracker) -> F64:
        """Take this tick (after `tracker.update`); returns `features`."""
        shot = np.stack([view.bullet_fired, tracker.fire_power > 0.0])
        hit = np.stack([view.bullet_hit, view.hit_by_bullet])
        decay = np.where(shot, DECAY, 1.0)
        self._shots *= decay
        self._shots += shot
        self._hits *= decay
        self._hits += hit
        rate = (self._hits + PRIOR_RATE * PRIOR_SHOTS) / (self._shots + PRIOR_SHOTS)
        np.clip(rate, 0.0, 1.0, out=self.features)
        return self.features
