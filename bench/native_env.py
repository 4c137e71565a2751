"""Benchmark of the native env: arena-turns per second for B arenas stepped together.

For each B in `--sizes`: NativeEnv (contract v2, the learner seat against SpinBot, observations,
rewards and the goto/aim decoder included) stepped with random raw actions ("env"), and the same
with the policy's forward pass and sampling for the learner seat each turn ("policy",
NumpyPolicy, 64 wide). A turn is one arena advancing one tick. Each point steps for at least
`--seconds` after WARMUP_STEPS untimed steps (the first calls load numba's compiled code);
actions come from a small pre-drawn pool so the RNG is not timed. The figures are the best over
the sizes (the largest B, normally): env_turns_per_s (at best_b) and policy_turns_per_s (at
policy_best_b).
Usage: python -m bench.native_env [--sizes 1,64,1024,4096] [--seconds S]
"""

import argparse
import time

import numpy as np

from bench.judge import Target, finish
from tankrl.actor.native_env import NativeEnv
from tankrl.shared.contracts import V2
from tankrl.shared.policy import NumpyPolicy, init_tensors

TARGETS = (
    Target("env_turns_per_s", ">=", 500_000.0, "rate", "env turns/s"),
    Target("policy_turns_per_s", ">=", 200_000.0, "rate", "turns/s with the policy"),
)
MIN_SECONDS = 3.0
WARMUP_STEPS = 20


def measure(b: int, with_policy: bool, seconds: float) -> float:
    """Arena-turns per second of B arenas over at least `seconds` of stepping."""
    env = NativeEnv(b, V2, ("SpinBot",), seed=1)
    rng = np.random.default_rng(0)
    pool = rng.standard_normal((8, b, V2.action_size)).astype(np.float32)
    policy = NumpyPolicy(V2, init_tensors(V2, 64, 0)) if with_policy else None
    obs = env.reset()

    def step(i: int) -> None:
        nonlocal obs
        actions = pool[i % 8] if policy is None else policy.act(obs, rng)[0]
        obs = env.step(actions).obs

    for i in range(WARMUP_STEPS):
        step(i)
    steps, t0 = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - t0) < seconds or steps < 10:
        step(steps)
        steps += 1
    return b * steps / elapsed


def main() -> None:
    p = argparse.ArgumentParser(
        prog="python -m bench.native_env", description=__doc__.split("\n")[0]
    )
    p.add_argument("--sizes", default="1,64,1024,4096", help="comma-separated B values")
    p.add_argument("--seconds", type=float, default=MIN_SECONDS, help="stepping time per point")
    args = p.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    env_rate: dict[int, float] = {}
    policy_rate: dict[int, float] = {}
    print(f"{'B':>6} {'env turns/s':>14} {'policy turns/s':>15}")
    for b in sizes:
        env_rate[b] = measure(b, False, args.seconds)
        policy_rate[b] = measure(b, True, args.seconds)
        print(f"{b:>6} {env_rate[b]:>14,.0f} {policy_rate[b]:>15,.0f}", flush=True)
    best_b = max(env_rate, key=lambda b: env_rate[b])
    policy_best_b = max(policy_rate, key=lambda b: policy_rate[b])
    figures = {
        "env_turns_per_s": round(env_rate[best_b]),
        "policy_turns_per_s": round(policy_rate[policy_best_b]),
        "best_b": best_b,
        "policy_best_b": policy_best_b,
    }
    finish("native_env", figures, TARGETS)


if __name__ == "__main__":
    main()
