"""The consolidation after PPO (`train.distill_turns`): one policy that keeps what PPO learnt
against some opponents and the scripted demonstrator's play against others.

PPO against a mix (e.g. Surfer, where skill lies in low-power shots from afar) drifts the policy
away from the demonstrator everywhere, also against opponents where the demonstrator's play was
better. This phase distils two teachers into the policy by DAgger on its own play in the native
env: on the turns of arenas against `train.distill_demonstrated` the label is the demonstrator's
action, on every other turn the action of the policy as PPO left it (the teacher, frozen). Turns
labelled by the teacher count `train.distill_policy_repeat` times, and fire_power weighs
`train.distill_power_weight` (aim dims `train.pretrain_aim_weight`), because the skill PPO found
lies in small differences there. The critic is left as PPO trained it.

The policy before the phase is kept as `<run>/before_distill/`; the result becomes `latest/` with
the next policy_version.
"""

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from tankrl.actor.expert import GotoAimExpert
from tankrl.actor.native_env import NativeEnv
from tankrl.deploy.dagger import F32, rollout
from tankrl.learner import bc, checkpoints
from tankrl.learner.model import ActorCritic
from tankrl.shared.config import RunConfig
from tankrl.shared.policy_files import encode_policy

BEFORE_DISTILL = "before_distill"  # <run>/before_distill: the policy as PPO left it


@dataclass
class DistillResult:
    path: Path
    seconds: float
    policy_version: int
    samples: int
    win_rate: dict[str, float]
    """Per opponent, rounds won by the policy's own play in the last iteration."""
    error: dict[str, float]
    """Squashed-action MSE to the labels before the last fit: `demonstrated` and `policy` rows."""


def labeller(
    teacher: ActorCritic,
    demonstrator: Callable[[F32], F32] | None,
    demonstrated: npt.NDArray[np.bool_],
) -> Callable[[F32], F32]:
    """Labels for every seat: the demonstrator's actions where `demonstrated` [N], else the
    teacher's means."""

    def label(obs: F32) -> F32:
        with torch.no_grad():
            out: F32 = teacher(torch.as_tensor(obs))[0].numpy().astype(np.float32)
        if demonstrator is not None and demonstrated.any():
            out[demonstrated] = demonstrator(obs[demonstrated])
        return out

    return label


def distill(
    cfg: RunConfig, run_dir: Path, progress: Callable[[str], None] = print
) -> DistillResult:
    """Consolidate the run's latest policy for `cfg.train.distill_turns` arena-turns."""
    t0 = time.perf_counter()
    t = cfg.train
    loaded = checkpoints.read_policy_dir(run_dir / checkpoints.LATEST)
    contract, tensors, version = loaded.contract, loaded.tensors, loaded.policy_version
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.learner.torch_threads)
    teacher = ActorCritic.from_tensors(contract, tensors).eval()
    student = ActorCritic.from_tensors(contract, tensors)
    env = NativeEnv(
        t.distill_arenas, contract, t.distill_opponents, cfg.arena, seed=cfg.seed + 2_000
    )
    names = np.tile(env.opponent_names, len(env.seats))
    demonstrated = np.isin(names, t.distill_demonstrated)
    demonstrator = None
    if demonstrated.any():
        demonstrator = GotoAimExpert(
            contract, cfg.arena.arena_width, cfg.arena.arena_height
        ).actions
    label = labeller(teacher, demonstrator, demonstrated)
    optimizer = torch.optim.Adam(student.parameters(), lr=t.distill_lr)
    weights = bc.dim_weights(contract, t.pretrain_aim_weight, t.distill_power_weight)
    generator = torch.Generator().manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    iterations = t.distill_iterations
    turns = max(1, t.distill_turns // (iterations * env.num_envs))
    steps = max(1, t.distill_steps // iterations)
    data_obs: list[F32] = []
    data_act: list[F32] = []
    obs = env.reset()
    wins: dict[str, list[bool]] = {}
    error = {"demonstrated": float("nan"), "policy": float("nan")}
    for it in range(iterations):
        wins = {}
        o, a, _r, _e, obs = rollout(env, obs, turns, label, student, 0.0, rng, wins)
        data_obs.append(o.reshape(-1, o.shape[2]))
        data_act.append(a.reshape(-1, a.shape[2]))
        while sum(len(x) for x in data_obs) > t.distill_max_samples and len(data_obs) > 1:
            data_obs.pop(0), data_act.pop(0)
        all_obs, all_act = np.concatenate(data_obs), np.concatenate(data_act)
        demo = np.tile(demonstrated, len(all_obs) // demonstrated.size)  # rows: turn-major
        with torch.no_grad():
            mean = student(torch.as_tensor(all_obs))[0]
            err = bc.squared_error(contract, mean, torch.as_tensor(all_act)).mean(-1).numpy()
        error = {
            "demonstrated": float(err[demo].mean()) if demo.any() else float("nan"),
            "policy": float(err[~demo].mean()) if (~demo).any() else float("nan"),
        }
        policy_rows = torch.as_tensor(np.nonzero(~demo)[0])
        pass_rows = torch.cat(
            [torch.arange(len(all_obs))] + [policy_rows] * (t.distill_policy_repeat - 1)
        )
        stats = bc.fit(
            student,
            optimizer,
            all_obs,
            all_act,
            None,
            steps=steps,
            minibatch=cfg.ppo.minibatch_size,
            generator=generator,
            dim_weights=weights,
            pass_rows=pass_rows,
        )
        rates = ", ".join(f"{k} {100 * np.mean(v):.0f}%" for k, v in sorted(wins.items()))
        progress(
            f"distill {it + 1}/{iterations} [{time.perf_counter() - t0:5.0f} s] policy: "
            f"{rates or 'no finished rounds'}; error to the demonstrator "
            f"{error['demonstrated']:.5f}, to the trained policy {error['policy']:.5f}; "
            f"{steps} steps on {len(all_obs):,} samples, action mse {stats['action_mse']:.5f}"
        )
    shutil.rmtree(run_dir / BEFORE_DISTILL, ignore_errors=True)
    shutil.copytree(loaded.path.resolve(), run_dir / BEFORE_DISTILL)
    files = encode_policy(contract, version + 1, student.to_tensors(), cfg.to_dict())
    state: dict[str, Any] = {
        **{k: loaded.state[k] for k in ("rounds_trained", "turns_trained") if k in loaded.state},
        "policy_version": version + 1,
        "trainer": {},
        "distill": {"samples": len(all_obs), "iterations": iterations, **error},
    }
    path = checkpoints.write_latest(run_dir, files, None, state)
    return DistillResult(
        path,
        time.perf_counter() - t0,
        version + 1,
        len(all_obs),
        {k: float(np.mean(v)) for k, v in sorted(wins.items())},
        error,
    )
