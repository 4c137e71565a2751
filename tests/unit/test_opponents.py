"""Scripted opponents (arena.opponents) in the native engine: each one's observable signature of
its docs/rules.md §14.1 description, with seat 0 = the opponent and seat 1 = a deterministic dummy
(parked at the arena centre) in B = 8 arenas. The registry is checked in test_opponent_list.py,
determinism and seeding in test_opponents_determinism.py, which reuses `run_battle` from here.
"""

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from tankrl.actor.gototest import GotoTest
from tankrl.arena.opponents import OPPONENTS
from tankrl.arena.opponents.base import fire_if_ready
from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.rules.views import fill_view
from tankrl.shared.angles import bearing_to, calc_delta_angle
from tankrl.shared.botview import BotView
from tankrl.shared.intent import Intent

B = 8
SEEDS = np.arange(B, dtype=np.uint64) * 7919 + 11
CENTRE = (400.0, 300.0)


class SitStill:
    """Dummy: never moves, turns or fires."""

    def __init__(self, n: int) -> None:
        self.n = n

    def reset_round(self, mask: npt.NDArray[np.bool_]) -> None:
        pass

    def decide(self, view: BotView) -> Intent:
        return Intent.zeros(self.n)


class Shooter(SitStill):
    """Dummy: stands still, spins gun and radar 20 deg/turn, fires power 3 right after a scan
    (fire assist aims the shot at the scanned bot)."""

    def decide(self, view: BotView) -> Intent:
        intent = Intent.zeros(self.n)
        intent.gun_turn_rate[:] = 20.0
        intent.firepower[:] = fire_if_ready(view, 3.0, view.scanned)
        return intent


@dataclass
class Battle:
    """Per-tick records [T, B] of both seats' views and the opponent's intents."""

    me: dict[str, npt.NDArray[Any]]
    dummy: dict[str, npt.NDArray[Any]]
    intents: dict[str, npt.NDArray[Any]]


def run_battle(
    opponent: Callable[[int, npt.ArrayLike], Any],
    turns: int,
    dummy: type[SitStill] = SitStill,
    seeds: npt.ArrayLike = SEEDS,
    park_dummy: bool = True,
    engine_seeds: npt.ArrayLike | None = None,
) -> Battle:
    """Play `turns` turns in B arenas; seat 1 is the dummy, parked at the centre facing east
    unless `park_dummy` is False. The engine's seeds default to the opponent's `seeds`."""
    seeds = np.asarray(seeds, dtype=np.uint64)
    spawn = seeds if engine_seeds is None else np.asarray(engine_seeds, dtype=np.uint64)
    engine = Engine(GameSetup(number_of_rounds=100), B, 2, seeds=spawn)
    if park_dummy:
        pos = [np.full((B, 2), np.nan) for _ in range(3)]
        pos[0][:, 1], pos[1][:, 1], pos[2][:, 1] = CENTRE[0], CENTRE[1], 0.0
        engine.initial_positions = (pos[0], pos[1], pos[2])
    players = [opponent(B, seeds), dummy(B)]
    views = [BotView.zeros(B), BotView.zeros(B)]
    rec: list[list[Any]] = [[], [], []]
    for _ in range(turns):
        engine.step()
        for seat, (player, view) in enumerate(zip(players, views, strict=True)):
            fill_view(engine, seat, view)
            player.reset_round(view.turn_number == 1)
            intent = player.decide(view)
            engine.set_intent(seat, intent)
            rec[seat].append(view.copy())
            if seat == 0:
                rec[2].append(intent.copy())
    return Battle(*(_stack(r) for r in rec))


def _stack(items: list[Any]) -> dict[str, npt.NDArray[Any]]:
    return {f.name: np.stack([getattr(i, f.name) for i in items]) for f in fields(items[0])}


def test_target_sits_still_until_below_80_then_turns_right_65_and_drives_100() -> None:
    b = run_battle(OPPONENTS["Target"], 400, dummy=Shooter)
    me, rounds = b.me, b.me["round_number"] == 1
    served = 0
    for a in range(B):
        low = np.nonzero(rounds[:, a] & (me["energy"][:, a] < 80.0))[0]
        assert low.size, f"arena {a}: the shooter never brought Target below 80"
        t = int(low[0])
        for name in ("x", "y", "direction"):
            assert np.all(me[name][:t, a] == me[name][0, a]), f"arena {a}: moved above 80"
        assert np.all(b.intents["firepower"][:, a] == 0.0)
        after = slice(t, t + 27)
        if me["hit_wall"][after, a].any() or me["hit_bot"][after, a].any():
            continue  # the escape was cut short by a wall or the dummy
        # the turn (6 x 10 + 5) ends at tick t + 7, then 19 speeds 1..8..1, 0 up to t + 26
        turned = calc_delta_angle(me["direction"][t + 7, a], me["direction"][t, a])
        assert turned == pytest.approx(-65.0, abs=1e-9)
        assert np.all(me["speed"][t : t + 8, a] == 0.0) and me["speed"][t + 26, a] == 0.0
        moved = np.hypot(me["x"][t + 26, a] - me["x"][t, a], me["y"][t + 26, a] - me["y"][t, a])
        assert moved == pytest.approx(100.0, abs=1e-9)
        served += 1
    assert served >= B // 2


