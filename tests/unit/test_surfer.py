"""Surfer (arena.opponents.surfer): an enemy energy drop becomes a wave with the right speed,
source and fire turn; a bullet hit adds to the danger bin of the guess factor it flew at; a gun
wave reaching the enemy adds to the visit bin of its segment; what it learned survives
`reset_round` and is cleared by `reset_battle`, which NativeArenas calls at each battle's first
round; and it plays native battles with finite intents and legal firepower. Waves and hits are
built by hand so the expected numbers are known.
"""

import math
from typing import Any

import numpy as np
import pytest
from conftest import build_view

from tankrl.arena.opponents.surfer import HAVE_SCAN, SURF_MIN_POWER, Surfer, nearest_surfed_waves
from tankrl.arena.opponents.waves import (
    SURF_ALL,
    W_ACTIVE,
    W_BEARING,
    W_LATDIR,
    W_POWER,
    W_SEG,
    W_SPEED,
    W_T0,
    W_X,
    W_Y,
    gf_index,
    gun_segment,
    max_escape_angle,
    surf_prior,
)
from tankrl.arena.rules.native import NativeArenas
from tankrl.shared.botview import BotView
from tankrl.shared.game_constants import bullet_speed
from tankrl.shared.intent import Intent

SEED = np.array([7], dtype=np.uint64)


def scan_view(turn: int, enemy: tuple[float, float], energy: float, **fields: Any) -> BotView:
    """Our tick `turn` at (400, 300) driving north at 8, with a scan of the enemy."""
    base: dict[str, Any] = {
        "turn_number": turn,
        "direction": 90.0,
        "speed": 8.0,
        "gun_heat": 1.0,
        "scanned": True,
        "scan_x": enemy[0],
        "scan_y": enemy[1],
        "scan_energy": energy,
    }
    return build_view(**{**base, **fields})


def active_waves(bot: Surfer) -> Any:
    return bot.enemy_waves[0][bot.enemy_waves[0, :, W_ACTIVE] == 1.0]


@pytest.mark.parametrize("power", [0.1, 1.0, 1.7, 3.0])
def test_an_energy_drop_of_p_between_two_scans_is_a_wave_of_speed_bullet_speed_p(
    power: float,
) -> None:
    bot = Surfer(1, SEED)
    bot.decide(scan_view(40, (100.0, 100.0), 80.0))
    assert active_waves(bot).shape[0] == 0
    bot.decide(scan_view(41, (104.0, 100.0), 80.0 - power, x=400.0, y=308.0))
    waves = active_waves(bot)
    assert waves.shape[0] == 1
    w = waves[0]
    assert w[W_SPEED] == pytest.approx(bullet_speed(power))
    assert w[W_POWER] == pytest.approx(power)
    # fired in turn 41 from where the scan of tick 40 saw it: the wave's time zero is tick 40
    assert (w[W_X], w[W_Y], w[W_T0]) == (100.0, 100.0, 40.0)
    # aimed at us as we were at tick 40, moving north: counter-clockwise round the source
    assert w[W_BEARING] == pytest.approx(math.atan2(300.0 - 100.0, 400.0 - 100.0))
    assert w[W_LATDIR] == 1.0


def test_only_waves_of_bullets_of_power_1_5_or_more_are_surfed() -> None:
    """Every shot is logged as a wave (its hits still teach the danger bins), but the movement
    dodges only bullets of SURF_MIN_POWER or more: weaker ones leave the orbit as it is."""
    for power, surfed in ((1.0, False), (SURF_MIN_POWER - 0.01, False), (SURF_MIN_POWER, True)):
        bot = Surfer(1, SEED)
        bot.decide(scan_view(40, (100.0, 100.0), 80.0))
        bot.decide(scan_view(41, (104.0, 100.0), 80.0 - power))
        assert active_waves(bot).shape[0] == 1
        first, _ = nearest_surfed_waves(bot.enemy_waves[0], 400.0, 300.0, 41.0)
        assert (first >= 0) == surfed, power


def test_drops_our_own_events_explain_are_no_shots() -> None:
    bot = Surfer(1, SEED)
    bot.decide(scan_view(40, (100.0, 100.0), 80.0, bullet_hit=True, bullet_hit_damage=16.0))
    # our hit of turn 40 shows in this scan, and so does a ram in turn 41
    bot.decide(scan_view(41, (100.0, 100.0), 63.4, hit_bot=True))
    bot.decide(scan_view(42, (100.0, 100.0), 63.4))
    assert active_waves(bot).shape[0] == 0
    # its bullet hit us (it gains 3 x 2) in the turn it fired 1: +6 - 1 shows in the next scan
    bot.decide(scan_view(43, (100.0, 100.0), 63.4, hit_by_bullet=True, hit_by_bullet_power=2.0))
    bot.decide(scan_view(44, (100.0, 100.0), 68.4))
    assert active_waves(bot)[:, W_POWER] == pytest.approx([1.0])


