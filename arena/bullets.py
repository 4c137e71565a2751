"""Rules §6-§7.3: guns (fire or cool, fire assist), bullets in flight (advance, leave the arena,
hit bullets, hit bots) and their scoring, on slot-major Bullets [K, B].

Per-turn motion is dense over the first `w` slot rows (the most bullets any arena has had at
once); collision tests and events are sparse. The order of application follows bullet ids
(creation order), as the server's bullet list does.
"""

import numpy as np

from arena.state import (
    F64,
    I32,
    I64,
    Bool,
    Bots,
    BulletEvents,
    Bullets,
    Scores,
    StoredIntents,
    TurnEvents,
)
from shared.angles import direction_to
from shared.game_constants import (
    BOT_RADIUS,
    BULLET_HIT_ENERGY_GAIN_FACTOR,
    MAX_BULLET_SPEED,
    MAX_FIREPOWER,
    MIN_FIREPOWER,
)

_NONE = np.zeros(0, dtype=np.int64)


class BulletCapacityError(RuntimeError):
    """An arena has more bullets in flight than its slots; the capacity formula is wrong."""


def damage(power: F64) -> F64:
    """4p, plus 2(p - 1) when p > 1."""
    p = np.asarray(power)
    return np.asarray(4.0 * p + 2.0 * np.maximum(p - 1.0, 0.0))


def fire_or_cool(
    bots: Bots,
    intents: StoredIntents,
    bullets: Bullets,
    enabled: Bool,
    next_id: I32,
    cooling: float,
    events: TurnEvents,
    w: int,
) -> int:
    """§6: a cold, enabled gun fires the intent's power if energy allows; every other gun cools.

    Returns the new slot width.
    """
    events.fired[:] = False
    events.fired_slot[:] = -1
    cold = enabled & (bots.gun_heat == 0.0)
    f = intents.firepower
    shoot = cold & (f >= MIN_FIREPOWER) & (bots.energy > f)
    np.copyto(bots.gun_heat, np.maximum(bots.gun_heat - cooling, 0.0), where=~cold)
    if not shoot.any():
        return w
    p = np.minimum(f, MAX_FIREPOWER)
    np.copyto(bots.gun_heat, 1.0 + p / 5.0, where=shoot)
    np.subtract(bots.energy, f, out=bots.energy, where=shoot)
    events.fired[:] = shoot
    for i in range(bots.x.shape[1]):
        r = np.nonzero(shoot[:, i])[0]
        if r.size:
            w = _new_bullets(bots, intents, bullets, r, i, p[r, i], next_id, events, w)
    return w


def _new_bullets(
    bots: Bots,
    intents: StoredIntents,
    bullets: Bullets,
    r: I64,
    i: int,
    p: F64,
    next_id: I32,
    events: TurnEvents,
    w: int,
) -> int:
    """Put bot i's new bullets of arenas `r` into each arena's first free slot."""
    k = bullets.active.shape[0]
    free = ~bullets.active[:, r]
    slot = np.argmax(free, axis=0)
    if not bool(free[slot, np.arange(r.size)].all()):
        raise BulletCapacityError(f"more than {k} bullets in one arena")
    direction = bots.gun_direction[r, i]
    assist = (
        intents.fire_assist[r, i]
        & bots.scanned_prev[r, i]
        & (bots.gun_direction[r, i] == bots.radar_direction[r, i])
    )
    if assist.any():
        aimed = direction_to(
            bots.x[r, i], bots.y[r, i], bots.scanned_prev_x[r, i], bots.scanned_prev_y[r, i]
        )
        direction = np.where(assist, aimed, direction)
    rad = np.radians(direction)
    x, y = bots.x[r, i], bots.y[r, i]
    for name, value in (
        ("active", True),
        ("owner", i),
        ("bullet_id", next_id[r]),
        ("power", p),
        ("speed", 20.0 - 3.0 * p),
        ("start_x", x),
        ("start_y", y),
        ("direction", direction),
        ("ux", np.cos(rad)),
        ("uy", np.sin(rad)),
        ("tick", 0.0),
        ("x", x),
        ("y", y),
    ):
        getattr(bullets, name)[slot, r] = value
    next_id[r] += 1
    events.fired_slot[r, i] = slot
    return max(w, int(slot.max()) + 1)


def advance(bullets: Bullets, running: Bool, w: int) -> None:
    """§6: every bullet in flight moves one tick; caches x, y (tick) and next_x, next_y (tick+1)."""
    if w == 0:
        return
    live = bullets.active[:w] & running
    tick = bullets.tick[:w]
    tick += live
    sp = bullets.speed[:w]
    d = sp * tick
    ux, uy = bullets.ux[:w], bullets.uy[:w]
    x = np.add(bullets.start_x[:w], d * ux, out=bullets.x[:w])
    y = np.add(bullets.start_y[:w], d * uy, out=bullets.y[:w])
    np.add(x, sp * ux, out=bullets.next_x[:w])
    np.add(y, sp * uy, out=bullets.next_y[:w])


