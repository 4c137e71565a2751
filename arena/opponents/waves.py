"""Surfer's wave bookkeeping and learned statistics (compiled, one arena's rows at a time): the
enemy's shots seen as energy drops become waves, the guess factors its bullets hit us at feed the
danger bins that Surfer's movement avoids, and the virtual waves of Surfer's own gun learn, per
segment, the guess factors the enemy moves to. A wave is a bullet's possible positions: a circle
around its source growing by the bullet speed (docs/rules.md §6) every turn; time zero is the tick
whose position the bullet starts from, so at tick t it has travelled speed * (t - t0). A guess
factor (GF) is the angle from the wave's reference bearing (source to target when it fired), signed
by the target's lateral direction then and divided by the maximum escape angle asin(8 / speed): 1
is as far as the target can get going the way it went, -1 the other way. Angles are radians here.
"""

import math
from collections.abc import Callable
from typing import cast

import numpy as np
import numpy.typing as npt
from numba import njit

from tankrl.arena.rules.bullets import bullet_speed
from tankrl.shared.game_constants import BOT_RADIUS, MAX_SPEED

F64 = npt.NDArray[np.float64]
speed_of = cast(Callable[[float], float], bullet_speed)
"""shared.game_constants.bullet_speed as the engine compiles it, for one float power."""

BINS = 31
"""Guess-factor bins over [-1, 1]; the middle one is GF 0 (head-on)."""
MID = (BINS - 1) // 2

# wave rows [slots, WAVE_FIELDS]
W_ACTIVE, W_X, W_Y, W_T0, W_SPEED, W_BEARING, W_LATDIR, W_SEG, W_POWER = range(9)
WAVE_FIELDS = 9
ENEMY_WAVES = 16
"""Enemy waves in the air at once per arena (a gun fires at most every 14 turns, a bullet flies
under 100)."""
GUN_WAVES = 128
"""Surfer's own (virtual) waves per arena, one a turn: a ring, the oldest overwritten."""

SURF_SEGMENTS = 3
"""Danger rows by our |lateral speed| when the enemy fired (< 2, < 6, else), plus one row (index
SURF_SEGMENTS) over all hits."""
SURF_ALL = SURF_SEGMENTS
SURF_ALL_WEIGHT = 0.5
_SURF_LAT_EDGES = (2.0, 6.0)

GUN_DIST_EDGES = (150.0, 300.0, 450.0, 600.0)
GUN_LAT_EDGES = (1.0, 3.0, 5.0, 7.0)
GUN_SEGMENTS = 5 * 5 * 3 * 3
"""Gun segments: distance (5) x |lateral speed| (5) x acceleration (3) x room to move ahead (3).
The coarser buffers are distance x lateral speed (25) and lateral speed alone (5)."""
GUN_MID_SEGMENTS = 25
GUN_COARSE_SEGMENTS = 5
_GUN_WEIGHTS = (1.0, 0.5, 0.25)
_GUN_CONFIDENT = 15.0
"""Kernel mass (about five waves) after which a buffer counts fully."""
_LINEAR_PRIOR = 0.02
"""Weight of the linear-targeting guess while a buffer is empty or young."""
WALL_MARGIN = BOT_RADIUS


@njit(cache=True)
def wrap(angle: float) -> float:
    """An angle in radians folded into [-pi, pi)."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


@njit(cache=True)
def max_escape_angle(speed: float) -> float:
    """The widest angle a bot at full speed can get from a wave's bearing: asin(8 / speed)."""
    return math.asin(MAX_SPEED / speed)


@njit(cache=True)
def gf_index(gf: float) -> int:
    """The bin of a guess factor (clamped to [-1, 1])."""
    g = min(max(gf, -1.0), 1.0)
    return math.floor((g + 1.0) * 0.5 * (BINS - 1) + 0.5)


