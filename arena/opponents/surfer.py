"""Surfer: our strong scripted opponent, written from the public descriptions of the classic
Robocode techniques: a locked radar, wave surfing movement and a GuessFactor gun, batched over n
arenas with one compiled pass per turn. Each tick it reads the enemy's energy drop between two
scans, after taking out what our own events explain, as a shot (docs/rules.md §6); the shot becomes
a wave that the movement surfs, if the bullet has power 1.5 or more (SURF_MIN_POWER): it
predicts where orbiting either way or stopping leaves us when the wave arrives and takes the
option with the least learned danger (surfmove.py). Every turn its
gun launches a virtual wave, learns from it where the enemy went, and aims at the most visited
guess factor of the enemy's current segment (waves.py). What it learns (danger bins, gun buffers)
lives for a battle: `reset_battle` clears it, `reset_round` only the round's waves, radar lock
and scans. Accounted in the energy drop: our bullet hits on the enemy and its 3p gain from hits on
us (both seen in the next scan, as bullets come after scans, §9), rams (0.6 each, §7.5), the
inactivity zap (0.1, §8, with the default 450 turns) exactly; its wall hits approximately (§7.4).
"""

import math
from typing import ClassVar

import numpy as np
import numpy.typing as npt
from numba import njit

from tankrl.arena.opponents.base import F64, Bool, ScriptedBot
from tankrl.arena.opponents.surfmove import DEG, drive, orbit_goal, surf
from tankrl.arena.opponents.waves import (
    BINS,
    ENEMY_WAVES,
    GUN_COARSE_SEGMENTS,
    GUN_MID_SEGMENTS,
    GUN_SEGMENTS,
    GUN_WAVES,
    SURF_SEGMENTS,
    W_ACTIVE,
    W_POWER,
    W_SPEED,
    W_T0,
    W_X,
    W_Y,
    WAVE_FIELDS,
    add_wave,
    best_gf,
    check_gun_waves,
    drop_passed,
    enemy_hit_wall,
    forward_room,
    gun_segment,
    lateral_direction,
    launch_gun_wave,
    log_hit,
    max_escape_angle,
    shot_power,
    shot_power_at_wall,
    speed_of,
    surf_prior,
    surf_segment,
    wrap,
)
from tankrl.arena.rules.motion import new_bot_speed
from tankrl.shared.botview import BotView
from tankrl.shared.game_constants import (
    BULLET_HIT_ENERGY_GAIN_FACTOR,
    INACTIVITY_DAMAGE,
    MAX_GUN_TURN_RATE,
    MAX_INACTIVITY_TURNS,
    MAX_RADAR_TURN_RATE,
    RAM_DAMAGE,
)
from tankrl.shared.intent import Intent

# round state columns [n, STATE_FIELDS]
(HAVE_SCAN, SCAN_TICK, EX, EY, EH, EV, EE, EV_PREV, E_LATDIR, HAVE_ME, MY_X, MY_Y, MY_H, MY_V,
 MY_LATDIR, LOSS, LAST_HIT, ORBIT, GUN_NEXT, RADAR_SPIN) = range(20)  # fmt: skip
STATE_FIELDS = 20

# the view fields the kernel reads, packed as tuples of arrays
_FLOATS = ("x", "y", "direction", "gun_direction", "radar_direction", "speed", "energy",
           "gun_heat", "arena_width", "arena_height", "scan_x", "scan_y", "scan_direction",
           "scan_speed", "scan_energy", "hit_by_bullet_power", "hit_by_bullet_direction",
           "bullet_hit_damage")  # fmt: skip
(V_X, V_Y, V_DIR, V_GUN, V_RADAR, V_SPEED, V_ENERGY, V_HEAT, V_W, V_H, V_SX, V_SY, V_SDIR,
 V_SSPEED, V_SENERGY, V_HIT_POWER, V_HIT_DIR, V_DEALT) = range(len(_FLOATS))  # fmt: skip