def hit_walls(bullets: Bullets, width: F64, height: F64, w: int) -> tuple[I64, I64]:
    """§7.1: bullets at or past a wall are removed. Returns their (arena, slot), id order.

    `width`/`height` are [B] arrays.
    """
    if w == 0:
        return _NONE, _NONE
    x, y = bullets.x[:w], bullets.y[:w]
    out = (x <= 0.0) | (y <= 0.0) | (x >= width) | (y >= height)
    out &= bullets.active[:w]
    if not out.any():
        return _NONE, _NONE
    s, a = np.nonzero(out)
    bullets.active[s, a] = False
    return _id_order(bullets, a, s)


def _id_order(bullets: Bullets, a: I64, s: I64) -> tuple[I64, I64]:
    order = np.lexsort((bullets.bullet_id[s, a], a))
    return a[order].astype(np.int64), s[order].astype(np.int64)


def _orient(ax: F64, ay: F64, bx: F64, by: F64, cx: F64, cy: F64) -> F64:
    return np.asarray((bx - ax) * (cy - ay) - (by - ay) * (cx - ax))


def segments_intersect(
    p1x: F64, p1y: F64, q1x: F64, q1y: F64, p2x: F64, p2y: F64, q2x: F64, q2y: F64
) -> Bool:
    """Segment intersection including touching and collinear overlap."""
    o1 = _orient(p1x, p1y, q1x, q1y, p2x, p2y)
    o2 = _orient(p1x, p1y, q1x, q1y, q2x, q2y)
    o3 = _orient(p2x, p2y, q2x, q2y, p1x, p1y)
    o4 = _orient(p2x, p2y, q2x, q2y, q1x, q1y)
    collinear = (o1 == 0.0) & (o2 == 0.0) & (o3 == 0.0) & (o4 == 0.0)
    overlap = (
        (np.maximum(p1x, q1x) >= np.minimum(p2x, q2x))
        & (np.maximum(p2x, q2x) >= np.minimum(p1x, q1x))
        & (np.maximum(p1y, q1y) >= np.minimum(p2y, q2y))
        & (np.maximum(p2y, q2y) >= np.minimum(p1y, q1y))
    )
    crossing = (o1 * o2 <= 0.0) & (o3 * o4 <= 0.0)
    return np.asarray(np.where(collinear, overlap, crossing))


def _flying(bullets: Bullets, w: int) -> tuple[I64, I64]:
    """(arena, slot) of every bullet in flight, grouped by arena (slot order within)."""
    a, s = np.nonzero(bullets.active[:w].T)
    return a.astype(np.int64), s.astype(np.int64)


def bullet_bullet(bullets: Bullets, w: int) -> tuple[I64, I64, I64]:
    """§7.3 detection: pairs whose segments (tick -> tick + 1) cross and whose next positions are
    within 2 x 19.7. Returns (arena, slot_a, slot_b) in id order.
    """
    a, s = _flying(bullets, w)
    if a.size < 2:
        return _NONE, _NONE, _NONE
    nx, ny = bullets.next_x[s, a], bullets.next_y[s, a]
    limit = (2.0 * MAX_BULLET_SPEED) ** 2
    found: list[tuple[I64, I64]] = []
    for m in range(1, a.size):
        same = a[m:] == a[:-m]
        if not same.any():
            break
        dx, dy = nx[m:] - nx[:-m], ny[m:] - ny[:-m]
        near = same & (dx * dx + dy * dy <= limit)
        if near.any():
            i = np.nonzero(near)[0]
            found.append((i, i + m))
    if not found:
        return _NONE, _NONE, _NONE
    i, k = (np.concatenate(parts) for parts in zip(*found, strict=True))
    arena, sj, sk = a[i], s[i], s[k]
    x, y, xn, yn = bullets.x, bullets.y, bullets.next_x, bullets.next_y
    ok = segments_intersect(
        x[sj, arena],
        y[sj, arena],
        xn[sj, arena],
        yn[sj, arena],
        x[sk, arena],
        y[sk, arena],
        xn[sk, arena],
        yn[sk, arena],
    )
    return _id_pairs(bullets, arena[ok], sj[ok], sk[ok])


def _id_pairs(bullets: Bullets, a: I64, j: I64, k: I64) -> tuple[I64, I64, I64]:
    """Order pairs by (arena, lower id, higher id). Every colliding pair counts: a bullet that
    meets two others in one turn collides with both (detection runs before any removal)."""
    if a.size == 0:
        return _NONE, _NONE, _NONE
    ids = bullets.bullet_id
    first, second = np.minimum(ids[j, a], ids[k, a]), np.maximum(ids[j, a], ids[k, a])
    order = np.lexsort((second, first, a))
    return a[order], j[order], k[order]