def test_a_bullet_hit_adds_to_the_danger_bin_of_the_guess_factor_it_flew_at() -> None:
    bot = Surfer(1, SEED)
    power, gf, seg = 3.0, 0.6, 2
    speed = bullet_speed(power)
    wave = bot.enemy_waves[0, 0]
    wave[[W_ACTIVE, W_X, W_Y, W_T0, W_SPEED, W_BEARING, W_LATDIR, W_SEG, W_POWER]] = (
        1.0, 100.0, 300.0, 10.0, speed, 0.0, -1.0, seg, power,
    )  # fmt: skip
    # the bullet flew at GF 0.6 of a wave whose target was moving clockwise (lateral -1)
    angle = -gf * max_escape_angle(speed)
    d = speed * 20
    x, y = 100.0 + d * math.cos(angle), 300.0 + d * math.sin(angle)
    before = bot.danger[0].copy()
    hit = build_view(
        turn_number=30,
        x=x,
        y=y,
        hit_by_bullet=True,
        hit_by_bullet_power=power,
        hit_by_bullet_direction=math.degrees(angle) % 360.0,
    )
    bot.decide(hit)
    added = bot.danger[0] - before
    expected = gf_index(gf)
    assert expected == 24
    for row in (seg, SURF_ALL):
        assert int(np.argmax(added[row])) == expected
        assert added[row, expected] == pytest.approx(1.0)
    assert added[[r for r in range(added.shape[0]) if r not in (seg, SURF_ALL)]].sum() == 0.0
    assert active_waves(bot).shape[0] == 0  # the wave that hit is retired


def test_a_gun_wave_reaching_the_enemy_adds_to_its_segments_visit_bin() -> None:
    bot = Surfer(1, SEED)
    power, gf = 2.0, 0.4
    speed = bullet_speed(power)
    seg = gun_segment(350.0, 4.0, 1, 2)
    wave = bot.gun_waves[0, 5]  # slot 0 takes the wave of this very turn
    wave[[W_ACTIVE, W_X, W_Y, W_T0, W_SPEED, W_BEARING, W_LATDIR, W_SEG, W_POWER]] = (
        1.0, 400.0, 300.0, 50.0, speed, 0.0, 1.0, seg, power,
    )  # fmt: skip
    angle = gf * max_escape_angle(speed)
    d = speed * 25 - 1.0
    enemy = (400.0 + d * math.cos(angle), 300.0 + d * math.sin(angle))
    bot.decide(scan_view(75, enemy, 90.0, speed=0.0))
    expected = gf_index(gf)
    assert expected == 21
    for buffer, row in (
        (bot.gun_fine, seg),
        (bot.gun_mid, seg // 9),
        (bot.gun_coarse, seg // 9 % 5),
    ):
        assert int(np.argmax(buffer[0, row])) == expected
        assert buffer[0, row, expected] == pytest.approx(1.0)
        assert buffer[0].sum() == pytest.approx(buffer[0, row].sum())
    assert bot.gun_waves[0, 5, W_ACTIVE] == 0.0


def test_statistics_survive_reset_round_and_are_cleared_by_reset_battle() -> None:
    bot = Surfer(2, np.array([1, 2], dtype=np.uint64))
    bot.danger[:, :, 3] += 5.0
    bot.gun_fine[:, 7, 3] = 2.0
    bot.gun_coarse[:, 1, 3] = 2.0
    bot.enemy_waves[:, 0, W_ACTIVE] = 1.0
    bot.state[:, HAVE_SCAN] = 1.0
    learned = bot.danger.copy(), bot.gun_fine.copy()
    bot.reset_round(np.array([True, True]))
    assert np.array_equal(bot.danger, learned[0]) and np.array_equal(bot.gun_fine, learned[1])
    assert not bot.enemy_waves[:, :, W_ACTIVE].any() and not bot.state[:, HAVE_SCAN].any()
    bot.reset_battle(np.array([False, True]))
    assert np.array_equal(bot.danger[0], learned[0][0]) and bot.gun_fine[0, 7, 3] == 2.0
    assert np.array_equal(bot.danger[1], surf_prior())
    assert not bot.gun_fine[1].any() and not bot.gun_coarse[1].any()


def test_native_arenas_start_a_battle_every_battle_rounds_rounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, int]] = []
    arenas: list[NativeArenas] = []

    def record(kind: str) -> Any:
        def hook(self: Surfer, mask: Any) -> None:
            for a in np.nonzero(mask)[0] if arenas else ():
                calls.append((kind, int(arenas[0].engine.round_number[a])))

        return hook

    monkeypatch.setattr(Surfer, "reset_battle", record("battle"))
    monkeypatch.setattr(Surfer, "reset_round", record("round"))
    native = NativeArenas(1, ["Surfer"], seed=3, max_turns_per_round=5, battle_rounds=3)
    arenas.append(native)
    calls.clear()  # the constructor's own resets
    native.reset()
    while native.engine.round_number[0] < 8:
        native.step([Intent.zeros(1)])
    battles = [r for kind, r in calls if kind == "battle"]
    rounds = [r for kind, r in calls if kind == "round"]
    assert battles == [1, 4, 7]
    assert rounds == list(range(1, 9))
    for r in battles:  # the battle hook comes first
        assert calls.index(("battle", r)) + 1 == calls.index(("round", r))


def test_surfer_plays_native_battles_with_finite_intents_and_legal_firepower() -> None:
    n = 4
    native = NativeArenas(n, ["SpinBot", "RamFire"], seed=11, max_turns_per_round=2000)
    bot = Surfer(n, native.seeds)
    native.reset()
    fired = scanned = 0
    for _ in range(700):
        view = native.views[0]
        if native.round_started.any():
            bot.reset_round(native.round_started)
        intent = bot.decide(view)
        for name in ("target_speed", "turn_rate", "gun_turn_rate", "radar_turn_rate"):
            assert np.all(np.isfinite(getattr(intent, name))), name
        p = intent.firepower
        assert np.all((p == 0.0) | ((p >= 0.1) & (p <= 3.0) & (p < view.energy)))
        assert np.all(np.abs(intent.radar_turn_rate) <= 45.0)
        assert intent.adjust_gun_for_body_turn.all() and not intent.fire_assist.any()
        native.step([intent])
        fired += int(native.views[0].bullet_fired.sum())
        scanned += int(native.views[0].scanned.sum())
    assert fired > 20
    assert scanned > 0.9 * 700 * n  # the radar keeps its lock