@njit(cache=True)
def bin_gf(index: int) -> float:
    """The guess factor at the centre of a bin."""
    return index * 2.0 / (BINS - 1) - 1.0


@njit(cache=True)
def wave_gf(wave: F64, angle: float) -> float:
    """The guess factor of an absolute direction from the wave's source, clamped to [-1, 1]."""
    gf: float = wrap(angle - wave[W_BEARING]) * wave[W_LATDIR] / max_escape_angle(wave[W_SPEED])
    return min(max(gf, -1.0), 1.0)


@njit(cache=True)
def add_kernel(row: F64, index: int, weight: float) -> None:
    """Add a smoothed bump weight / (1 + d^2), d = distance in bins, centred on `index`."""
    for b in range(BINS):
        d = b - index
        row[b] += weight / (1.0 + d * d)


@njit(cache=True)
def lateral_direction(speed: float, heading: float, bearing: float, previous: float) -> float:
    """+1 (counter-clockwise round the observer) or -1 for a bot moving along `heading` seen at
    absolute `bearing`; `previous` where its lateral speed is below 0.1."""
    lat = speed * math.sin(heading - bearing)
    if lat > 0.1:
        return 1.0
    if lat < -0.1:
        return -1.0
    return previous


@njit(cache=True)
def surf_segment(lateral_speed: float) -> int:
    s = 0
    for edge in _SURF_LAT_EDGES:
        if abs(lateral_speed) >= edge:
            s += 1
    return s


def surf_prior() -> F64:
    """Danger rows [SURF_SEGMENTS + 1, BINS] before any hit: head-on (GF 0) and, smaller, where
    linear targeting would aim for each lateral-speed row (GF ~ lateral speed / 8)."""
    rows = np.zeros((SURF_SEGMENTS + 1, BINS))
    linear = (0.1, 0.5, 0.9)
    for s in range(SURF_SEGMENTS + 1):
        add_kernel(rows[s], MID, 1.0)
        if s < SURF_SEGMENTS:
            add_kernel(rows[s], gf_index(linear[s]), 0.4)
    return rows


@njit(cache=True)
def shot_power(previous_energy: float, energy: float, explained_loss: float) -> float:
    """The firepower an unexplained energy drop between two scans stands for, 0 if none: a drop
    of 0.1-3 is one shot (docs/rules.md §6: a shot costs its power)."""
    drop = previous_energy - energy - explained_loss
    if drop < 0.1 - 1e-6 or drop > 3.0 + 1e-6:
        return 0.0
    return min(max(drop, 0.1), 3.0)


@njit(cache=True)
def enemy_hit_wall(
    x: float, y: float, speed: float, previous_speed: float, rammed: bool, w: float, h: float
) -> bool:
    """Whether the enemy, now standing after moving, hit a wall this turn (docs/rules.md §7.4): it
    touches one, or a ram put it back to where it started the turn, within a move of one."""
    if speed != 0.0 or previous_speed == 0.0:
        return False
    reach = BOT_RADIUS + 1e-6
    if rammed:
        reach += min(abs(previous_speed) + 1.0, MAX_SPEED)
    return x <= reach or y <= reach or x >= w - reach or y >= h - reach


@njit(cache=True)
def shot_power_at_wall(
    previous_energy: float, energy: float, explained_loss: float, previous_speed: float
) -> float:
    """shot_power when the enemy also hit a wall: the wall damage max(|v|/2 - 1, 0) depends on
    its unseen speed v, at most 1 above its last one (§4.1). A drop up to the largest such damage
    is taken as no shot; a larger one as a shot beside that damage (bots mostly accelerate into
    walls)."""
    v = min(abs(previous_speed) + 1.0, MAX_SPEED)
    return shot_power(previous_energy, energy, explained_loss + max(v / 2.0 - 1.0, 0.0))