def bullet_bot(bullets: Bullets, bots: Bots, w: int) -> tuple[I64, I64, I64]:
    """§7.2 detection: (arena, slot, victim) of bullet segments (tick -> tick + 1) touching a
    bot's circle (inclusive), own bullets excluded; ordered by arena, bullet id, victim."""
    if w == 0:
        return _NONE, _NONE, _NONE
    hits: list[tuple[I64, I64, I64]] = []
    x0, y0 = bullets.x[:w], bullets.y[:w]
    act = bullets.active[:w]
    reach = BOT_RADIUS + MAX_BULLET_SPEED
    for j in range(bots.x.shape[1]):
        cx, cy = bots.x[:, j] - x0, bots.y[:, j] - y0
        cand = (np.abs(cx) <= reach) & (np.abs(cy) <= reach) & act
        cand &= (bullets.owner[:w] != j) & bots.in_map[:, j]
        if not cand.any():
            continue
        s, a = np.nonzero(cand)
        px, py = cx[s, a], cy[s, a]
        vx, vy = bullets.ux[s, a], bullets.uy[s, a]
        along = np.clip(px * vx + py * vy, 0.0, bullets.speed[s, a])
        qx, qy = px - along * vx, py - along * vy
        touch = qx * qx + qy * qy <= BOT_RADIUS * BOT_RADIUS
        hits.append((a[touch], s[touch], np.full(int(touch.sum()), j)))
    if not hits:
        return _NONE, _NONE, _NONE
    a, s, v = (np.concatenate(p).astype(np.int64) for p in zip(*hits, strict=True))
    order = np.lexsort((v, bullets.bullet_id[s, a], a))
    return a[order], s[order], v[order]


def apply_bullet_hits(
    a: I64, s: I64, v: I64, bullets: Bullets, bots: Bots, scores: Scores
) -> tuple[F64, F64]:
    """Apply hits in order: damage, 3p back to a shooter still in the map, kill credit.

    Returns (damage, victim energy after) per hit. Within an arena hits apply one after another
    (the k-th hits of all arenas together), because the same bots' energies interact.
    """
    dmg_out = np.zeros(a.size)
    energy_out = np.zeros(a.size)
    if a.size == 0:
        return dmg_out, energy_out
    _, first, inverse = np.unique(a, return_index=True, return_inverse=True)
    rank = np.arange(a.size) - first[inverse]
    for r in range(int(rank.max()) + 1):
        h = np.nonzero(rank == r)[0]
        arena, slot, victim = a[h], s[h], v[h]
        owner = bullets.owner[slot, arena].astype(np.int64)
        power = bullets.power[slot, arena]
        dmg = damage(power)
        before = bots.energy[arena, victim].copy()
        bots.energy[arena, victim] = before - dmg
        back = bots.in_map[arena, owner]
        bots.energy[arena[back], owner[back]] += BULLET_HIT_ENERGY_GAIN_FACTOR * power[back]
        scored = np.maximum(np.minimum(dmg, before), 0.0)
        scores.bullet_damage[arena, owner] += scored
        scores.bullet_damage_to[arena, owner, victim] += scored
        killed = (before >= 0.0) & (bots.energy[arena, victim] < 0.0)
        scores.killed_by_bullet_of[arena[killed], victim[killed]] = owner[killed]
        dmg_out[h] = dmg
        energy_out[h] = bots.energy[arena, victim]
    bullets.active[s, a] = False
    return dmg_out, energy_out


def resolve(
    bullets: Bullets,
    bots: Bots,
    scores: Scores,
    width: F64,
    height: F64,
    running: Bool,
    w: int,
) -> tuple[BulletEvents, Bool]:
    """Advance, walls, then bullet-bullet and bullet-bot detection (both on the bullets left after
    the walls), then apply: returns the events and [B] whether any bullet hit a bot."""
    advance(bullets, running, w)
    wa, ws = hit_walls(bullets, width, height, w)
    pa, pj, pk = bullet_bullet(bullets, w)
    ha, hs, hv = bullet_bot(bullets, bots, w)
    bullets.active[pj, pa] = False
    bullets.active[pk, pa] = False
    dmg, energy = apply_bullet_hits(ha, hs, hv, bullets, bots, scores)
    any_hit = np.zeros(bots.x.shape[0], dtype=np.bool_)
    any_hit[ha] = True
    return BulletEvents(wa, ws, pa, pj, pk, ha, hs, hv, dmg, energy), any_hit
