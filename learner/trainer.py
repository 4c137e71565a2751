"""One run's trainable state (model, Adam, normalisers) and the step from rounds to a PPO pass.

Input: the rounds the inbox hands over; output: updated weights and the pass statistics. No
threads or I/O: the service calls `train` from its training thread and saves `training_state`.
With `ppo.bc_coef` > 0 a demonstrator (a function from observations to raw actions, handed in by
whoever builds the learner) labels the turns of rounds against `ppo.bc_opponents`, and the pass
keeps the policy's means near those labels there.
Run it with one torch thread (`learner.torch_threads`): on these small tensors more threads only
add synchronisation, and on a busy machine they make a pass many times slower.
"""

import io
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from tankrl.learner.gae import gae_for_rounds
from tankrl.learner.model import ActorCritic
from tankrl.learner.normalize import RewardScaler, RunningMeanStd
from tankrl.learner.ppo import Batch, make_optimizer, train_pass
from tankrl.shared.config import PPOConfig
from tankrl.shared.contracts import Contract
from tankrl.shared.policy import OBS_NORM_TENSORS, check_tensors, hidden_size_of
from tankrl.shared.wire import Trajectory

log = logging.getLogger(__name__)

F32 = npt.NDArray[np.float32]
Demonstrator = Callable[[F32], F32]
"""Observations [N, obs_size] -> the demonstrator's raw actions [N, action_size]."""


class Trainer:
    """Model, optimizer and normalisers of one run; `train(rounds)` is one PPO pass."""

    def __init__(
        self,
        contract: Contract,
        cfg: PPOConfig,
        seed: int = 0,
        tensors: Mapping[str, npt.NDArray[np.generic]] | None = None,
        demonstrator: Demonstrator | None = None,
    ):
        self.contract = contract
        self.cfg = cfg
        if cfg.bc_coef > 0 and demonstrator is None:
            raise ValueError("ppo.bc_coef > 0 needs a demonstrator to label the anchored rounds")
        self.demonstrator = demonstrator if cfg.bc_coef > 0 else None
        if tensors is None:
            self.model = ActorCritic.initial(
                contract, cfg.hidden_size, seed, cfg.log_std_init, cfg.norm_obs
            )
        else:
            check_tensors(contract, tensors)
            with_norm = cfg.norm_obs or OBS_NORM_TENSORS[0] in tensors
            if (hidden := hidden_size_of(tensors)) != cfg.hidden_size:
                msg = "the saved policy is %d wide; ppo.hidden_size=%d is ignored"
                log.warning(msg, hidden, cfg.hidden_size)
            self.model = ActorCritic(contract, hidden, with_norm)
            self.model.load_tensors(tensors, strict=False)
        self.optimizer = make_optimizer(self.model, cfg)
        self.generator = torch.Generator().manual_seed(seed)
        self.obs_stats: RunningMeanStd | None = None
        if cfg.norm_obs:
            self.obs_stats = RunningMeanStd.initial((contract.obs_size,))
            if tensors is not None and OBS_NORM_TENSORS[0] in tensors:
                mean, var = (np.asarray(tensors[n], np.float64) for n in OBS_NORM_TENSORS)
                self.obs_stats = RunningMeanStd(mean, var, 1.0)
        self.reward_scaler = RewardScaler(cfg.gamma) if cfg.scale_rewards else None

    def make_batch(self, rounds: Sequence[Trajectory]) -> Batch:
        """Update the normalisers with these rounds, then GAE over them into one flat batch."""
        if self.obs_stats is not None and self.model.obs_norm is not None:
            self.obs_stats.update(np.concatenate([tr.obs for tr in rounds]))
            self.model.obs_norm.mean.copy_(torch.as_tensor(self.obs_stats.mean))
            self.model.obs_norm.var.copy_(torch.as_tensor(self.obs_stats.var))
        rewards = None
        if self.reward_scaler is not None:
            scaler = self.reward_scaler
            rewards = [scaler.scale(tr.rewards, tr.terminals | tr.truncations) for tr in rounds]
        advantages, returns = gae_for_rounds(rounds, self.cfg.gamma, self.cfg.gae_lambda, rewards)
        obs = np.concatenate([tr.obs for tr in rounds])
        anchor: dict[str, F32] = {}
        if self.demonstrator is not None:
            anchor = self._bc_targets(rounds, obs)
        return Batch.from_numpy(
            obs=obs,
            actions=np.concatenate([tr.actions for tr in rounds]),
            logprobs=np.concatenate([tr.logprobs for tr in rounds]),
            values=np.concatenate([tr.values for tr in rounds]),
            advantages=advantages,
            returns=returns,
            **anchor,
        )

    def _bc_targets(self, rounds: Sequence[Trajectory], obs: F32) -> dict[str, F32]:
        """bc_mask (1 on turns of rounds against ppo.bc_opponents) and the demonstrator's
        actions there (zeros elsewhere)."""
        assert self.demonstrator is not None
        anchored = set(self.cfg.bc_opponents)
        mask = np.concatenate(
            [np.full(tr.turns, tr.info.get("opponent") in anchored, np.float32) for tr in rounds]
        )
        targets = np.zeros((len(obs), self.contract.action_size), np.float32)
        rows = mask > 0
        if rows.any():
            targets[rows] = self.demonstrator(obs[rows])
        return {"bc_actions": targets, "bc_mask": mask}

    def train(self, rounds: Sequence[Trajectory]) -> dict[str, float]:
        """One PPO pass over `rounds` (GAE, epochs of minibatches); returns its statistics."""
        for tr in rounds:
            self.contract.require(tr.contract_sha256, f"round {tr.round_id} of {tr.bot_id}")
        batch = self.make_batch(rounds)
        stats = train_pass(self.model, self.optimizer, batch, self.cfg, self.generator)
        if self.reward_scaler is not None:
            stats["reward_scale_std"] = self.reward_scaler.std
        return stats

    def policy_tensors(self) -> dict[str, npt.NDArray[np.float32]]:
        """The policy as named float32 arrays (what bots and `.npy` files get)."""
        return self.model.to_tensors()

    def training_state(self) -> tuple[bytes, dict[str, Any]]:
        """(optimizer state as torch-serialised bytes, normaliser statistics as a JSON dict)."""
        buf = io.BytesIO()
        torch.save(self.optimizer.state_dict(), buf)
        state: dict[str, Any] = {
            "obs_stats": None if self.obs_stats is None else self.obs_stats.to_dict(),
            "reward_stats": None
            if self.reward_scaler is None
            else self.reward_scaler.stats.to_dict(),
        }
        return buf.getvalue(), state

    def load_training_state(self, optimizer_bytes: bytes | None, state: Mapping[str, Any]) -> None:
        """Restore what `training_state` saved; a part that does not fit is logged and skipped."""
        if optimizer_bytes is not None:
            try:
                sd = torch.load(io.BytesIO(optimizer_bytes), weights_only=True)
                self.optimizer.load_state_dict(sd)
            except Exception as e:  # a mismatched or damaged state: start Adam afresh
                log.warning("optimizer state not restored (%s); Adam starts afresh", e)
                self.optimizer = make_optimizer(self.model, self.cfg)
        if self.obs_stats is not None and state.get("obs_stats"):
            self.obs_stats = RunningMeanStd.from_dict(state["obs_stats"])
        if self.reward_scaler is not None and state.get("reward_stats"):
            self.reward_scaler.stats = RunningMeanStd.from_dict(state["reward_stats"])
