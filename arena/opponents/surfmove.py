"""Surfer's movement (compiled): orbiting with wall smoothing, precise prediction under the real
movement rules, and wave surfing. Precise prediction plays our own driving forward turn by turn
exactly as the engine will (docs/rules.md §4: the speed rule with its instant stop, the move along
the old heading, then the turn limited by the new speed; a wall stops the bot, §7.4) until a wave
reaches us, so the guess factor we would stand at, and its learned danger, is known for each
option before choosing. Wall smoothing bends the orbit direction towards the orbit's centre until
a point STICK ahead lies inside the arena with a margin, so the bot slides along walls instead of
hitting them. Angles are radians here; the intent wants degrees.
"""

import math

from numba import njit

from tankrl.arena.opponents.waves import (
    F64,
    W_POWER,
    W_SPEED,
    W_T0,
    W_X,
    W_Y,
    point_danger,
)
from tankrl.arena.rules.bullets import damage
from tankrl.arena.rules.motion import max_turn_rate, new_bot_speed
from tankrl.shared.game_constants import BOT_RADIUS, MAX_SPEED

DEG = math.pi / 180.0
STICK = 160.0
"""Wall smoothing: how far ahead the travel direction must stay inside the arena."""
SMOOTH_MARGIN = BOT_RADIUS + 4.0
SMOOTH_STEP = 0.05
PREFERRED_DISTANCE = 450.0
RETREAT_GAIN = 1.2
RETREAT_MIN, RETREAT_MAX = -0.35, 1.0
"""Bend (radians) of the orbit away from the enemy: (preferred - distance) / preferred x gain,
clipped; negative closes in."""
MAX_PREDICTION = 150
SECOND_WAVE_WEIGHT = 0.6
STOP_BIAS = 1.02
"""Options are scored danger x bias: a slight preference to keep moving, and to keep the current
direction (KEEP_BIAS), breaks ties."""
KEEP_BIAS = 0.97
DANGER_FLOOR = 0.02


@njit(cache=True)
def _inside(x: float, y: float, w: float, h: float) -> bool:
    m = SMOOTH_MARGIN
    return m <= x <= w - m and m <= y <= h - m


@njit(cache=True)
def smooth(x: float, y: float, goal: float, orbit: float, w: float, h: float) -> float:
    """Bend `goal` towards the orbit's centre (orbit = +1 counter-clockwise, -1 clockwise) until
    the point STICK ahead lies inside the arena."""
    for _ in range(64):
        if _inside(x + STICK * math.cos(goal), y + STICK * math.sin(goal), w, h):
            break
        goal += orbit * SMOOTH_STEP
    return goal


@njit(cache=True)
def retreat(distance: float) -> float:
    """How far (radians) the orbit bends away from an enemy `distance` away."""
    r = (PREFERRED_DISTANCE - distance) / PREFERRED_DISTANCE * RETREAT_GAIN
    return min(max(r, RETREAT_MIN), RETREAT_MAX)


@njit(cache=True)
def orbit_goal(
    x: float,
    y: float,
    cx: float,
    cy: float,
    orbit: float,
    enemy_distance: float,
    w: float,
    h: float,
) -> float:
    """Travel direction orbiting (cx, cy), bent away from the enemy when close, wall smoothed."""
    away = math.atan2(y - cy, x - cx)
    goal = away + orbit * (0.5 * math.pi - retreat(enemy_distance))
    return smooth(x, y, goal, orbit, w, h)


@njit(cache=True)
def drive(heading: float, speed: float, goal: float) -> tuple[float, float]:
    """(target speed, body turn in radians) to travel along `goal` at full speed, forwards or
    backwards, whichever needs less turning. Reversing from above 2 asks for 0 first: the
    instant stop (docs/rules.md §4.1) beats the zero-crossing brake."""
    turn = (goal - heading + math.pi) % (2.0 * math.pi) - math.pi
    target = MAX_SPEED
    if turn > 0.5 * math.pi:
        turn -= math.pi
        target = -MAX_SPEED
    elif turn < -0.5 * math.pi:
        turn += math.pi
        target = -MAX_SPEED
    if speed * target < 0.0 and abs(speed) > 2.0:
        target = 0.0
    return target, turn