_BOOLS = ("scanned", "hit_by_bullet", "hit_bot", "bullet_hit")
B_SCANNED, B_HIT_BY, B_HIT_BOT, B_BULLET_HIT = range(len(_BOOLS))

SURF_MIN_POWER = 1.5
"""Waves of weaker bullets are not surfed (the orbit goes on): dodging every bullet would keep
the bot stopping and turning, and a bullet under 1.5 deals at most 6.0."""
FLIP_EVERY, FLIP_CHANCE = 10, 0.2
"""Every FLIP_EVERY turns, while no enemy wave is in the air, the orbit reverses with this chance
(one seeded draw per check)."""
RADAR_OVERSHOOT = 10.0 * DEG
RADAR_LOST = 3
"""Turns without a scan after which the radar spins to search."""
FIRE_TOLERANCE_MAX = 2.0 * DEG
FIRE_TOLERANCE_MIN = 1.0 * DEG
ENERGY_RESERVE = 0.1
"""Energy never spent on firing: a shot leaves at least this (so never disabled by our gun)."""


@njit(cache=True)
def fire_power(distance: float, energy: float, enemy_energy: float) -> float:
    """3 up to 200 away, down to 1.9 at 600; less when low (energy / 12 below 36); no more than
    kills the enemy; 0 when even 0.1 would leave less than ENERGY_RESERVE."""
    p = 3.0 - max(distance - 200.0, 0.0) / 400.0 * 1.1
    p = max(p, 1.9)
    if energy < 36.0:
        p = min(p, energy / 12.0)
    need = enemy_energy / 4.0 if enemy_energy <= 4.0 else (enemy_energy + 2.0) / 6.0
    p = min(p, need + 0.05, 3.0, energy - ENERGY_RESERVE)
    p = max(p, 0.1)
    return p if energy - p >= ENERGY_RESERVE else 0.0


@njit(cache=True)
def nearest_surfed_waves(waves: F64, x: float, y: float, tick: float) -> tuple[int, int]:
    """The two surfed enemy waves (power SURF_MIN_POWER or more) that reach us soonest and
    have not yet arrived (-1: none)."""
    first, second, t1, t2 = -1, -1, math.inf, math.inf
    for i in range(waves.shape[0]):
        w = waves[i]
        if w[W_ACTIVE] == 0.0 or w[W_POWER] < SURF_MIN_POWER:
            continue
        left = math.hypot(x - w[W_X], y - w[W_Y]) - w[W_SPEED] * (tick - w[W_T0])
        if left <= w[W_SPEED]:
            continue
        t = left / w[W_SPEED]
        if t < t1:
            second, t2, first, t1 = first, t1, i, t
        elif t < t2:
            second, t2 = i, t
    return first, second


@njit(cache=True)
def _read_scan(
    s: F64,
    vf: tuple[F64, ...],
    vb: tuple[Bool, ...],
    a: int,
    tick: float,
    waves: F64,
    ram: float,
    zapped: bool,
) -> None:
    """Fold this tick's scan and events into the round state; a shot becomes a wave."""
    x, y = vf[V_X][a], vf[V_Y][a]
    if vb[B_SCANNED][a]:
        ex, ey, ev = vf[V_SX][a], vf[V_SY][a], vf[V_SSPEED][a]
        energy = vf[V_SENERGY][a]
        if s[HAVE_SCAN] != 0.0:
            w, h = vf[V_W][a], vf[V_H][a]
            loss = s[LOSS] + ram
            if enemy_hit_wall(ex, ey, ev, s[EV], ram > 0.0, w, h):
                power = shot_power_at_wall(s[EE], energy, loss, s[EV])
            else:
                power = shot_power(s[EE], energy, loss)
            if power > 0.0:
                # fired in this turn from where the last scan saw it, at us as we were then
                mx, my, mh, mv = x, y, vf[V_DIR][a] * DEG, vf[V_SPEED][a]
                if s[HAVE_ME] != 0.0:
                    mx, my, mh, mv = s[MY_X], s[MY_Y], s[MY_H], s[MY_V]
                bearing = math.atan2(my - s[EY], mx - s[EX])
                latdir = lateral_direction(mv, mh, bearing, s[MY_LATDIR])
                seg = surf_segment(mv * math.sin(mh - bearing))
                add_wave(waves, s[EX], s[EY], tick - 1.0, power, bearing, latdir, seg)
        s[EV_PREV] = s[EV] if s[HAVE_SCAN] != 0.0 else ev
        s[EX], s[EY], s[EH], s[EV], s[EE] = ex, ey, vf[V_SDIR][a] * DEG, ev, energy
        s[HAVE_SCAN], s[SCAN_TICK], s[LOSS] = 1.0, tick, 0.0
    else:
        s[LOSS] += ram
    # bullets hit after scans: these show in the next scan
    s[LOSS] += vf[V_DEALT][a] - BULLET_HIT_ENERGY_GAIN_FACTOR * vf[V_HIT_POWER][a]
    if zapped:
        s[LOSS] += INACTIVITY_DAMAGE


