"""The one rules engine: B arenas of N bots stepped together on preallocated arrays
(docs/rules.md §9).

A turn is one compiled (numba) pass over the arenas (arena/rules/turn.py); a round's start and
end (placement, round scores) run in numpy here.
The first call in a fresh checkout compiles the rules (20 s or more) and caches them on disk;
`compile_rules()` does that up front (a server calls it before it accepts connections, so no
client waits on a stalled event loop).

The server (B = 1), the native env (B arenas) and the replay re-simulator all drive this class:
set each seat's intent, call `step()`, read the state, the turn's events and the results.
Deterministic for a seed: the same seeds and intents give the same battle.
"""

import functools
import math
from collections.abc import Mapping
from typing import Final

import numpy as np
import numpy.typing as npt

from tankrl.arena.rules import bullets as gun
from tankrl.arena.rules import rng, scoring
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.rules.placement import place_bots
from tankrl.arena.rules.state import (
    Bool,
    BulletEvents,
    alloc_bots,
    alloc_bullets,
    alloc_events,
    alloc_intents,
    alloc_scores,
    alloc_totals,
    blocks,
    bullet_capacity,
)
from tankrl.arena.rules.turn import turn, turn_starts
from tankrl.shared.game_constants import BOT_RADIUS, INITIAL_ENERGY, INITIAL_GUN_HEAT
from tankrl.shared.intent import INTENT_FIELDS, Intent

_FINITE_FIELDS: Final = INTENT_FIELDS[:5]
"""The intent's float fields (rates, speed, fire power): NaN or infinity is refused."""


