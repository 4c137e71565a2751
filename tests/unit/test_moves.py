"""The blocking-move emulation (arena.opponents.moves) in the native engine: forward(100) from rest
gives the planner's speed profile and stops exactly 100 units on; turn_right(65) takes 7 turns at
rest (17 at speed 8) and ends on the target direction; turns wrap through 0/360; a wall hit or an
own ram cancels a forward; every step of a Script takes at least one turn.
"""

import numpy as np
import numpy.typing as npt

from tankrl.arena.opponents.moves import Moves, Script, Step
from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.rules.views import fill_view
from tankrl.shared.botview import BotView
from tankrl.shared.intent import Intent


def _engine(x: float, y: float, direction: float) -> Engine:
    """One arena: seat 0 at (x, y) facing `direction`, seat 1 parked far away at (700, 500)."""
    engine = Engine(GameSetup(), 1, 2, seeds=3)
    engine.initial_positions = (
        np.array([[x, 700.0]]),
        np.array([[y, 500.0]]),
        np.array([[direction, 0.0]]),
    )
    return engine


def _drive(engine: Engine, script: Script, moves: Moves, turns: int) -> list[BotView]:
    """Run `script` for seat 0 (seat 1 idle); the views of seat 0 after each turn."""
    views = []
    for _ in range(turns):
        engine.step()
        view = fill_view(engine, 0, BotView.zeros(1))
        moves.observe(view)
        script.advance(view, moves)
        engine.set_intent(0, moves.fill(view))
        engine.set_intent(1, Intent.zeros(1))
        views.append(view)
    return views


def _one_shot(*steps: Step) -> tuple[Script, Moves]:
    script = Script(1, steps, loop_from=None)
    script.running[:] = True
    return script, Moves(1)


def _series(views: list[BotView], name: str) -> npt.NDArray[np.float64]:
    return np.array([getattr(v, name)[0] for v in views])


def test_forward_100_from_rest_follows_the_planner_profile_and_stops_after_exactly_100() -> None:
    script, moves = _one_shot(Step("forward", 100.0))
    views = _drive(_engine(200.0, 300.0, 0.0), script, moves, 25)
    speeds = _series(views, "speed")
    # tick 1: the step starts; turn 2 is the first one that applies its intent
    profile = [1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8, 8, 8, 8, 7, 5, 3, 1, 0]
    assert speeds[1:20].tolist() == profile
    assert np.all(speeds[20:] == 0.0)
    assert _series(views, "x")[19] - 200.0 == 100.0
    assert not script.running[0]  # finished on the tick the bot stood still again
    assert moves.distance[0] == 0.0


def test_forward_finishes_on_the_tick_speed_returns_to_zero() -> None:
    script, moves = _one_shot(Step("forward", 100.0), Step("turn", 10.0))
    views = _drive(_engine(200.0, 300.0, 0.0), script, moves, 22)
    turn_rates = _series(views, "turn_rate")
    assert np.all(turn_rates[:20] == 0.0) and turn_rates[20] == 10.0


def test_backward_distance_mirrors_forward() -> None:
    script, moves = _one_shot(Step("forward", -100.0))
    views = _drive(_engine(600.0, 300.0, 0.0), script, moves, 22)
    assert _series(views, "speed")[1:20].tolist() == [
        -1, -2, -3, -4, -5, -6, -7, -8, -8, -8, -8, -8, -8, -8, -7, -5, -3, -1, 0,
    ]  # fmt: skip
    assert _series(views, "x")[-1] == 500.0


def test_turn_right_65_at_rest_takes_7_turns_and_ends_on_the_target() -> None:
    script, moves = _one_shot(Step("turn", -65.0))
    views = _drive(_engine(400.0, 300.0, 90.0), script, moves, 10)
    rates = _series(views, "turn_rate")
    assert rates[1:8].tolist() == [-10, -10, -10, -10, -10, -10, -5]
    assert np.all(rates[8:] == 0.0)
    assert np.all(_series(views, "direction")[7:] == 25.0)
    assert not script.running[0]


def test_turn_right_65_at_full_speed_is_limited_to_4_per_turn() -> None:
    moves, everyone = Moves(1), np.ones(1, dtype=np.bool_)
    moves.start("forward", everyone, 10_000.0)
    engine = _engine(60.0, 300.0, 0.0)
    views: list[BotView] = []
    for _ in range(32):
        engine.step()
        view = fill_view(engine, 0, BotView.zeros(1))
        moves.observe(view)
        if len(views) == 10:  # tick 11, at speed 8 since tick 9
            moves.start("turn", everyone, -65.0)
        engine.set_intent(0, moves.fill(view))
        views.append(view)
    rates = _series(views, "turn_rate")
    assert rates[11:28].tolist() == [-4.0] * 16 + [-1.0]
    assert np.all(rates[28:] == 0.0)
    assert _series(views, "direction")[27] == 295.0


def test_turns_wrap_through_zero_and_count_what_the_body_really_turned() -> None:
    moves = Moves(1)
    view = BotView.zeros(1)
    view.direction[:] = 355.0
    moves.observe(view)
    moves.start("turn", np.ones(1, dtype=np.bool_), 20.0)
    view.direction[:] = 5.0  # turned +10 through 360
    moves.observe(view)
    assert moves.turn[0] == 10.0
    view.direction[:] = 20.0  # turned +15 >= what remained: done
    moves.observe(view)
    assert moves.turn[0] == 0.0


def test_a_wall_hit_or_an_own_ram_cancels_the_distance_but_a_ram_by_the_other_does_not() -> None:
    moves = Moves(3)
    view = BotView.zeros(3)
    moves.observe(view)
    moves.start("forward", np.ones(3, dtype=np.bool_), 100.0)
    view.speed[:] = 1.0
    view.hit_wall[0] = True
    view.hit_bot[1:] = True
    view.hit_bot_rammed[1] = True
    moves.observe(view)
    assert moves.distance.tolist() == [0.0, 0.0, 99.0]


def test_every_script_step_takes_at_least_one_turn() -> None:
    script, moves = _one_shot(Step("turn", 0.0), Step("gun", 0.0), Step("turn", 10.0))
    views = _drive(_engine(400.0, 300.0, 0.0), script, moves, 5)
    assert _series(views, "turn_rate").tolist() == [0.0, 0.0, 0.0, 10.0, 0.0]


def test_a_looping_script_runs_from_loop_from_again() -> None:
    script = Script(1, (Step("turn", 10.0), Step("gun", 20.0), Step("gun", -20.0)), loop_from=1)
    views = _drive(_engine(400.0, 300.0, 0.0), script, Moves(1), 7)
    # tick 1 starts the body turn, tick 2 the first gun step; then 20, -20, 20, ... (step 1 on)
    assert _series(views, "gun_turn_rate").tolist() == [0.0, 0.0, 20.0, -20.0, 20.0, -20.0, 20.0]
