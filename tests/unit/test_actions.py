"""actor.actions.ActionDecoder: v2 goto/aim points sigmoid-bounded to each bot's arena, fire
decision (>= 0, gun heat exactly 0, energy > power) and power range, v1 motor scaling with the
speed-dependent turn limit, non-finite outputs (counted, safe action), and that the decoder
refuses a contract whose action table it does not know."""

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest

from tankrl.actor.actions import ActionDecoder
from tankrl.shared.botview import BotView
from tankrl.shared.contracts import V1, V2, ActionDim, ContractError

ViewFactory = Callable[..., BotView]


def f32(rows: list[list[float]]) -> np.ndarray:
    return np.array(rows, dtype=np.float32)


def test_goto_and_aim_points_are_bounded_by_each_arena(make_view: ViewFactory) -> None:
    n = 2000
    rng = np.random.default_rng(0)
    raw = (rng.standard_normal((n, 6)) * rng.choice([0.1, 3.0, 100.0], (n, 1))).astype(np.float32)
    width, height = rng.choice([800.0, 1000.0], n), rng.choice([600.0, 1000.0], n)
    decoder = ActionDecoder(V2, n)
    decoder.decode(raw, make_view(n, arena_width=width, arena_height=height))
    t = decoder.targets
    for xs in (t.goto_x, t.aim_x):
        assert np.all(xs >= 0.0) and np.all(xs <= width)
    for ys in (t.goto_y, t.aim_y):
        assert np.all(ys >= 0.0) and np.all(ys <= height)
    assert t.active.all()
    decoder.decode(
        np.zeros((n, 6), np.float32), make_view(n, arena_width=width, arena_height=height)
    )
    np.testing.assert_allclose(t.goto_x, width / 2)
    np.testing.assert_allclose(t.aim_y, height / 2)
    decoder.decode(
        f32([[50, -50, 50, -50, 0, 0]] * n), make_view(n, arena_width=width, arena_height=height)
    )
    np.testing.assert_array_equal(t.goto_x, width)
    np.testing.assert_array_equal(t.goto_y, 0.0)


def test_fire_needs_decision_cold_gun_and_energy(make_view: ViewFactory) -> None:
    decoder = ActionDecoder(V2, 5)
    raw = f32([[0, 0, 0, 0, 0.5, 0.0]] * 4 + [[0, 0, 0, 0, -0.01, 0.0]])
    view = make_view(
        5, gun_heat=[0.0, 0.1, 1e-12, 0.0, 0.0], energy=[100.0, 100.0, 100.0, 1.55, 100.0]
    )
    power = decoder.decode(raw, view).firepower
    np.testing.assert_allclose(power, [1.55, 0.0, 0.0, 0.0, 0.0])  # sigmoid(0) * 2.9 + 0.1
    view.energy[3] = 1.56
    assert decoder.decode(raw, view).firepower[3] == pytest.approx(1.55)


def test_fire_power_range(make_view: ViewFactory) -> None:
    decoder = ActionDecoder(V1, 3)
    raw = f32([[0, 0, 0, 1, -40], [0, 0, 0, 1, 40], [0, 0, 0, 0, 1]])
    power = decoder.decode(raw, make_view(3)).firepower
    assert power[0] == pytest.approx(0.1) and power[1] == 3.0
    assert 0.1 < power[2] < 3.0


def test_v1_motor_dims_and_speed_dependent_turn_limit(make_view: ViewFactory) -> None:
    decoder = ActionDecoder(V1, 4)
    raw = f32([[30, 30, 30, -1, 0], [-30, -30, -30, -1, 0], [30, 30, 0, -1, 0], [0.5, 0, 0, -1, 0]])
    motor = decoder.decode(raw, make_view(4, speed=[0.0, 0.0, 8.0, -4.0]))
    np.testing.assert_allclose(motor.target_speed, [8.0, -8.0, 8.0, 8.0 * np.tanh(0.5)], rtol=1e-6)
    np.testing.assert_allclose(motor.turn_rate, [10.0, -10.0, 4.0, 0.0])
    np.testing.assert_allclose(motor.gun_turn_rate, [20.0, -20.0, 0.0, 0.0])
    assert np.all(motor.firepower == 0.0)