@njit(cache=True)
def _move(
    s: F64,
    waves: F64,
    danger: F64,
    x: float,
    y: float,
    heading: float,
    speed: float,
    tick: float,
    draw: float,
    w: float,
    h: float,
) -> tuple[float, float]:
    """(target speed, body turn in radians): surf the nearest waves, else orbit the enemy."""
    if s[HAVE_SCAN] == 0.0:
        return 0.0, 0.0
    ex, ey = s[EX], s[EY]
    distance = math.hypot(x - ex, y - ey)
    first, second = nearest_surfed_waves(waves, x, y, tick)
    if first >= 0:
        wave, nxt = waves[first], waves[max(second, first)]
        o = surf(x, y, heading, speed, s[ORBIT], danger, wave, nxt, second >= 0, tick, ex, ey, w, h)
        if o != 0.0:
            s[ORBIT] = o
        cx, cy = waves[first, W_X], waves[first, W_Y]
        goal = orbit_goal(x, y, cx, cy, s[ORBIT], distance, w, h)
        target, turn = drive(heading, speed, goal)
        return (target if o != 0.0 else 0.0), turn
    if tick % FLIP_EVERY == 0.0 and draw < FLIP_CHANCE:
        s[ORBIT] = -s[ORBIT]
    goal = orbit_goal(x, y, ex, ey, s[ORBIT], distance, w, h)
    return drive(heading, speed, goal)


@njit(cache=True)
def _gun(
    s: F64,
    gun_waves: F64,
    fine: F64,
    mid: F64,
    coarse: F64,
    vf: tuple[F64, ...],
    scanned: bool,
    a: int,
    tick: float,
) -> tuple[float, float]:
    """(gun turn in radians, firepower): launch this turn's virtual wave, aim at the best guess
    factor of the enemy's segment, fire when cold and on target."""
    x, y = vf[V_X][a], vf[V_Y][a]
    gun = vf[V_GUN][a] * DEG
    if s[HAVE_SCAN] == 0.0:
        return wrap(math.atan2(vf[V_H][a] / 2 - y, vf[V_W][a] / 2 - x) - gun), 0.0
    ex, ey, eh, ev = s[EX], s[EY], s[EH], s[EV]
    distance = max(math.hypot(ex - x, ey - y), 1.0)
    bearing = math.atan2(ey - y, ex - x)
    energy = vf[V_ENERGY][a]
    power = fire_power(distance, energy, s[EE])
    speed = speed_of(max(power, 0.1))
    lateral = ev * math.sin(eh - bearing)
    latdir = lateral_direction(ev, eh, bearing, s[E_LATDIR])
    s[E_LATDIR] = latdir
    accel = 1
    if abs(ev) > abs(s[EV_PREV]) + 0.5:
        accel = 2
    elif abs(ev) < abs(s[EV_PREV]) - 0.5:
        accel = 0
    room = forward_room(x, y, bearing, latdir, distance, speed, vf[V_W][a], vf[V_H][a])
    seg = gun_segment(distance, lateral, accel, room)
    if scanned:
        slot = int(s[GUN_NEXT])
        launch_gun_wave(gun_waves, slot, x, y, tick, max(power, 0.1), bearing, latdir, seg)
        s[GUN_NEXT] = (slot + 1) % gun_waves.shape[0]
    gf = best_gf(fine, mid, coarse, seg, lateral)
    error = wrap(bearing + latdir * gf * max_escape_angle(speed) - gun)
    tolerance = min(max(math.atan(12.0 / distance), FIRE_TOLERANCE_MIN), FIRE_TOLERANCE_MAX)
    ready = vf[V_HEAT][a] == 0.0 and tick - s[SCAN_TICK] <= 1.0
    if ready and power > 0.0 and abs(error) <= tolerance:
        return error, power
    return error, 0.0


