"""The one rules engine: B arenas of N bots stepped together on preallocated arrays (rules §9).

The server (B = 1), the native env (B arenas) and the replay re-simulator all drive this class:
set each seat's intent, call `step()`, read the state, the turn's events and the results.
Deterministic for a seed: the same seeds and intents give the same battle.
"""

import numpy as np
import numpy.typing as npt

from arena import bullets as gun
from arena import collisions, motion, radar, scoring
from arena.game_setup import GameSetup
from arena.placement import place_bots
from arena.state import (
    Bool,
    alloc_bots,
    alloc_bullets,
    alloc_events,
    alloc_intents,
    alloc_scores,
    alloc_totals,
    bullet_capacity,
)
from shared.game_constants import INITIAL_ENERGY, INITIAL_GUN_HEAT
from shared.intent import INTENT_FIELDS, Intent


class Engine:
    """Tank Royale rules for `n_arenas` independent arenas with `n_bots` seats each."""

    def __init__(
        self,
        setup: GameSetup,
        n_arenas: int,
        n_bots: int,
        seeds: npt.ArrayLike = 0,
    ) -> None:
        self.setup = setup
        self.n_arenas, self.n_bots = n_arenas, n_bots
        b, n = n_arenas, n_bots
        self.seeds = np.broadcast_to(np.asarray(seeds, dtype=np.uint64), (b,)).copy()
        self.capacity = bullet_capacity(setup, n)
        self.bots = alloc_bots(b, n)
        self.intents = alloc_intents(b, n)
        self.bullets = alloc_bullets(b, self.capacity)
        self.scores = alloc_scores(b, n)
        self.totals = alloc_totals(b, n)
        self.events = alloc_events(b, n)
        self.bullet_width = 0
        """Slots below this index may hold bullets (the most any arena has had at once)."""
        self.width = np.full(b, float(setup.arena_width))
        self.height = np.full(b, float(setup.arena_height))
        self.round_number = np.zeros(b, dtype=np.int32)
        self.turn_number = np.zeros(b, dtype=np.int32)
        self.inactivity = np.zeros(b, dtype=np.int32)
        self.next_bullet_id = np.ones(b, dtype=np.int32)
        self.needs_round = np.ones(b, dtype=np.bool_)
        self.game_over = np.zeros(b, dtype=np.bool_)
        F = npt.NDArray[np.float64]
        self.initial_positions: tuple[F, F, F] | None = None
        scoring.reset_round(self.scores, np.ones(b, dtype=np.bool_))

    # ---- intents -------------------------------------------------------------------------------
    def set_intent(self, seat: int, intent: Intent, received: Bool | None = None) -> None:
        """Merge one seat's intents (full, defaults applied) for the arenas that sent one.

        Arenas where `received` is False keep the seat's stored intent (a skipped turn).
        """
        for name in INTENT_FIELDS[:5]:
            if not np.isfinite(getattr(intent, name)).all():
                raise ValueError(f"intent.{name} for seat {seat} holds a non-finite value")
        for name in INTENT_FIELDS:
            stored = getattr(self.intents, name)
            value = getattr(intent, name)
            if received is None:
                stored[:, seat] = value
            else:
                stored[:, seat] = np.where(received, value, stored[:, seat])

    def stored_intent(self, seat: int) -> Intent:
        """A copy of one seat's stored intents [B]."""
        return Intent(
            **{name: getattr(self.intents, name)[:, seat].copy() for name in INTENT_FIELDS}
        )

    # ---- rounds --------------------------------------------------------------------------------
    def _start_round(self, mask: Bool) -> None:
        """§9 step 2: clear intents and bullets, reset scoring, place the bots."""
        self.round_number[mask] += 1
        self.turn_number[mask] = 0
        self.inactivity[mask] = 0
        self.next_bullet_id[mask] = 1
        for name in INTENT_FIELDS:
            getattr(self.intents, name)[mask] = name == "fire_assist"
        self.bullets.active[:, mask] = False
        scoring.reset_round(self.scores, mask)
        bots = self.bots
        m2 = mask[:, None]
        bots.in_map[mask] = True
        for name, value in (("energy", INITIAL_ENERGY), ("gun_heat", INITIAL_GUN_HEAT)):
            getattr(bots, name)[mask] = value
        for name in ("speed", "turn_rate", "gun_turn_rate", "radar_turn_rate", "radar_sweep"):
            getattr(bots, name)[mask] = 0.0
        bots.wall_event_prev[mask] = False
        bots.scanned_prev[mask] = False
        place_bots(
            bots,
            mask,
            self.seeds,
            self.round_number,
            self.width,
            self.height,
            self.initial_positions,
        )
        del m2
        self.needs_round[mask] = False

    def reset_arenas(self, mask: Bool) -> None:
        """Native env: end the current round of these arenas now; the next step starts a new one."""
        self.needs_round |= mask

    # ---- the turn ------------------------------------------------------------------------------
    def step(self) -> None:
        """Process one turn in every arena whose game is not over (§9)."""
        running = ~self.game_over
        start = running & self.needs_round
        if start.any():
            self._start_round(start)
        ev = self.events
        self.bots_copy_start()
        ev.round_ended[:] = False
        ev.won_round[:] = False
        ev.bot_bot[:] = False
        ev.rammed[:] = False
        self.turn_number[running] += 1
        bots, intents = self.bots, self.intents
        r2 = running[:, None]
        enabled = r2 & bots.in_map & ~scoring.disabled(bots)
        self.bullet_width = gun.fire_or_cool(
            bots,
            intents,
            self.bullets,
            enabled,
            self.next_bullet_id,
            self.setup.gun_cooling_rate,
            ev,
            self.bullet_width,
        )
        enabled &= ~scoring.disabled(bots)  # firing can leave a bot disabled (§3)
        motion.execute_intents(bots, intents, enabled)
        moving = r2 & bots.in_map
        first_turn = self.turn_number == 1
        collisions.bot_wall_collisions(
            bots, self.width, self.height, moving & ~first_turn[:, None], ev
        )
        collisions.bot_bot_collisions(
            bots,
            self.scores,
            ev,
            running,
            first_turn,
            self.seeds,
            self.round_number,
            self.width,
            self.height,
        )
        collisions.clamp_into_arena(bots, self.width, self.height, moving)
        radar.scan(bots, intents, running, ev)
        self._remember_scans(running)
        ev.bullets, any_hit = gun.resolve(
            self.bullets, bots, self.scores, self.width, self.height, running, self.bullet_width
        )
        scoring.inactivity(bots, self.inactivity, any_hit, running, self.setup.max_inactivity_turns)
        self._zero_disabled_intents()
        scoring.deaths(bots, self.scores, running, ev)
        ended = scoring.round_over(bots, self.bullets, running)
        ev.round_ended[:] = ended
        if ended.any():
            scoring.end_round(self.scores, self.totals, ended, ev)
            self.needs_round |= ended
            ev.game_ended[:] = ended & (self.round_number >= self.setup.number_of_rounds)
            self.game_over |= ev.game_ended
        else:
            ev.game_ended[:] = False

    def bots_copy_start(self) -> None:
        b = self.bots
        for src, dst in (
            ("x", "x0"),
            ("y", "y0"),
            ("direction", "direction0"),
            ("gun_direction", "gun_direction0"),
            ("radar_direction", "radar_direction0"),
        ):
            getattr(b, dst)[:] = getattr(b, src)

    def _remember_scans(self, running: Bool) -> None:
        """Keep, per bot, whether it scanned this turn and the nearest scanned position (for fire
        assist next turn)."""
        bots, scans = self.bots, self.events.scans
        if self.n_bots == 2:
            any_scan: npt.NDArray[np.bool_] = np.stack([scans[:, 0, 1], scans[:, 1, 0]], axis=1)
            tx, ty = bots.x[:, ::-1], bots.y[:, ::-1]
        else:
            any_scan = np.asarray(scans.any(axis=2))
            dx = bots.x[:, None, :] - bots.x[:, :, None]
            dy = bots.y[:, None, :] - bots.y[:, :, None]
            nearest = np.argmin(np.where(scans, np.hypot(dx, dy), np.inf), axis=2)
            tx = np.take_along_axis(bots.x, nearest, axis=1)
            ty = np.take_along_axis(bots.y, nearest, axis=1)
        np.copyto(bots.scanned_prev, any_scan, where=running[:, None])
        np.copyto(bots.scanned_prev_x, tx, where=any_scan)
        np.copyto(bots.scanned_prev_y, ty, where=any_scan)

    def _zero_disabled_intents(self) -> None:
        """§9 step 13: disabled bots' target speed, turn rates and firepower become 0."""
        dis = scoring.disabled(self.bots)
        for name in ("target_speed", "turn_rate", "gun_turn_rate", "radar_turn_rate", "firepower"):
            getattr(self.intents, name)[dis] = 0.0

    # ---- reading -------------------------------------------------------------------------------
    def results(self, arena: int = 0) -> list[dict[str, int]]:
        """Accumulated ResultsForBot-style results of one arena, per seat."""
        return scoring.results(self.totals, arena)
