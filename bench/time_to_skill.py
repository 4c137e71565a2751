"""Benchmark of time to skill: wall time from nothing to a policy that wins 90% against SpinBot.

For each of 3 seeds, tankrl's own pipeline from a random init: the behaviour-cloning warm start
(deploy/pretrain.py, the `release` config's settings with a short fit, SpinBot only), then a
100-round evaluation (policy means, native); while it is below 90%, PPO fine-tuning in chunks of
CHUNK_S seconds (learner.trainer.Trainer on NativeRunner rounds, in-process) each followed by
another 100-round evaluation, up to LIMIT_S. The time counted is everything up to the evaluation
that reached 90%, evaluations included. A seed that never gets there counts as LIMIT_S (and says
so).
Last line: {"median_s_to_90pct_spinbot": ..., "seeds": 3}.
"""

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p).resolve() != Path(__file__).resolve().parent]

import numpy as np  # noqa: E402
import torch  # noqa: E402

from tankrl.actor.native_env import NativeEnv  # noqa: E402
from tankrl.actor.native_runner import NativeRunner  # noqa: E402
from tankrl.actor.policy_slot import PolicySlot  # noqa: E402
from tankrl.deploy.config_cli import load_named  # noqa: E402
from tankrl.deploy.evaluation import EvalOptions, play_native  # noqa: E402
from tankrl.deploy.pretrain import pretrain  # noqa: E402
from tankrl.learner import checkpoints  # noqa: E402
from tankrl.learner.trainer import Trainer  # noqa: E402
from tankrl.shared.config import RunConfig  # noqa: E402
from tankrl.shared.contracts import get_contract  # noqa: E402
from tankrl.shared.wire import Trajectory, WeightsUpdate  # noqa: E402

SEEDS = (0, 1, 2)
TARGET = 0.9
ROUNDS = 100
CHUNK_S = 60.0
LIMIT_S = 1200.0


def win_rate(cfg: RunConfig, tensors: dict[str, np.ndarray], seed: int) -> float:
    opts = EvalOptions(Path("-"), ("SpinBot",), ROUNDS, seed=1000 + seed)
    played = play_native(opts, get_contract(cfg.contract), tensors, lambda _msg: None)
    return float(np.mean([r.won for r in played.records]))


def one_seed(seed: int) -> tuple[float, bool]:
    data = load_named("release")
    data.update(seed=seed, run=f"time-to-skill-{seed}")
    data["actors"] = {**data["actors"], "opponents": ["SpinBot"], "curriculum": "uniform"}
    # a short warm start: a quarter of the release's arena-turns, two passes per iteration at a
    # constant learning rate (the release's long decaying fit buys precision past 90%, not speed)
    data["train"] = {
        **data["train"],
        "pretrain_turns": 1_500_000,
        "pretrain_iterations": 4,
        "pretrain_steps": 0,
        "pretrain_lr_end": data["train"].get("pretrain_lr", 1e-3),
    }
    cfg = RunConfig.from_dict(data).validate()
    contract = get_contract(cfg.contract)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        pretrain(cfg, Path(tmp), lambda msg: print(f"  seed {seed}: {msg}", flush=True))
        loaded = checkpoints.startup(Path(tmp), contract).loaded
        assert loaded is not None
        tensors = loaded.tensors
    rate = win_rate(cfg, tensors, seed)
    print(f"  seed {seed}: {time.perf_counter() - t0:6.0f} s  warm start: {rate:.0%}", flush=True)
    trainer = Trainer(contract, cfg.ppo, seed, tensors)
    slot = PolicySlot(contract, trainer.policy_tensors(), 0)
    env = NativeEnv(cfg.actors.native_arenas, contract, ("SpinBot",), cfg.arena, seed=seed)
    rounds: list[Trajectory] = []
    runner = NativeRunner(env, slot, rounds.append, seed=seed)
    version = 0
    while rate < TARGET and time.perf_counter() - t0 < LIMIT_S:
        chunk_end = time.perf_counter() + CHUNK_S
        while time.perf_counter() < chunk_end:
            while sum(r.turns for r in rounds) < cfg.ppo.min_turns_per_update:
                runner.run(32)
            trainer.train(rounds)
            rounds.clear()
            version += 1
            slot.offer(WeightsUpdate(version, contract.sha256, trainer.policy_tensors()))
        rate = win_rate(cfg, trainer.policy_tensors(), seed)
        print(f"  seed {seed}: {time.perf_counter() - t0:6.0f} s  PPO v{version}: {rate:.0%}")
    return time.perf_counter() - t0, rate >= TARGET


def main() -> None:
    torch.set_num_threads(1)
    times = []
    for seed in SEEDS:
        seconds, reached = one_seed(seed)
        times.append(seconds if reached else LIMIT_S)
        verdict = "reached 90%" if reached else f"did not reach 90% within {LIMIT_S:.0f} s"
        print(f"seed {seed}: {seconds:.0f} s, {verdict}", flush=True)
    print(json.dumps({"median_s_to_90pct_spinbot": round(statistics.median(times), 1), "seeds": 3}))


if __name__ == "__main__":
    main()
