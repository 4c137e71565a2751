"""Benchmark of the hosted bot around the brain, and of the trajectory message.

(a) Turn overhead: per turn, everything PPOTurns and the Bot API shell do besides the brain's own
decision (BotView from the official API's TickEvent, reward and decision recording, the policy
swap check, copying the Intent into the official API's intent); the brain's observe and decide
are timed apart and subtracted, since bench/decision.py measures them. The ticks come from a
real engine battle of two scripted bots, parsed beforehand by the official API's own parser (its
cost is the API's, not ours); the first 100 turns are a warm-up. Figure: the p99.
(b) A 1,000-turn v2 trajectory as a bot sends it to the learner: its msgpack size and the median
encode time of 200 encodes.
Usage: python -m bench.bot_turn [--turns N]
"""

import argparse
import json
import sys
import time
from types import SimpleNamespace

import numpy as np
import numpy.typing as npt
from robocode_tank_royale.bot_api.bot import Bot
from robocode_tank_royale.bot_api.bot_info import BotInfo
from robocode_tank_royale.bot_api.events.tick_event import TickEvent
from robocode_tank_royale.bot_api.internal.json_util import from_json
from robocode_tank_royale.bot_api.mapper.event_mapper import EventMapper

from bench.judge import Target, finish
from tankrl.actor.botapi_shell import copy_intent, view_from_tick
from tankrl.actor.policy_slot import PolicySlot
from tankrl.actor.ppo_bot import PPOTurns
from tankrl.arena.opponents import OPPONENTS
from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.rules.views import fill_view
from tankrl.arena.server.ticks import receives_tick, tick_for_bot
from tankrl.shared.botview import BotView
from tankrl.shared.contracts import V2
from tankrl.shared.wire import Trajectory

TARGETS = (
    Target("turn_overhead_p99_us", "<=", 300.0, "time", "turn overhead p99 us"),
    Target("encode_ms_1000", "<=", 2.0, "time", "1,000-turn trajectory encode ms"),
)
TURNS = 3000
"""Turns timed in (a) by default, the first 100 of them a warm-up."""


def ticks(n: int) -> list[TickEvent]:
    """n TickEvents of seat 0 from native battles of two scripted bots, as the API parses them."""
    engine = Engine(GameSetup(number_of_rounds=10**6), 1, 2, seeds=[3])
    bots = [
        OPPONENTS["SpinBot"](1, np.array([1], np.uint64)),
        OPPONENTS["Crazy"](1, np.array([2], np.uint64)),
    ]
    out: list[TickEvent] = []
    me = SimpleNamespace(my_id=1)
    while len(out) < n:
        engine.step()
        for seat, bot in enumerate(bots):
            view = fill_view(engine, seat, BotView.zeros(1))
            bot.reset_round(view.turn_number == 1)
            engine.set_intent(seat, bot.decide(view))
        if receives_tick(engine, 0, 0):
            msg = json.loads(json.dumps(tick_for_bot(engine, 0, 0)))
            out.append(EventMapper.map_tick_event(from_json(msg), me))  # type: ignore[arg-type]
    return out


def turn_overhead(n_turns: int) -> np.ndarray:
    slot = PolicySlot(V2, seed=0)
    turns = PPOTurns(slot, "bench", sink=None, seed=0)
    bot = Bot(
        bot_info=BotInfo(name="bench", version="1", authors=["tankrl"]),
        server_url="ws://127.0.0.1:1",
    )
    brain_us = [0.0]
    # PPOTurns calls observe + decide: time them together as "the brain"
    observe, decide = turns.brain.observe, turns.brain.decide

    def timed_observe(view):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        obs = observe(view)
        brain_us[0] = (time.perf_counter() - t) * 1e6
        return obs

    def timed_decide(*args, **kwargs):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        d = decide(*args, **kwargs)
        brain_us[0] += (time.perf_counter() - t) * 1e6
        return d

    turns.brain.observe, turns.brain.decide = timed_observe, timed_decide  # type: ignore[method-assign]
    out = []
    turns.start_round()
    for tick in ticks(n_turns):
        if tick.turn_number == 1:
            turns.start_round()
        bot._internals.tick_event = tick  # what the API's WebSocket thread does on a tick
        t = time.perf_counter()
        view = view_from_tick(tick, 800.0, 600.0)
        intent = turns.turn(view, live=True)
        assert intent is not None
        copy_intent(bot, intent)
        total = (time.perf_counter() - t) * 1e6
        out.append(total - brain_us[0])
    return np.asarray(out[100:])


def trajectory(turns: int = 1000) -> Trajectory:
    rng = np.random.default_rng(0)

    def f(*shape: int) -> npt.NDArray[np.float32]:
        return rng.standard_normal(shape).astype(np.float32)

    term = np.zeros(turns, bool)
    term[-1] = True
    return Trajectory(
        "native0-12",
        3,
        41,
        V2.sha256,
        np.clip(f(turns, 44), -1, 1),
        f(turns, 6),
        f(turns),
        f(turns),
        f(turns),
        term,
        np.zeros(turns, bool),
        info={"kind": "native", "opponent": "SpinBot", "won": True, "score": 120.0},
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.bot_turn", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--turns", type=int, default=TURNS, help="turns played in (a), > 100")
    args = parser.parse_args()
    over = turn_overhead(args.turns)
    t = trajectory()
    data = t.encode()
    times = []
    for _ in range(200):
        s = time.perf_counter()
        t.encode()
        times.append((time.perf_counter() - s) * 1e3)
    result = {
        "turn_overhead_p99_us": round(float(np.percentile(over, 99)), 1),
        "trajectory_bytes_1000": len(data),
        "encode_ms_1000": round(float(np.median(times)), 3),
    }
    print(
        f"hosted turn overhead around the brain: p50 {np.percentile(over, 50):.1f} us, "
        f"p99 {result['turn_overhead_p99_us']} us over {len(over)} turns",
        file=sys.__stdout__,
    )
    print(
        f"1,000-turn v2 trajectory: {len(data):,} bytes, encode {result['encode_ms_1000']} ms "
        "(median of 200)",
        file=sys.__stdout__,
    )
    # the official API's Bot swaps sys.stdout for a recording writer: print past it
    finish("bot_turn", result, TARGETS, file=sys.__stdout__)


if __name__ == "__main__":
    main()
