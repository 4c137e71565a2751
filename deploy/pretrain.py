"""Warm start by behaviour cloning (DAgger): before PPO, the policy learns to copy the scripted
demonstrator `actor.expert.GotoAimExpert` in the native env, and the critic fits the returns seen.

Iteration 0 plays the demonstrator; later iterations play the current policy's means with a
decreasing share of demonstrator turns (beta), and every observation is labelled with what the
demonstrator would do there (DAgger), so the policy learns to recover from its own mistakes.
The result is written as the run's `latest/` (policy_version 0), from which `tankrl train`
resumes; the per-opponent win rates of the policy's own iterations are reported as it goes.

How precisely the network copies the aim point decides most of its lost rounds, so the cloning can
run many more minibatch steps than two passes (`train.pretrain_steps`), with a decaying learning
rate (`pretrain_lr` -> `pretrain_lr_end`) and the aim dims weighted up (`pretrain_aim_weight`).
"""

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import torch

from tankrl.actor.expert import GotoAimExpert
from tankrl.actor.native_env import NativeEnv
from tankrl.deploy.dagger import rollout
from tankrl.learner import bc, checkpoints
from tankrl.learner.model import ActorCritic
from tankrl.shared.config import RunConfig, TrainConfig
from tankrl.shared.contracts import get_contract
from tankrl.shared.policy_files import encode_policy

F32 = npt.NDArray[np.float32]
WARM_START = "warm_start"  # <run>/warm_start: the policy as the warm start left it
TAIL_TURNS = 300
"""Rollout turns at the end whose returns are cut short; not used for the critic."""


@dataclass
class PretrainResult:
    path: Path
    seconds: float
    samples: int
    win_rate: dict[str, float]
    """Per opponent, rounds won by the policy's own play in the last iteration."""
    action_mse: float


def _lr_at(t: TrainConfig, fraction: float) -> float:
    """The warm start's learning rate `fraction` of the way through (log-linear)."""
    return float(t.pretrain_lr * (t.pretrain_lr_end / t.pretrain_lr) ** fraction)


def pretrain(
    cfg: RunConfig, run_dir: Path, progress: Callable[[str], None] = print
) -> PretrainResult:
    """Behaviour-clone the demonstrator for `cfg.train.pretrain_turns` arena-turns into run_dir."""
    t0 = time.perf_counter()
    contract = get_contract(cfg.contract)
    arenas = cfg.train.pretrain_arenas
    env = NativeEnv(arenas, contract, cfg.actors.opponents, cfg.arena, seed=cfg.seed + 1_000)
    expert = GotoAimExpert(contract, cfg.arena.arena_width, cfg.arena.arena_height)
    torch.manual_seed(cfg.seed)
    # as the learner does: intra-op threads on these small tensors only spin against the env
    # and other processes for the cores (20x slower on a loaded 2-core machine)
    torch.set_num_threads(cfg.learner.torch_threads)
    model = ActorCritic.initial(contract, cfg.ppo.hidden_size, cfg.seed, cfg.ppo.log_std_init)
    t = cfg.train
    optimizer = torch.optim.Adam(model.parameters(), lr=t.pretrain_lr)
    weights = bc.dim_weights(contract, t.pretrain_aim_weight)
    generator = torch.Generator().manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    iterations = cfg.train.pretrain_iterations
    turns = max(TAIL_TURNS + 1, cfg.train.pretrain_turns // (iterations * env.num_envs))
    data_obs: list[F32] = []
    data_act: list[F32] = []
    data_ret: list[F32] = []
    obs = env.reset()
    wins: dict[str, list[bool]] = {}
    stats: dict[str, float] = {}
    for it in range(iterations):
        beta = 1.0 if it == 0 else max(0.0, 0.5 * (1.0 - it / max(1, iterations - 1)))
        wins = {}
        o, a, r, e, obs = rollout(
            env, obs, turns, expert.actions, None if it == 0 else model, beta, rng, wins
        )
        ret = bc.discounted_returns(r, e, cfg.ppo.gamma)
        keep = slice(0, turns - TAIL_TURNS)
        data_obs.append(o[keep].reshape(-1, o.shape[2]))
        data_act.append(a[keep].reshape(-1, a.shape[2]))
        data_ret.append(ret[keep].reshape(-1))
        while sum(len(x) for x in data_obs) > t.pretrain_max_samples and len(data_obs) > 1:
            data_obs.pop(0), data_act.pop(0), data_ret.pop(0)
        samples = sum(len(x) for x in data_obs)
        mb = cfg.ppo.minibatch_size
        steps = t.pretrain_steps // iterations or bc.epochs_to_steps(samples, mb, 2)
        stats = bc.fit(
            model,
            optimizer,
            np.concatenate(data_obs),
            np.concatenate(data_act),
            np.concatenate(data_ret),
            steps=steps,
            minibatch=mb,
            generator=generator,
            lr=(_lr_at(t, it / iterations), _lr_at(t, (it + 1) / iterations)),
            dim_weights=weights,
        )
        played = "demonstrator" if it == 0 else f"policy (beta {beta:.2f})"
        rates = ", ".join(f"{k} {100 * np.mean(v):.0f}%" for k, v in sorted(wins.items()))
        progress(
            f"pretrain {it + 1}/{iterations} [{time.perf_counter() - t0:5.0f} s] {played}: "
            f"{rates or 'no finished rounds'}; {steps} steps on {samples:,} samples, "
            f"action mse {stats['action_mse']:.5f}, "
            f"value mse {stats['value_mse']:.1f}"
        )
    with torch.no_grad():
        model.log_std.fill_(cfg.ppo.log_std_init)
    tensors = model.to_tensors()
    files = encode_policy(contract, 0, tensors, cfg.to_dict())
    state = {
        "policy_version": 0,
        "rounds_trained": 0,
        "turns_trained": 0,
        "trainer": {},
        "pretrain": {"samples": samples, "iterations": iterations, **stats},
    }
    path = checkpoints.write_latest(run_dir, files, None, state)
    # kept beside the run, so what learning added can be measured against the warm start alone
    shutil.rmtree(run_dir / WARM_START, ignore_errors=True)
    checkpoints.write_policy_dir(run_dir / WARM_START, files, None, state)
    return PretrainResult(
        path,
        time.perf_counter() - t0,
        samples,
        {k: float(np.mean(v)) for k, v in sorted(wins.items())},
        stats["action_mse"],
    )
