"""What each seat sees after a turn: the engine's state and events turned into a BotView [B]
(own state, nearest scan, own events), exactly the information a TickEventForBot carries.
"""

import numpy as np

from tankrl.arena.rules.engine import Engine
from tankrl.shared.botview import OWN_STATE, BotView

_SCAN = ("x", "y", "direction", "speed", "energy")
_BULLET_EVENT_FIELDS = (
    "hit_by_bullet",
    "hit_by_bullet_damage",
    "hit_by_bullet_power",
    "hit_by_bullet_direction",
    "bullet_hit",
    "bullet_hit_damage",
    "bullet_hit_power",
    "bullet_hit_bullet",
    "bullet_hit_wall",
)


def fill_view(engine: Engine, seat: int, view: BotView) -> BotView:
    """Write seat `seat`'s view of every arena into `view` (in place) and return it."""
    bots, ev = engine.bots, engine.events
    n = engine.n_bots
    rows = np.arange(engine.n_arenas)
    view.round_number[:] = engine.round_number
    view.turn_number[:] = engine.turn_number
    view.arena_width[:] = engine.width
    view.arena_height[:] = engine.height
    for name in OWN_STATE:
        getattr(view, name)[:] = getattr(bots, name)[:, seat]
    others = [j for j in range(n) if j != seat]
    view.enemy_count[:] = (bots.in_map[:, others] | ev.died[:, others]).sum(axis=1)

    scans = ev.scans[:, seat, :]
    if n == 2:
        target = np.full(engine.n_arenas, 1 - seat)
        view.scanned[:] = scans[:, 1 - seat]
    else:
        view.scanned[:] = scans.any(axis=1)
        dist = np.hypot(bots.x - bots.x[:, seat, None], bots.y - bots.y[:, seat, None])
        target = np.argmin(np.where(scans, dist, np.inf), axis=1)
    seen = view.scanned
    view.scan_bot_id[:] = (target + 1) * seen
    for name in _SCAN:  # zero where nothing was scanned: a tick carries nothing there
        getattr(view, f"scan_{name}")[:] = getattr(ev, f"scan_{name}")[rows, target] * seen

    view.bullet_fired[:] = ev.fired[:, seat]
    slot = np.maximum(ev.fired_slot[:, seat], 0)
    view.fired_power[:] = engine.bullets.power[slot, rows] * ev.fired[:, seat]
    _bullet_events(engine, seat, view)

    view.hit_wall[:] = ev.bot_wall[:, seat]
    bumped = ev.bot_bot[:, seat, :]
    view.hit_bot[:] = bumped.any(axis=1)
    view.hit_bot_rammed[:] = ev.rammed[:, seat, :].any(axis=1)
    other = np.argmax(bumped, axis=1)
    for name in ("x", "y", "energy"):
        getattr(view, f"hit_bot_{name}")[:] = (
            getattr(ev, f"hitbot_{name}")[rows, other] * view.hit_bot
        )
    view.enemy_died[:] = ev.died[:, others].any(axis=1)
    view.won_round[:] = ev.won_round[:, seat]
    view.skipped_turn[:] = False
    return view


def _bullet_events(engine: Engine, seat: int, view: BotView) -> None:
    """Scatter this turn's sparse bullet events into the seat's view (zero where none)."""
    for name in _BULLET_EVENT_FIELDS:
        getattr(view, name)[:] = 0
    be, bl = engine.events.bullets, engine.bullets
    if be.hit_arena.size:
        a, s, v = be.hit_arena, be.hit_slot, be.hit_victim
        power, direction = bl.power[s, a], bl.direction[s, a]
        mine_hit = v == seat
        ai = a[mine_hit]
        view.hit_by_bullet[ai] = True
        np.add.at(view.hit_by_bullet_damage, ai, be.hit_damage[mine_hit])
        np.add.at(view.hit_by_bullet_power, ai, power[mine_hit])
        view.hit_by_bullet_direction[ai] = direction[mine_hit]  # the last hit wins
        by_me = bl.owner[s, a] == seat
        am = a[by_me]
        view.bullet_hit[am] = True
        np.add.at(view.bullet_hit_damage, am, be.hit_damage[by_me])
        np.add.at(view.bullet_hit_power, am, power[by_me])
    if be.pair_arena.size:
        for slots in (be.pair_a, be.pair_b):
            mine = bl.owner[slots, be.pair_arena] == seat
            view.bullet_hit_bullet[be.pair_arena[mine]] = True
    if be.wall_arena.size:
        mine = bl.owner[be.wall_slot, be.wall_arena] == seat
        view.bullet_hit_wall[be.wall_arena[mine]] = True
