"""Benchmark of one turn's decision (`Brain.step`: tracker, observation, actor and critic forward,
sampling, decoder and controllers) on synthetic but realistic BotViews.

Latency at B = 1 (one hosted bot's turn: p50 and p99 over `--turns` turns, one clock read per
turn, after a warm-up and a gc.collect so that neither lands in the timed turns) and throughput
at B = 4096 (native arenas stepped together: the best of 3 runs, because other processes share
the machine). Views cycle through a pool of POOL pre-built ones, so numpy's RNG is not timed.
Usage: python -m bench.decision [--turns N] [--steps N] [--contract v2]
"""

import argparse
import gc
import time

import numpy as np

from bench.judge import Target, finish
from tankrl.actor.brain import Brain
from tankrl.shared.botview import BotView
from tankrl.shared.contracts import get_contract
from tankrl.shared.policy import NumpyPolicy, init_tensors

TARGETS = (
    Target("p99_us", "<=", 250.0, "time", "p99 us at B = 1"),
    Target("decisions_per_s_b4096", ">=", 1_000_000.0, "rate", "decisions/s at B = 4096"),
)

POOL = 512
"""Distinct synthetic views cycled through (a fresh random view per turn would time numpy's RNG)."""


def synthetic_views(n_bots: int, count: int, seed: int) -> list[BotView]:
    """Mid-round 1v1 views: bots inside 800x600, the enemy scanned 80% of turns, guns cooling,
    occasional hits, rams and wall bumps. Each view is a plausible tick; consecutive views are
    independent draws, so every branch of the brain (lock/sweep, dead reckoning, reversing,
    firing) is exercised in realistic proportions."""
    rng = np.random.default_rng(seed)
    views = []
    for turn in range(count):
        v = BotView.zeros(n_bots)
        v.round_number[:] = 1
        v.turn_number[:] = 100 + turn
        v.arena_width[:], v.arena_height[:] = 800.0, 600.0
        v.x[:], v.y[:] = rng.uniform(18, 782, n_bots), rng.uniform(18, 582, n_bots)
        for a in (v.direction, v.gun_direction, v.radar_direction, v.scan_direction):
            a[:] = rng.uniform(0, 360, n_bots)
        v.speed[:], v.scan_speed[:] = rng.uniform(-8, 8, n_bots), rng.uniform(-8, 8, n_bots)
        v.energy[:], v.scan_energy[:] = rng.uniform(0, 100, n_bots), rng.uniform(0, 100, n_bots)
        v.gun_heat[:] = np.where(rng.random(n_bots) < 0.3, 0.0, rng.uniform(0, 1.6, n_bots))
        v.turn_rate[:] = rng.uniform(-10, 10, n_bots)
        v.gun_turn_rate[:] = rng.uniform(-20, 20, n_bots)
        v.radar_turn_rate[:] = v.radar_sweep[:] = rng.uniform(-45, 45, n_bots)
        v.enemy_count[:] = 1
        v.scanned[:] = rng.random(n_bots) < 0.8
        v.scan_bot_id[:] = 2
        v.scan_x[:], v.scan_y[:] = rng.uniform(18, 782, n_bots), rng.uniform(18, 582, n_bots)
        v.bullet_hit[:] = rng.random(n_bots) < 0.03
        v.bullet_hit_power[:] = 2.0 * v.bullet_hit
        v.bullet_hit_damage[:] = 10.0 * v.bullet_hit
        v.hit_by_bullet[:] = rng.random(n_bots) < 0.03
        v.hit_by_bullet_power[:] = 2.0 * v.hit_by_bullet
        v.hit_by_bullet_damage[:] = 10.0 * v.hit_by_bullet
        v.hit_wall[:] = rng.random(n_bots) < 0.01
        v.hit_bot[:] = rng.random(n_bots) < 0.01
        v.hit_bot_x[:], v.hit_bot_y[:] = v.scan_x, v.scan_y
        v.hit_bot_energy[:] = v.scan_energy
        views.append(v)
    return views


def latency_us(contract_name: str, turns: int) -> np.ndarray:
    """Per-turn wall time of Brain.step at B = 1, in microseconds."""
    contract = get_contract(contract_name)
    policy = NumpyPolicy(contract, init_tensors(contract, seed=1))
    brain = Brain(contract, 1)
    rng = np.random.default_rng(2)
    views = synthetic_views(1, POOL, seed=3)
    for i in range(2000):
        brain.step(views[i % POOL], policy, rng)
    times = np.empty(turns, dtype=np.int64)
    clock = time.perf_counter_ns
    gc.collect()
    for i in range(turns):
        view = views[i % POOL]
        t0 = clock()
        brain.step(view, policy, rng)
        times[i] = clock() - t0
    return times / 1e3


def throughput(contract_name: str, n_bots: int, steps: int) -> tuple[float, float]:
    """(decisions per second, ms per step) of Brain.step at B = n_bots."""
    contract = get_contract(contract_name)
    policy = NumpyPolicy(contract, init_tensors(contract, seed=1))
    brain = Brain(contract, n_bots)
    rng = np.random.default_rng(2)
    views = synthetic_views(n_bots, 8, seed=4)
    for i in range(10):
        brain.step(views[i % len(views)], policy, rng)
    best = float("inf")
    for _ in range(3):  # best of three runs: other processes share this machine
        t0 = time.perf_counter()
        for i in range(steps):
            brain.step(views[i % len(views)], policy, rng)
        best = min(best, (time.perf_counter() - t0) / steps)
    return n_bots / best, best * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.decision", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--turns", type=int, default=100_000, help="turns timed at B = 1")
    parser.add_argument("--steps", type=int, default=100, help="steps per run at B = 4096")
    parser.add_argument("--contract", default="v2", help="contract name (v1, v2)")
    args = parser.parse_args()
    lat = latency_us(args.contract, args.turns)
    p50, p90, p99, p999 = np.percentile(lat, [50, 90, 99, 99.9])
    rate, ms = throughput(args.contract, 4096, args.steps)
    print(f"Brain.step, contract {args.contract}")
    print(f"  B=1     turns {args.turns:>9,}   p50 {p50:7.1f} us   p90 {p90:7.1f} us")
    print(f"                              p99 {p99:7.1f} us   p99.9 {p999:7.1f} us")
    print(f"  B=4096  {ms:7.2f} ms/step      {rate:12,.0f} decisions/s")
    result = {
        "p50_us": round(float(p50), 1),
        "p99_us": round(float(p99), 1),
        "decisions_per_s_b4096": round(rate),
    }
    finish("decision", result, TARGETS)


if __name__ == "__main__":
    main()