def test_spinbot_turns_right_at_speed_up_to_5_and_fires_power_3_after_scans() -> None:
    b = run_battle(OPPONENTS["SpinBot"], 300)
    me, it = b.me, b.intents
    assert np.all(it["turn_rate"] == -10.0)
    assert np.all(np.abs(me["speed"]) <= 5.0) and np.any(me["speed"] == 5.0)
    free = ~me["hit_wall"] & ~me["hit_bot"]
    assert np.all(me["turn_rate"][10:][free[10:]] < 0.0)
    fired = me["bullet_fired"][1:]
    assert fired.sum(axis=0).min() >= 1
    cause = me["scanned"][:-1] | me["hit_bot"][:-1]
    assert np.all(cause[fired])
    assert np.all(me["fired_power"][1:][fired] == 3.0)


def _wall_distance(me: dict[str, npt.NDArray[Any]]) -> npt.NDArray[np.float64]:
    x, y = me["x"], me["y"]
    return np.asarray(np.minimum.reduce([x - 18.0, 782.0 - x, y - 18.0, 582.0 - y]))


def test_walls_reaches_a_wall_then_drives_along_the_walls() -> None:
    b = run_battle(OPPONENTS["Walls"], 500)
    me = b.me
    assert np.all(me["round_number"] == 1)
    near = _wall_distance(me) < 1e-6
    at_side = {"W": me["x"] < 19, "E": me["x"] > 781, "S": me["y"] < 19, "N": me["y"] > 581}
    for a in range(B):
        first = int(np.argmax(me["hit_wall"][:, a]))
        assert me["hit_wall"][first, a], f"arena {a}: Walls never reached a wall"
        assert np.all(near[first:, a]), f"arena {a}: left the wall band"
        sides = {side for side, at in at_side.items() if at[first:, a].any()}
        assert len(sides) >= 3, f"arena {a}: only drove along {sides}"
    fired = b.me["bullet_fired"]
    assert fired.any() and np.all(b.me["fired_power"][fired] == 2.0)


CORNERS = {0: (782.0, 582.0), 1: (18.0, 582.0), 2: (18.0, 18.0), 3: (782.0, 18.0)}


def test_corners_reaches_its_corner_and_stays_there_sweeping_the_gun() -> None:
    opponent = OPPONENTS["Corners"](B, SEEDS)
    b = run_battle(OPPONENTS["Corners"], 300)
    me = b.me
    assert np.all(me["round_number"] == 1)
    reached = 0
    for a in range(B):
        if me["hit_bot"][:, a].any():
            continue  # a ram ends a blocking forward() early, as in the official API
        cx, cy = CORNERS[int(opponent.corner[a])]  # type: ignore[attr-defined]
        there = (np.abs(me["x"][:, a] - cx) < 1e-6) & (np.abs(me["y"][:, a] - cy) < 1e-6)
        assert there.any(), f"arena {a}: never reached corner {(cx, cy)}"
        first = int(np.argmax(there))
        assert np.all(there[first:]), f"arena {a}: left its corner"
        assert np.all(np.abs(b.intents["gun_turn_rate"][first + 10 :, a]) > 0.0)
        reached += 1
    assert reached >= B // 2
    assert len({int(c) for c in opponent.corner}) > 1  # type: ignore[attr-defined]
    assert b.me["bullet_fired"].any()


def test_crazy_keeps_moving_and_changes_direction() -> None:
    b = run_battle(OPPONENTS["Crazy"], 400)
    me = b.me
    assert np.mean(me["speed"][20:] != 0.0) > 0.9
    turned = np.abs(calc_delta_angle(me["direction"][1:], me["direction"][:-1]))
    assert np.all(np.mean(turned > 0.0, axis=0) > 0.5)
    left, right = b.intents["turn_rate"] > 0.0, b.intents["turn_rate"] < 0.0
    assert np.all(left.any(axis=0) & right.any(axis=0))
    assert np.any(b.intents["target_speed"] < 0.0)  # reversed at a wall or after a ram
    assert np.all(b.intents["firepower"][b.intents["firepower"] > 0.0] == 1.0)


def test_fire_sits_still_turning_its_gun_5_per_turn_and_fires() -> None:
    b = run_battle(OPPONENTS["Fire"], 300)
    me, it = b.me, b.intents
    assert np.all(me["speed"] == 0.0) and np.all(me["x"] == me["x"][0])
    searching = ~me["scanned"]
    assert np.all(it["gun_turn_rate"][searching] == -5.0)
    assert np.all(it["gun_turn_rate"][me["scanned"]] == 0.0)
    assert np.all(it["rescan"] == me["scanned"])
    assert np.all(me["bullet_fired"].any(axis=0))
    assert np.all(np.isin(me["fired_power"][me["bullet_fired"]], [1.0, 3.0]))