def test_non_finite_outputs_are_counted_and_get_the_safe_action(make_view: ViewFactory) -> None:
    decoder = ActionDecoder(V2, 4)
    raw = f32([[0.1, 0.2, 0.3, 0.4, 1.0, 0.0]] * 4)
    raw[1, 0], raw[2, 5], raw[3, 4] = np.nan, np.inf, -np.inf
    view = make_view(4, speed=[8.0, 8.0, -5.0, 1.0], direction=30.0, gun_direction=[0, 0, 90, 45])
    motor = decoder.decode(raw, view)
    assert decoder.nonfinite_total == 3
    np.testing.assert_array_equal(decoder.nonfinite_per_bot, [0, 1, 1, 1])
    np.testing.assert_array_equal(motor.target_speed[1:], [6.0, -3.0, 0.0])  # brake toward 0
    np.testing.assert_array_equal(motor.turn_rate[1:], 0.0)
    np.testing.assert_array_equal(motor.gun_turn_rate[1:], 0.0)
    np.testing.assert_array_equal(motor.firepower[1:], 0.0)
    t = decoder.targets
    np.testing.assert_array_equal(t.goto_x[1:], 400.0)
    np.testing.assert_allclose(t.aim_y[1:] - 300.0, [0.0, 100.0, 100 * np.sqrt(0.5)], atol=1e-9)
    # the finite bot is decoded as if alone
    alone = ActionDecoder(V2, 1).decode(raw[:1], make_view(1, speed=8.0, direction=30.0))
    assert (
        motor.target_speed[0] == alone.target_speed[0] and motor.turn_rate[0] == alone.turn_rate[0]
    )
    assert motor.firepower[0] == alone.firepower[0] > 0.0
    decoder.decode(raw, view)
    assert decoder.nonfinite_total == 6


def test_v1_safe_action(make_view: ViewFactory) -> None:
    decoder = ActionDecoder(V1, 1)
    motor = decoder.decode(f32([[np.nan, 1, 1, 1, 1]]), make_view(speed=-8.0))
    assert (motor.target_speed[0], motor.turn_rate[0], motor.gun_turn_rate[0]) == (-6.0, 0.0, 0.0)
    assert motor.firepower[0] == 0.0 and decoder.nonfinite_total == 1


def test_unknown_action_table_fails_at_construction() -> None:
    renamed = dataclasses.replace(
        V2, actions=(ActionDim("goto_z", "sigmoid", "arena_width"), *V2.actions[1:])
    )
    with pytest.raises(ContractError, match="goto_z"):
        ActionDecoder(renamed, 1)
    bad_scale = dataclasses.replace(
        V2, actions=(ActionDim("goto_x", "sigmoid", "arena_depth"), *V2.actions[1:])
    )
    with pytest.raises(ContractError, match="arena_depth"):
        ActionDecoder(bad_scale, 1)
    with pytest.raises(ContractError, match="decoder"):
        ActionDecoder(dataclasses.replace(V2, decoder="joystick: ..."), 1)


def test_dim_order_comes_from_the_contract(make_view: ViewFactory) -> None:
    order = [5, 2, 0, 4, 1, 3]
    shuffled = dataclasses.replace(V2, actions=tuple(V2.actions[i] for i in order))
    raw = np.random.default_rng(2).standard_normal((4, 6)).astype(np.float32)
    view = make_view(4, gun_heat=0.0, speed=[0.0, 3.0, -5.0, 8.0])
    want = ActionDecoder(V2, 4).decode(raw, view)
    got = ActionDecoder(shuffled, 4).decode(raw[:, order], view)
    for name in ("target_speed", "turn_rate", "gun_turn_rate", "firepower"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