def _require_finite(seat: int, name: str, finite: bool) -> None:
    if not finite:
        raise ValueError(f"intent.{name} for seat {seat} holds a non-finite value")


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
        self._intent_columns = [(name, getattr(self.intents, name)) for name in INTENT_FIELDS]
        self.bullets = alloc_bullets(b, self.capacity)
        self.scores = alloc_scores(b, n)
        self.totals = alloc_totals(b, n)
        self.events = alloc_events(b, n)
        bf, bb = blocks(self.bots)
        itf, itb = blocks(self.intents)
        bla, bli, blf = blocks(self.bullets)
        scf, sct, sci = blocks(self.scores)
        evb, evi, evp, evf, eva = blocks(self.events)
        self._blocks = (bf, bb, itf, itb, bla, bli, blf, scf, sct, sci, evb, evi, evp, evf, eva)
        """The state's blocks in `turn`'s argument order."""
        self._teleport_x, self._teleport_y = np.zeros((b, n)), np.zeros((b, n))
        self._count = np.zeros(3, np.int64)
        self._log_i = np.empty((8, 0), np.int64)
        self._log_f = np.empty((2, 0), np.float64)
        """The turn's bullet event log, kept between turns (grown by `_log_room`): a compiled
        call that returned new arrays paid for boxing them on every turn."""
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
        for name in _FINITE_FIELDS:
            _require_finite(seat, name, bool(np.isfinite(getattr(intent, name)).all()))
        for name in INTENT_FIELDS:
            stored = getattr(self.intents, name)
            value = getattr(intent, name)
            if received is None:
                stored[:, seat] = value
            else:
                stored[:, seat] = np.where(received, value, stored[:, seat])

    def set_seat_intent(self, arena: int, seat: int, values: Mapping[str, float | bool]) -> None:
        """One arena's intent for one seat from plain values (every field of Intent, defaults
        applied): what the server stores per BotIntent, without building [B] arrays."""
        for name in _FINITE_FIELDS:
            _require_finite(seat, name, math.isfinite(values[name]))
        for name, stored in self._intent_columns:
            stored[arena, seat] = values[name]

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
        self.needs_round[mask] = False

    def reset_arenas(self, mask: Bool) -> None:
        """Native env: end the current round of these arenas now; the next step starts a new one."""
        self.needs_round |= mask

    # ---- the turn ------------------------------------------------------------------------------
    def step(self) -> None:
        """Process one turn in every arena whose game is not over (§9)."""
        starts, firsts = turn_starts(self.game_over, self.needs_round, self.turn_number)
        if starts:
            self._start_round(self.needs_round & ~self.game_over)
        if firsts:
            self._teleports(~self.game_over)
        self._log_room()
        count, log_i, log_f = self._count, self._log_i, self._log_f
        status, self.bullet_width, ended = turn(
            *self._blocks,
            self.width,
            self.height,
            self.turn_number,
            self.inactivity,
            self.next_bullet_id,
            self.game_over,
            self._teleport_x,
            self._teleport_y,
            self.bullet_width,
            self.setup.gun_cooling_rate,
            self.setup.max_inactivity_turns,
            count,
            log_i,
            log_f,
        )
        if status == 1:
            raise gun.BulletCapacityError(f"more than {self.capacity} bullets in one arena")
        if status != 0:
            raise AssertionError("the bullet event log was sized too small")
        ev = self.events
        walls, pairs, hits = count.tolist()
        ev.bullets = (
            _NO_BULLET_EVENTS
            if walls == pairs == hits == 0
            else BulletEvents(  # copies: the log is overwritten by the next turn
                log_i[gun.WALL_ARENA, :walls].copy(),
                log_i[gun.WALL_SLOT, :walls].copy(),
                log_i[gun.PAIR_ARENA, :pairs].copy(),
                log_i[gun.PAIR_A, :pairs].copy(),
                log_i[gun.PAIR_B, :pairs].copy(),
                log_i[gun.HIT_ARENA, :hits].copy(),
                log_i[gun.HIT_SLOT, :hits].copy(),
                log_i[gun.HIT_VICTIM, :hits].copy(),
                log_f[gun.HIT_DAMAGE, :hits].copy(),
                log_f[gun.HIT_VICTIM_ENERGY, :hits].copy(),
            )
        )
        if ended:
            mask = ev.round_ended
            scoring.end_round(self.scores, self.totals, mask, ev)
            self.needs_round |= mask
            ev.game_ended[:] = mask & (self.round_number >= self.setup.number_of_rounds)
            self.game_over |= ev.game_ended
        else:
            ev.game_ended[:] = False

    def _log_room(self) -> None:
        """Make the bullet event log big enough for this turn: new bullets take the lowest free
        slots, so an arena has at most min(width + N, capacity) bullets in flight after firing,
        and the log needs room for all their pairs or all their hits (as `turn` sizes it)."""
        f = min(self.bullet_width + self.n_bots, self.capacity)
        room = self.n_arenas * max(f * (f - 1) // 2, f * max(self.n_bots - 1, 1))
        if room > self._log_i.shape[1]:
            room = max(room, 2 * self._log_i.shape[1])
            self._log_i = np.empty((8, room), np.int64)
            self._log_f = np.empty((2, room), np.float64)

    def _teleports(self, running: Bool) -> None:
        """§7.5: where the second bot of a pair colliding on turn 1 goes, per arena and seat
        (drawn for the arenas about to play turn 1; the rest are never read)."""
        tx, ty = self._teleport_x, self._teleport_y
        first = running & (self.turn_number == 0)
        if first.any():
            keys = (self.seeds[first], self.round_number[first])
            span_x = (self.width[first] - 2.0 * BOT_RADIUS)[:, None]
            span_y = (self.height[first] - 2.0 * BOT_RADIUS)[:, None]
            seats = np.arange(self.n_bots)[None, :]
            ux = rng.uniform(keys[0][:, None], keys[1][:, None], rng.STREAM_TELEPORT_X, seats)
            uy = rng.uniform(keys[0][:, None], keys[1][:, None], rng.STREAM_TELEPORT_Y, seats)
            tx[first] = BOT_RADIUS + ux * span_x
            ty[first] = BOT_RADIUS + uy * span_y

    # ---- reading -------------------------------------------------------------------------------
    def results(self, arena: int = 0) -> list[dict[str, int]]:
        """Accumulated ResultsForBot-style results of one arena, per seat."""
        return scoring.results(self.totals, arena)


@functools.cache
def compile_rules() -> None:
    """Compile the turn's kernels now (or load them from the on-disk cache: well under a
    second), by stepping a throwaway 1v1 arena once."""
    Engine(GameSetup(), n_arenas=1, n_bots=2).step()


_NO_BULLET_EVENTS: Final = BulletEvents.empty()
"""A turn's bullet events when it had none (most turns): shared, never written."""