@njit(cache=True)
def step(
    x: float, y: float, heading: float, speed: float, target: float, turn: float, w: float, h: float
) -> tuple[float, float, float, float]:
    """One turn of our own motion as the engine plays it: speed, move, wall stop, turn."""
    speed = float(new_bot_speed(speed, target))
    x += speed * math.cos(heading)
    y += speed * math.sin(heading)
    r = BOT_RADIUS
    if x < r or y < r or x > w - r or y > h - r:
        x, y = min(max(x, r), w - r), min(max(y, r), h - r)
        speed = 0.0
    limit = max_turn_rate(speed) * DEG
    heading += min(max(turn, -limit), limit)
    return x, y, heading, speed


@njit(cache=True)
def predict(
    x: float,
    y: float,
    heading: float,
    speed: float,
    orbit: float,
    wave: F64,
    tick: float,
    ex: float,
    ey: float,
    w: float,
    h: float,
) -> tuple[float, float, float, float, int]:
    """Where we are when `wave` reaches us, driving option `orbit` (+1 / -1 orbit its source,
    0 stop) from tick `tick` on. Returns (x, y, heading, speed, ticks driven)."""
    sx, sy = wave[W_X], wave[W_Y]
    k = 0
    while k < MAX_PREDICTION:
        k += 1
        if orbit == 0.0:
            target, turn = 0.0, 0.0
        else:
            goal = orbit_goal(x, y, sx, sy, orbit, math.hypot(x - ex, y - ey), w, h)
            target, turn = drive(heading, speed, goal)
        x, y, heading, speed = step(x, y, heading, speed, target, turn, w, h)
        reach = wave[W_SPEED] * (tick + k - wave[W_T0])
        if reach + wave[W_SPEED] >= math.hypot(x - sx, y - sy):
            break
    return x, y, heading, speed, k


@njit(cache=True)
def _weighted(danger: F64, wave: F64, x: float, y: float, ex: float, ey: float) -> float:
    """Danger of ending at (x, y) for `wave`: the learned bins, scaled by the bullet's damage
    and by closeness to the enemy (a close bot covers more of every later wave)."""
    base: float = point_danger(danger, wave, x, y) + DANGER_FLOOR
    closeness = PREFERRED_DISTANCE / max(math.hypot(x - ex, y - ey), 100.0)
    return base * damage(wave[W_POWER]) * math.sqrt(closeness)


@njit(cache=True)
def surf(
    x: float,
    y: float,
    heading: float,
    speed: float,
    current: float,
    danger: F64,
    first: F64,
    second: F64,
    has_second: bool,
    tick: float,
    ex: float,
    ey: float,
    w: float,
    h: float,
) -> float:
    """The safest option for the nearest wave `first` (and, if any, the next one `second`
    predicted from where each option leaves us): +1 / -1 orbit direction, or 0 to stop."""
    options = (current, -current, 0.0)
    best, best_danger = current, math.inf
    for o in options:
        px, py, ph, pv, k = predict(x, y, heading, speed, o, first, tick, ex, ey, w, h)
        total = _weighted(danger, first, px, py, ex, ey)
        if has_second:
            least = math.inf
            for o2 in options:
                qx, qy, _, _, _ = predict(px, py, ph, pv, o2, second, tick + k, ex, ey, w, h)
                least = min(least, _weighted(danger, second, qx, qy, ex, ey))
            total += SECOND_WAVE_WEIGHT * least
        if o == 0.0:
            total *= STOP_BIAS
        elif o == current:
            total *= KEEP_BIAS
        if total < best_danger:
            best, best_danger = o, total
    return best
