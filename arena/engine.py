"""The one rules engine: B arenas of N bots stepped together on preallocated arrays (rules §9).

A turn is one compiled (numba) pass over the arenas, calling the rules modules' per-arena and
per-bot functions in §9's order; a round's start and end (placement, round scores) run in numpy.
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
from numba import njit

from tankrl.arena import bullets as gun
from tankrl.arena import collisions, motion, radar, rng, scoring
from tankrl.arena.game_setup import GameSetup
from tankrl.arena.placement import place_bots
from tankrl.arena.state import (
    BULLET_ACTIVE,
    DIRECTION,
    DIRECTION0,
    EVENT_BOT_BOT,
    EVENT_BOT_WALL,
    EVENT_RAMMED,
    EVENT_ROUND_ENDED,
    EVENT_SCANS,
    EVENT_WON_ROUND,
    F64,
    GUN_DIRECTION,
    GUN_DIRECTION0,
    I32,
    I64,
    IN_MAP,
    INTENT_FIREPOWER,
    INTENT_GUN_TURN_RATE,
    INTENT_RADAR_TURN_RATE,
    INTENT_TARGET_SPEED,
    INTENT_TURN_RATE,
    RADAR_DIRECTION,
    RADAR_DIRECTION0,
    SCANNED_PREV,
    SCANNED_PREV_X,
    SCANNED_PREV_Y,
    X0,
    Y0,
    Bool,
    BulletEvents,
    X,
    Y,
    alloc_bots,
    alloc_bullets,
    alloc_events,
    alloc_intents,
    alloc_scores,
    alloc_totals,
    blocks,
    bullet_capacity,
)
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
        """The state's blocks in `_turn`'s argument order."""
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
        starts, firsts = _turn_starts(self.game_over, self.needs_round, self.turn_number)
        if starts:
            self._start_round(self.needs_round & ~self.game_over)
        if firsts:
            self._teleports(~self.game_over)
        self._log_room()
        count, log_i, log_f = self._count, self._log_i, self._log_f
        status, self.bullet_width, ended = _turn(
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
        and the log needs room for all their pairs or all their hits (as `_turn` sizes it)."""
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


# ---- the compiled turn ---------------------------------------------------------------------------
@functools.cache
def compile_rules() -> None:
    """Compile the turn's kernels now (or load them from the on-disk cache: well under a
    second), by stepping a throwaway 1v1 arena once."""
    Engine(GameSetup(), n_arenas=1, n_bots=2).step()


_NO_BULLET_EVENTS: Final = BulletEvents.empty()
"""A turn's bullet events when it had none (most turns): shared, never written."""


@njit(cache=True)
def _turn_starts(game_over: Bool, needs_round: Bool, turn_number: I32) -> tuple[bool, bool]:
    """(whether a running arena starts a round now, whether one is about to play turn 1): the
    two checks before every step in one call (numpy mask arithmetic and any() cost microseconds
    each: at B = 1 they were half the step)."""
    starts = firsts = False
    for a in range(game_over.shape[0]):
        if not game_over[a]:
            starts = starts or needs_round[a]
            firsts = firsts or needs_round[a] or turn_number[a] == 0
    return starts, firsts