@njit(cache=True)
def _radar(s: F64, x: float, y: float, radar: float, tick: float) -> float:
    """Radar turn (radians): lock on the enemy's predicted next position with overshoot, or spin
    while it is lost."""
    if s[HAVE_SCAN] == 0.0 or tick - s[SCAN_TICK] > RADAR_LOST:
        spin: float = s[RADAR_SPIN] * MAX_RADAR_TURN_RATE * DEG
        return spin
    dt = tick + 1.0 - s[SCAN_TICK]
    px = s[EX] + s[EV] * math.cos(s[EH]) * dt
    py = s[EY] + s[EV] * math.sin(s[EH]) * dt
    turn = wrap(math.atan2(py - y, px - x) - radar)
    side = 1.0 if turn >= 0.0 else -1.0
    s[RADAR_SPIN] = side
    return turn + side * RADAR_OVERSHOOT


@njit(cache=True)
def _decide(
    vf: tuple[F64, ...],
    vb: tuple[Bool, ...],
    turns: npt.NDArray[np.int32],
    draws: F64,
    state: F64,
    enemy_waves: F64,
    gun_waves: F64,
    danger: F64,
    gun: tuple[F64, F64, F64],
    out: tuple[F64, F64, F64, F64, F64],
) -> None:
    """Every arena's turn: events and scan, waves, movement, gun, radar; intents into `out`
    (target speed, body, gun and radar turn rates, firepower)."""
    fine, mid, coarse = gun
    out_speed, out_turn, out_gun, out_radar, out_fire = out
    for a in range(turns.shape[0]):
        s, waves = state[a], enemy_waves[a]
        tick = float(turns[a])
        x, y, w, h = vf[V_X][a], vf[V_Y][a], vf[V_W][a], vf[V_H][a]
        heading, speed = vf[V_DIR][a] * DEG, vf[V_SPEED][a]
        if vb[B_HIT_BY][a] or vb[B_BULLET_HIT][a]:
            s[LAST_HIT] = tick
        zapped = tick - s[LAST_HIT] > MAX_INACTIVITY_TURNS
        ram = RAM_DAMAGE if vb[B_HIT_BOT][a] else 0.0
        _read_scan(s, vf, vb, a, tick, waves, ram, zapped)
        if vb[B_HIT_BY][a]:
            log_hit(waves, danger[a], x, y, tick, vf[V_HIT_POWER][a], vf[V_HIT_DIR][a] * DEG)
        drop_passed(waves, x, y, tick)
        if vb[B_SCANNED][a]:
            check_gun_waves(gun_waves[a], fine[a], mid[a], coarse[a], s[EX], s[EY], tick)
        target, turn = _move(s, waves, danger[a], x, y, heading, speed, tick, draws[a], w, h)
        scanned = vb[B_SCANNED][a]
        gun_turn, power = _gun(s, gun_waves[a], fine[a], mid[a], coarse[a], vf, scanned, a, tick)
        v = new_bot_speed(speed, target)
        nx, ny = x + v * math.cos(heading), y + v * math.sin(heading)
        radar = _radar(s, nx, ny, vf[V_RADAR][a] * DEG, tick)
        out_speed[a] = target
        out_turn[a] = turn / DEG
        out_gun[a] = min(max(gun_turn / DEG, -MAX_GUN_TURN_RATE), MAX_GUN_TURN_RATE)
        out_radar[a] = min(max(radar / DEG, -MAX_RADAR_TURN_RATE), MAX_RADAR_TURN_RATE)
        out_fire[a] = power
        if s[HAVE_SCAN] != 0.0:
            bearing = math.atan2(y - s[EY], x - s[EX])
            s[MY_LATDIR] = lateral_direction(speed, heading, bearing, s[MY_LATDIR])
        s[MY_X], s[MY_Y], s[MY_H], s[MY_V], s[HAVE_ME] = x, y, heading, speed, 1.0