@njit(cache=True)
def add_wave(
    waves: F64,
    x: float,
    y: float,
    t0: float,
    power: float,
    bearing: float,
    latdir: float,
    seg: int,
) -> None:
    """Start a wave in the first free slot (or over the oldest one)."""
    slot = 0
    oldest = np.inf
    for i in range(waves.shape[0]):
        if waves[i, W_ACTIVE] == 0.0:
            slot = i
            break
        if waves[i, W_T0] < oldest:
            oldest = waves[i, W_T0]
            slot = i
    w = waves[slot]
    w[W_ACTIVE], w[W_X], w[W_Y], w[W_T0] = 1.0, x, y, t0
    w[W_SPEED], w[W_BEARING], w[W_LATDIR] = speed_of(power), bearing, latdir
    w[W_SEG], w[W_POWER] = seg, power


@njit(cache=True)
def log_hit(
    waves: F64,
    danger: F64,
    x: float,
    y: float,
    tick: float,
    power: float,
    bullet_direction: float,
) -> int:
    """A bullet of `power` flying along `bullet_direction` hit us at (x, y): find its wave (same
    speed, front nearest to us), add the guess factor it flew at to that wave's danger row and to
    the all-hits row, and retire the wave. Returns the bin, -1 if no wave matched."""
    speed: float = speed_of(power)
    best, best_gap = -1, 60.0
    for i in range(waves.shape[0]):
        w = waves[i]
        if w[W_ACTIVE] == 0.0:
            continue
        gap = abs(w[W_SPEED] * (tick - w[W_T0]) - math.hypot(x - w[W_X], y - w[W_Y]))
        if abs(w[W_SPEED] - speed) > 1e-6:
            gap += 40.0  # two bullets in one turn sum their powers: prefer the same speed
        if gap < best_gap:
            best, best_gap = i, gap
    if best < 0:
        return -1
    w = waves[best]
    index = gf_index(wave_gf(w, bullet_direction))
    add_kernel(danger[int(w[W_SEG])], index, 1.0)
    add_kernel(danger[SURF_ALL], index, 1.0)
    w[W_ACTIVE] = 0.0
    return index


@njit(cache=True)
def drop_passed(waves: F64, x: float, y: float, tick: float) -> None:
    """Retire the waves whose front is well past (x, y)."""
    for i in range(waves.shape[0]):
        w = waves[i]
        if w[W_ACTIVE] != 0.0:
            reach = w[W_SPEED] * (tick - w[W_T0])
            if reach > math.hypot(x - w[W_X], y - w[W_Y]) + 2.0 * BOT_RADIUS + w[W_SPEED]:
                w[W_ACTIVE] = 0.0


@njit(cache=True)
def danger_between(danger: F64, seg: int, gf_low: float, gf_high: float) -> float:
    """Danger of the bins a bot covering [gf_low, gf_high] of a wave of row `seg` stands in."""
    total = 0.0
    for b in range(gf_index(gf_low), gf_index(gf_high) + 1):
        total += danger[seg, b] + SURF_ALL_WEIGHT * danger[SURF_ALL, b]
    return total


@njit(cache=True)
def point_danger(danger: F64, wave: F64, x: float, y: float) -> float:
    """Danger of standing at (x, y) when `wave` reaches it: the bins our body covers there."""
    d = max(math.hypot(x - wave[W_X], y - wave[W_Y]), BOT_RADIUS + 1.0)
    gf = wave_gf(wave, math.atan2(y - wave[W_Y], x - wave[W_X]))
    half = math.atan(BOT_RADIUS / d) / max_escape_angle(wave[W_SPEED])
    return danger_between(danger, int(wave[W_SEG]), gf - half, gf + half)


@njit(cache=True)
def _count_edges(value: float, edges: tuple[float, ...]) -> int:
    n = 0
    for e in edges:
        if value >= e:
            n += 1
    return n