@njit(cache=True)
def _turn(
    bf: F64,
    bb: Bool,
    itf: F64,
    itb: Bool,
    bla: Bool,
    bli: I32,
    blf: F64,
    scf: F64,
    sct: F64,
    sci: I32,
    evb: Bool,
    evi: I32,
    evp: Bool,
    evf: F64,
    eva: Bool,
    width: F64,
    height: F64,
    turn_number: I32,
    inactivity: I32,
    next_id: I32,
    game_over: Bool,
    teleport_x: F64,
    teleport_y: F64,
    w: int,
    cooling: float,
    max_inactivity: int,
    count: I64,
    log_i: I64,
    log_f: F64,
) -> tuple[int, int, int]:
    """§9 steps 3-12 and 14-15 for every arena, on the state's blocks (bots bf/bb, intents
    itf/itb, bullets bla/bli/blf, scores scf/sct/sci, events evb/evi/evp/evf/eva; arena.state).

    Returns (0, or 1 when an arena ran out of bullet slots, or 2 when the bullet event log is too
    small; the new bullet width; how many arenas' rounds ended). The turn's bullet events go to
    count, log_i and log_f (see arena.bullets), which the caller sizes (Engine._log_room)."""
    n_arenas, n = bf.shape[1], bf.shape[2]
    for a in range(n_arenas):
        running = not game_over[a]
        eva[EVENT_ROUND_ENDED, a] = False
        for i in range(n):
            evb[EVENT_WON_ROUND, a, i] = False
            for j in range(n):
                evp[EVENT_BOT_BOT, a, i, j] = False
                evp[EVENT_RAMMED, a, i, j] = False
            bf[X0, a, i], bf[Y0, a, i] = bf[X, a, i], bf[Y, a, i]
            bf[DIRECTION0, a, i] = bf[DIRECTION, a, i]
            bf[GUN_DIRECTION0, a, i] = bf[GUN_DIRECTION, a, i]
            bf[RADAR_DIRECTION0, a, i] = bf[RADAR_DIRECTION, a, i]
        if running:
            turn_number[a] += 1
        for i in range(n):  # guns, then moves: firing can leave a bot disabled (§3)
            enabled = running and bb[IN_MAP, a, i] and not scoring.disabled(bf, bb, a, i)
            slot = gun.fire_or_cool(
                bf, bb, itf, itb, bla, bli, blf, a, i, enabled, next_id, cooling, evb, evi
            )
            if slot == gun.NO_SLOT:
                return 1, w, 0
            w = max(w, slot + 1)
        for i in range(n):
            if running and bb[IN_MAP, a, i] and not scoring.disabled(bf, bb, a, i):
                motion.execute_intent(bf, itf, itb, a, i)
        first_turn = turn_number[a] == 1
        for i in range(n):
            if running and bb[IN_MAP, a, i] and not first_turn:
                collisions.bot_wall(bf, bb, a, i, width[a], height[a], evb)
            else:
                evb[EVENT_BOT_WALL, a, i] = False
        if running:
            collisions.bot_bot(
                bf, bb, scf, sct, sci, evp, evf, a, first_turn, teleport_x, teleport_y
            )
        for i in range(n):
            if running and bb[IN_MAP, a, i]:
                collisions.clamp_into_arena(bf, a, i, width[a], height[a])
        radar.scan(bf, bb, itb, a, running, evp, evf)
        _remember_scans(bf, bb, evp, a, running)

    flying = 0  # room for the bullet events: every bullet, every pair of one arena, every hit
    pairs = 0
    for a in range(n_arenas):
        f = 0
        for k in range(w):
            f += bla[BULLET_ACTIVE, k, a]
        flying += f
        pairs += f * (f - 1) // 2
    if max(pairs, flying * max(n - 1, 1)) > log_i.shape[1]:
        return 2, w, 0
    count[:] = 0

    ended = 0
    for a in range(n_arenas):
        running = not game_over[a]
        any_hit = gun.resolve(
            bla, bli, blf, bf, bb, scf, sct, sci, a, running, w, width[a], height[a],
            count, log_i, log_f,
        )  # fmt: skip
        scoring.inactivity(bf, bb, inactivity, a, any_hit, running, max_inactivity)
        for i in range(n):  # §9 step 13: disabled bots' target speed, turn rates and power are 0
            if scoring.disabled(bf, bb, a, i):
                itf[INTENT_TARGET_SPEED, a, i] = 0.0
                itf[INTENT_TURN_RATE, a, i] = 0.0
                itf[INTENT_GUN_TURN_RATE, a, i] = 0.0
                itf[INTENT_RADAR_TURN_RATE, a, i] = 0.0
                itf[INTENT_FIREPOWER, a, i] = 0.0
        scoring.deaths(bf, bb, scf, a, running, evb)
        eva[EVENT_ROUND_ENDED, a] = scoring.round_over(bf, bb, bla, a, running, w)
        ended += eva[EVENT_ROUND_ENDED, a]
    return 0, w, ended


@njit(cache=True)
def _remember_scans(bf: F64, bb: Bool, evp: Bool, a: int, running: bool) -> None:
    """Keep, per bot, whether it scanned this turn and the nearest scanned position (for fire
    assist next turn)."""
    n = bf.shape[2]
    for i in range(n):
        nearest, best = -1, np.inf
        for j in range(n):
            if evp[EVENT_SCANS, a, i, j]:
                d = np.hypot(bf[X, a, j] - bf[X, a, i], bf[Y, a, j] - bf[Y, a, i])
                if d < best:
                    nearest, best = j, d
        if running:
            bb[SCANNED_PREV, a, i] = nearest >= 0
        if nearest >= 0:
            bf[SCANNED_PREV_X, a, i] = bf[X, a, nearest]
            bf[SCANNED_PREV_Y, a, i] = bf[Y, a, nearest]
