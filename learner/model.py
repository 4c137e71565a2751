"""The torch actor/critic: the same tensors, names and forward pass as `shared.policy.NumpyPolicy`.

Built from `shared.policy.init_tensors` (one orthogonal init for numpy and torch) or from a saved
tensor dict; `to_tensors` hands the float32 arrays back for `.npy` files and WeightsUpdate.
"""

import math
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from tankrl.shared.contracts import Contract
from tankrl.shared.policy import (
    DEFAULT_HIDDEN,
    LOG_STD_FLOOR,
    OBS_NORM_CLIP,
    OBS_NORM_EPS,
    OBS_NORM_TENSORS,
    check_tensors,
    hidden_size_of,
    init_tensors,
)

_LOG_2PI = math.log(2.0 * math.pi)


class ObsNorm(nn.Module):
    """Frozen observation statistics as buffers `mean` and `var` (state_dict `obs_norm.*`)."""

    mean: torch.Tensor
    var: torch.Tensor

    def __init__(self, obs_size: int):
        super().__init__()
        self.register_buffer("mean", torch.zeros(obs_size))
        self.register_buffer("var", torch.ones(obs_size))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        x = (obs - self.mean) * torch.rsqrt(self.var + OBS_NORM_EPS)
        return torch.clamp(x, -OBS_NORM_CLIP, OBS_NORM_CLIP)


def _mlp(obs_size: int, hidden: int, out: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(obs_size, hidden),
        nn.Tanh(),
        nn.Linear(hidden, hidden),
        nn.Tanh(),
        nn.Linear(hidden, out),
    )


class ActorCritic(nn.Module):
    """Separate actor and critic MLPs with a state-independent log-std (floored at -3)."""

    def __init__(self, contract: Contract, hidden: int = DEFAULT_HIDDEN, norm_obs: bool = False):
        super().__init__()
        self.contract = contract
        self.hidden = hidden
        self.actor = _mlp(contract.obs_size, hidden, contract.action_size)
        self.critic = _mlp(contract.obs_size, hidden, 1)
        self.log_std = nn.Parameter(torch.zeros(contract.action_size))
        self.obs_norm: ObsNorm | None = ObsNorm(contract.obs_size) if norm_obs else None

    @classmethod
    def initial(
        cls,
        contract: Contract,
        hidden: int = DEFAULT_HIDDEN,
        seed: int = 0,
        log_std_init: float = 0.0,
        norm_obs: bool = False,
    ) -> "ActorCritic":
        """A fresh model with `shared.policy.init_tensors` (identity obs statistics if on)."""
        model = cls(contract, hidden, norm_obs)
        model.load_tensors(init_tensors(contract, hidden, seed, log_std_init), strict=False)
        return model

    @classmethod
    def from_tensors(
        cls, contract: Contract, tensors: Mapping[str, npt.NDArray[np.generic]]
    ) -> "ActorCritic":
        """A model holding exactly `tensors` (obs normalisation on iff they include obs_norm.*)."""
        check_tensors(contract, tensors)
        model = cls(contract, hidden_size_of(tensors), OBS_NORM_TENSORS[0] in tensors)
        model.load_tensors(tensors)
        return model

    def load_tensors(
        self, tensors: Mapping[str, npt.NDArray[np.generic]], strict: bool = True
    ) -> None:
        """Copy float32 arrays into parameters and buffers (obs_norm optional unless strict)."""
        state = {k: torch.as_tensor(np.asarray(v, dtype=np.float32)) for k, v in tensors.items()}
        missing, unexpected = self.load_state_dict(state, strict=False)
        if unexpected:
            raise ValueError(f"unknown tensors for this model: {sorted(unexpected)}")
        if missing and (strict or any(not m.startswith("obs_norm.") for m in missing)):
            raise ValueError(f"tensors missing for this model: {sorted(missing)}")

    def to_tensors(self) -> dict[str, npt.NDArray[np.float32]]:
        """Every parameter and buffer as a float32 numpy array, named as in `tensor_shapes`."""
        return {
            k: v.detach().cpu().numpy().astype(np.float32, copy=True)
            for k, v in self.state_dict().items()
        }

    def clamped_log_std(self) -> torch.Tensor:
        """log-std with the floor applied (as NumpyPolicy does)."""
        return torch.clamp(self.log_std, min=LOG_STD_FLOOR)

    def normalise(self, obs: torch.Tensor) -> torch.Tensor:
        return obs if self.obs_norm is None else self.obs_norm(obs)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Action means [B, act] and values [B] for raw observations [B, obs]."""
        x = self.normalise(obs)
        return self.actor(x), self.critic(x)[:, 0]

    def evaluate(
        self, obs: torch.Tensor, actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(log-probs [B] of raw actions, entropy [B], values [B]) under the current weights."""
        logp, entropy, value, _ = self.evaluate_with_mean(obs, actions)
        return logp, entropy, value

    def evaluate_with_mean(
        self, obs: torch.Tensor, actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """`evaluate` and the action means [B, A] it computed them from."""
        mean, value = self.forward(obs)
        log_std = self.clamped_log_std()
        z = (actions - mean) * torch.exp(-log_std)
        logp = -0.5 * (z * z).sum(-1) - log_std.sum() - 0.5 * _LOG_2PI * mean.shape[-1]
        entropy = (0.5 + 0.5 * _LOG_2PI + log_std).sum().expand(mean.shape[0])
        return logp, entropy, value, mean