@njit(cache=True)
def gun_segment(distance: float, lateral_speed: float, accel: int, room: int) -> int:
    """The gun's segment: distance and |lateral speed| bins, acceleration (0 slower, 1 same,
    2 faster) and room (0-2: how much of the forward escape range lies inside the arena)."""
    d = _count_edges(distance, GUN_DIST_EDGES)
    lat = _count_edges(abs(lateral_speed), GUN_LAT_EDGES)
    return ((d * 5 + lat) * 3 + accel) * 3 + room


@njit(cache=True)
def forward_room(
    x: float,
    y: float,
    bearing: float,
    latdir: float,
    distance: float,
    speed: float,
    w: float,
    h: float,
) -> int:
    """0-2: how many of the points at GF 0.25, 0.5, 0.75 and 1 (at the target's distance from
    (x, y)) lie inside the arena, before the first that does not (0-1, 2-3, 4)."""
    mea = max_escape_angle(speed)
    inside = 0
    for k in range(1, 5):
        a = bearing + latdir * mea * k / 4.0
        px, py = x + distance * math.cos(a), y + distance * math.sin(a)
        if px < WALL_MARGIN or py < WALL_MARGIN or px > w - WALL_MARGIN or py > h - WALL_MARGIN:
            break
        inside += 1
    return 0 if inside <= 1 else (1 if inside <= 3 else 2)


@njit(cache=True)
def check_gun_waves(
    waves: F64,
    fine: F64,
    mid: F64,
    coarse: F64,
    ex: float,
    ey: float,
    tick: float,
) -> int:
    """Every wave whose front reached the enemy at (ex, ey) logs the guess factor it moved to in
    its segment's buffers and retires. Returns how many logged."""
    logged = 0
    for i in range(waves.shape[0]):
        w = waves[i]
        if w[W_ACTIVE] == 0.0:
            continue
        reach = w[W_SPEED] * (tick - w[W_T0])
        if reach >= math.hypot(ex - w[W_X], ey - w[W_Y]):
            index = gf_index(wave_gf(w, math.atan2(ey - w[W_Y], ex - w[W_X])))
            seg = int(w[W_SEG])
            add_kernel(fine[seg], index, 1.0)
            add_kernel(mid[seg // 9], index, 1.0)
            add_kernel(coarse[(seg // 9) % 5], index, 1.0)
            w[W_ACTIVE] = 0.0
            logged += 1
    return logged


@njit(cache=True)
def launch_gun_wave(
    waves: F64,
    slot: int,
    x: float,
    y: float,
    tick: float,
    power: float,
    bearing: float,
    latdir: float,
    seg: int,
) -> None:
    w = waves[slot]
    w[W_ACTIVE], w[W_X], w[W_Y], w[W_T0] = 1.0, x, y, tick
    w[W_SPEED], w[W_BEARING], w[W_LATDIR] = speed_of(power), bearing, latdir
    w[W_SEG], w[W_POWER] = seg, power


@njit(cache=True)
def best_gf(fine: F64, mid: F64, coarse: F64, seg: int, lateral_speed: float) -> float:
    """The guess factor to aim at in segment `seg`: the bin with the highest visit score, each
    buffer normalised and weighted by how much it has seen, plus a small linear-targeting guess
    (GF ~ |lateral speed| / 8) that decides while nothing is known."""
    rows = (fine[seg], mid[seg // 9], coarse[(seg // 9) % 5])
    scale = np.zeros(3)
    for r in range(3):
        total = rows[r].sum()
        if total > 0.0:
            scale[r] = _GUN_WEIGHTS[r] * min(total / _GUN_CONFIDENT, 1.0) / total
    prior = gf_index(abs(lateral_speed) / MAX_SPEED)
    best, best_score = MID, -1.0
    for b in range(BINS):
        d = b - prior
        score = _LINEAR_PRIOR / (1.0 + d * d)
        for r in range(3):
            score += rows[r][b] * scale[r]
        if score > best_score:
            best, best_score = b, score
    return bin_gf(best)