def test_fire_dodges_at_right_angles_when_hit_but_stays_almost_still() -> None:
    b = run_battle(OPPONENTS["Fire"], 400, dummy=Shooter)
    me = b.me
    hit = me["hit_by_bullet"] & (me["round_number"] == 1)
    assert hit.any()
    away = np.hypot(me["x"] - me["x"][0], me["y"] - me["y"][0])
    assert np.all(away[me["round_number"] == 1] <= 2 * 50.0)  # dodges alternate forward / back
    t, a = (int(i[0]) for i in np.nonzero(hit))
    bullet = me["hit_by_bullet_direction"][t, a]
    later = me["direction"][t + 10, a]
    assert abs(abs(calc_delta_angle(later, bullet)) - 90.0) < 1e-6


def test_ramfire_drives_into_the_dummy_and_fires_on_contact() -> None:
    b = run_battle(OPPONENTS["RamFire"], 300)
    me = b.me
    rams = me["hit_bot_rammed"]
    assert np.all(rams.any(axis=0)), "RamFire never rammed in some arena"
    fired = me["bullet_fired"][1:]
    assert np.all(fired.any(axis=0))
    assert np.all(me["hit_bot"][:-1][fired])


def test_trackfire_sits_still_aims_its_gun_at_the_dummy_and_fires() -> None:
    b = run_battle(OPPONENTS["TrackFire"], 150)
    me = b.me
    assert np.all(me["round_number"] == 1) and not me["won_round"].any()
    assert np.all(me["speed"] == 0.0) and np.all(me["direction"] == me["direction"][0])
    cx, cy = np.full_like(me["x"], CENTRE[0]), np.full_like(me["y"], CENTRE[1])
    error = bearing_to(me["x"], me["y"], me["gun_direction"], cx, cy)
    assert np.all((np.abs(error) <= 3.0).any(axis=0))
    assert np.all(me["bullet_fired"].any(axis=0)) and np.all(me["bullet_hit"].any(axis=0))
    last = np.abs(error[-60:]) <= 3.0
    assert last.mean() > 0.9, "the gun does not stay on the target"


def test_velocibot_alternates_plus_4_minus_6_and_shows_the_zero_crossing_brake() -> None:
    b = run_battle(OPPONENTS["VelociBot"], 130)
    me, it = b.me, b.intents
    assert np.all(it["gun_turn_rate"] == 15.0)
    clean = ~me["hit_wall"][:70].any(axis=0) & ~me["hit_by_bullet"][:70].any(axis=0)
    assert clean.sum() >= 2
    ts = it["target_speed"][:, clean]
    assert np.all(ts[0:32] == 4.0) and np.all(ts[32:64] == -6.0) and np.all(ts[64:70] == 4.0)
    # the intent answering tick 33 asks for -6 at speed 4: 4 -> 1 -> -0.5 -> -1.5
    # (docs/rules.md §4.1)
    assert np.all(me["speed"][32:36, clean].T == [4.0, 1.0, -0.5, -1.5])


def test_myfirstbot_moves_100_forward_and_back_spinning_the_gun_and_fires_power_1() -> None:
    b = run_battle(OPPONENTS["MyFirstBot"], 200)
    me, it = b.me, b.intents
    clean = ~me["hit_wall"][:80].any(axis=0) & ~me["hit_by_bullet"][:80].any(axis=0)
    assert clean.sum() >= 2
    for a in np.nonzero(clean)[0]:
        x, y, d0 = me["x"][:, a], me["y"][:, a], np.radians(me["direction"][0, a])
        along = (x - x[0]) * np.cos(d0) + (y - y[0]) * np.sin(d0)
        assert along.max() == pytest.approx(100.0, abs=1e-9)
        stop = int(np.argmax(along >= 100.0 - 1e-9))
        spin = it["gun_turn_rate"][stop + 1 : stop + 19, a]
        assert np.all(spin == -20.0) and np.all(me["speed"][stop + 1 : stop + 19, a] == 0.0)
        back = int(np.argmax(along[stop:] <= 1e-9)) + stop
        assert along[back] == pytest.approx(0.0, abs=1e-9)
    fired = me["bullet_fired"]
    assert fired.any() and np.all(me["fired_power"][fired] == 1.0)
    assert np.all(me["scanned"][:-1][fired[1:]])


def test_gototest_drives_to_random_points_aims_at_the_scan_and_fires() -> None:
    b = run_battle(GotoTest, 500)
    me, it = b.me, b.intents
    assert np.all(it["adjust_gun_for_body_turn"] & it["adjust_radar_for_gun_turn"])
    assert np.all(it["adjust_radar_for_body_turn"] & ~it["fire_assist"])
    assert np.all(it["radar_turn_rate"] == 45.0)
    travelled = np.abs(me["speed"]).sum(axis=0)
    assert np.all(travelled > 800.0), "GotoTest does not keep driving to new points"
    fired = me["bullet_fired"]
    assert np.all(fired.any(axis=0))
    power = me["fired_power"][fired]
    assert np.all((power >= 1.0) & (power < 2.0)) and np.unique(power).size > 3
    assert np.all(me["bullet_hit"].any(axis=0)), "its shots never hit the parked dummy"