class Surfer(ScriptedBot):
    """Wave surfing movement, GuessFactor gun, locked radar; statistics kept per battle."""

    name = "Surfer"
    _compiled: ClassVar[bool] = False

    def __init__(self, n: int, seeds: npt.ArrayLike) -> None:
        super().__init__(n, seeds)
        self.state = np.zeros((n, STATE_FIELDS))
        self.enemy_waves = np.zeros((n, ENEMY_WAVES, WAVE_FIELDS))
        self.gun_waves = np.zeros((n, GUN_WAVES, WAVE_FIELDS))
        self.danger = np.zeros((n, SURF_SEGMENTS + 1, BINS))
        """Per copy: learned danger per guess-factor bin of the enemy's waves (waves.py)."""
        self.gun_fine = np.zeros((n, GUN_SEGMENTS, BINS))
        self.gun_mid = np.zeros((n, GUN_MID_SEGMENTS, BINS))
        self.gun_coarse = np.zeros((n, GUN_COARSE_SEGMENTS, BINS))
        """Per copy: the gun's visit counts per segment and bin, three granularities."""
        everyone = np.ones(n, dtype=np.bool_)
        self.reset_battle(everyone)
        self.reset_round(everyone)
        if not Surfer._compiled:  # compile (or load) the kernel now, not in a hosted bot's turn
            Surfer._compiled = True
            Surfer(0, []).decide(BotView.zeros(0))

    def reset_round(self, mask: Bool) -> None:
        self.state[mask] = 0.0
        self.state[mask, ORBIT] = 1.0
        self.state[mask, RADAR_SPIN] = 1.0
        self.state[mask, E_LATDIR] = 1.0
        self.state[mask, MY_LATDIR] = 1.0
        self.state[mask, LAST_HIT] = 1.0  # the inactivity count starts as if hit in turn 1
        self.enemy_waves[mask] = 0.0
        self.gun_waves[mask] = 0.0

    def reset_battle(self, mask: Bool) -> None:
        self.danger[mask] = surf_prior()
        self.gun_fine[mask] = 0.0
        self.gun_mid[mask] = 0.0
        self.gun_coarse[mask] = 0.0

    def decide(self, view: BotView) -> Intent:
        intent = Intent.zeros(self.n)
        checks = view.turn_number % FLIP_EVERY == 0
        draws = self.draw(view, 0) if checks.any() else np.ones(self.n)
        _decide(
            tuple(np.ascontiguousarray(getattr(view, f), dtype=np.float64) for f in _FLOATS),
            tuple(np.ascontiguousarray(getattr(view, f), dtype=np.bool_) for f in _BOOLS),
            view.turn_number,
            draws,
            self.state,
            self.enemy_waves,
            self.gun_waves,
            self.danger,
            (self.gun_fine, self.gun_mid, self.gun_coarse),
            (
                intent.target_speed,
                intent.turn_rate,
                intent.gun_turn_rate,
                intent.radar_turn_rate,
                intent.firepower,
            ),
        )
        intent.adjust_gun_for_body_turn[:] = True
        intent.adjust_radar_for_gun_turn[:] = True
        intent.adjust_radar_for_body_turn[:] = True
        intent.fire_assist[:] = False
        return intent
