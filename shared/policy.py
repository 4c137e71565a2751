"""The numpy policy: actor and critic MLPs, Gaussian sampling, and the fixed tensor names.

Actor: obs -> H -> tanh -> H -> tanh -> action means; critic: obs -> H -> tanh -> H -> tanh -> 1;
a state-independent log-std floored at LOG_STD_FLOOR. Names follow torch's nn.Sequential so the
learner's model, the `.npy` files and this forward pass share one naming. Bots run this (no torch).

Playing for keeps (`act(..., deterministic=True)`) gives the action means, except for the dims
named in the policy's `play_sampled`, which are sampled at the learned std: a bot that moves at
random where its gun does not is harder for an opponent that learns its movement to hit.
"""

import math
import threading
from collections.abc import Collection, Mapping

import numpy as np
import numpy.typing as npt

from tankrl.shared.contracts import Contract

F32 = npt.NDArray[np.float32]
LOG_STD_FLOOR = -3.0
DEFAULT_HIDDEN = 64
OBS_NORM_CLIP = 10.0
OBS_NORM_EPS = 1e-8
_LOG_2PI = math.log(2.0 * math.pi)
_HALF = np.array(0.5, dtype=np.float32)
"""0.5 as a 0-d float32 array: numpy converts a Python scalar operand on every call, a real cost
at B = 1 (same bits: 0.5 is exact and the arithmetic stays float32)."""

LAYERS = ("0", "2", "4")
"""Indices of the Linear layers inside each nn.Sequential (1 and 3 are the tanh layers)."""

OBS_NORM_TENSORS = ("obs_norm.mean", "obs_norm.var")
"""Optional running observation statistics; when present the forward pass normalises with them."""


class PolicyShapeError(ValueError):
    """Tensors do not match the shapes a contract and hidden size require."""


def tensor_shapes(contract: Contract, hidden: int = DEFAULT_HIDDEN) -> dict[str, tuple[int, ...]]:
    """Every required tensor name with its shape (Linear weights are [out, in], as in torch)."""
    obs, act = contract.obs_size, contract.action_size
    shapes: dict[str, tuple[int, ...]] = {}
    for net, out in (("actor", act), ("critic", 1)):
        dims = [(hidden, obs), (hidden, hidden), (out, hidden)]
        for layer, (o, i) in zip(LAYERS, dims, strict=True):
            shapes[f"{net}.{layer}.weight"] = (o, i)
            shapes[f"{net}.{layer}.bias"] = (o,)
    shapes["log_std"] = (act,)
    return shapes


def hidden_size_of(tensors: Mapping[str, npt.NDArray[np.generic]]) -> int:
    """The hidden width a set of tensors was built with."""
    if "actor.0.weight" not in tensors:
        raise PolicyShapeError("missing tensor actor.0.weight")
    return int(tensors["actor.0.weight"].shape[0])


def check_tensors(contract: Contract, tensors: Mapping[str, npt.NDArray[np.generic]]) -> None:
    """Raise PolicyShapeError unless `tensors` has exactly the contract's names and shapes."""
    expected = tensor_shapes(contract, hidden_size_of(tensors))
    names = set(tensors) - set(OBS_NORM_TENSORS)
    if missing := sorted(set(expected) - names):
        raise PolicyShapeError(f"missing tensors for contract {contract.name}: {missing}")
    if extra := sorted(names - set(expected)):
        raise PolicyShapeError(f"unknown tensors for contract {contract.name}: {extra}")
    present_norm = [n for n in OBS_NORM_TENSORS if n in tensors]
    if present_norm and len(present_norm) != len(OBS_NORM_TENSORS):
        raise PolicyShapeError(f"obs_norm needs both {OBS_NORM_TENSORS}, got {present_norm}")
    for n in present_norm:
        expected[n] = (contract.obs_size,)
    for name, shape in expected.items():
        got = tuple(tensors[name].shape)
        if got != shape:
            raise PolicyShapeError(
                f"{name} has shape {got}, contract {contract.name} needs {shape}"
            )
        if not np.isfinite(np.asarray(tensors[name], dtype=np.float64)).all():
            raise PolicyShapeError(f"{name} holds non-finite values")


def _orthogonal(rng: np.random.Generator, rows: int, cols: int, gain: float) -> F32:
    a = rng.standard_normal((max(rows, cols), min(rows, cols)))
    q, r = np.linalg.qr(a)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return (gain * q[:rows, :cols]).astype(np.float32)


def init_tensors(
    contract: Contract, hidden: int = DEFAULT_HIDDEN, seed: int = 0, log_std_init: float = 0.0
) -> dict[str, F32]:
    """Orthogonal init (gain sqrt(2) hidden, 0.01 actor head, 1.0 critic head), zero biases."""
    rng = np.random.default_rng(seed)
    out: dict[str, F32] = {}
    for name, shape in tensor_shapes(contract, hidden).items():
        if name == "log_std":
            out[name] = np.full(shape, log_std_init, dtype=np.float32)
        elif name.endswith(".bias"):
            out[name] = np.zeros(shape, dtype=np.float32)
        else:
            head = name.endswith(f".{LAYERS[-1]}.weight")
            gain = (0.01 if name.startswith("actor") else 1.0) if head else math.sqrt(2.0)
            out[name] = _orthogonal(rng, shape[0], shape[1], gain)
    return out


SAMPLE_ALL = "all"
SAMPLE_NONE = "none"


def sampled_dims(contract: Contract, names: Collection[str]) -> tuple[str, ...]:
    """`names` as action dims of `contract`, in the contract's order; ValueError naming an
    unknown one and the dims there are."""
    known = [a.name for a in contract.actions]
    if unknown := sorted(set(names) - set(known)):
        raise ValueError(
            f"unknown action dim(s) {', '.join(unknown)} for contract {contract.name}: "
            f"it has {', '.join(known)}"
        )
    return tuple(n for n in known if n in names)


def parse_sampled(contract: Contract, text: str) -> tuple[str, ...]:
    """Comma-separated action dims, or `all` or `none`, as dims of `contract`."""
    text = text.strip()
    if text == SAMPLE_ALL:
        return tuple(a.name for a in contract.actions)
    if text in (SAMPLE_NONE, ""):
        return ()
    return sampled_dims(contract, [n.strip() for n in text.split(",") if n.strip()])


class NumpyPolicy:
    """Forward pass and sampling for a batch of observations [B, obs] (float32)."""

    def __init__(
        self,
        contract: Contract,
        tensors: Mapping[str, npt.NDArray[np.generic]],
        play_sampled: Collection[str] = (),
    ):
        check_tensors(contract, tensors)
        self.contract = contract
        self.play_sampled = sampled_dims(contract, play_sampled)
        """Action dims sampled even when playing for keeps (`act(deterministic=True)`)."""
        self._play_mask: F32 | None = None
        if self.play_sampled:
            mask = [a.name in self.play_sampled for a in contract.actions]
            self._play_mask = np.array(mask, dtype=np.float32)
        self.hidden = hidden_size_of(tensors)
        self.tensors: dict[str, F32] = {
            k: np.ascontiguousarray(v, dtype=np.float32) for k, v in tensors.items()
        }

        def layers(net: str) -> list[tuple[F32, F32]]:
            return [
                (
                    np.ascontiguousarray(self.tensors[f"{net}.{i}.weight"].T),
                    self.tensors[f"{net}.{i}.bias"],
                )
                for i in LAYERS
            ]

        self._actor = layers("actor")
        self._critic = layers("critic")
        self.log_std: F32 = np.maximum(self.tensors["log_std"], np.float32(LOG_STD_FLOOR))
        self.std: F32 = np.exp(self.log_std)
        logp_const = -float(self.log_std.sum()) - 0.5 * _LOG_2PI * len(self.std)
        self._logp_const = np.array(logp_const, dtype=np.float32)  # 0-d: see _HALF
        self._norm: tuple[F32, F32] | None = None
        if OBS_NORM_TENSORS[0] in self.tensors:
            mean, var = (self.tensors[n] for n in OBS_NORM_TENSORS)
            self._norm = (mean, (1.0 / np.sqrt(var + OBS_NORM_EPS)).astype(np.float32))
        self._scratch: dict[int, tuple[F32, F32]] = {}
        self._rows: tuple[int, F32, F32, F32] | None = None

    def normalise(self, obs: F32) -> F32:
        """Apply the frozen observation statistics, if this policy has them."""
        if self._norm is None:
            return obs
        mean, inv_std = self._norm
        x = np.clip((obs - mean) * inv_std, -OBS_NORM_CLIP, OBS_NORM_CLIP)
        return np.asarray(x, dtype=np.float32)

    def _hidden(self, n: int) -> tuple[F32, F32]:
        """Two [n, hidden] scratch arrays, kept per thread: large batches then allocate no
        megabyte-sized temporaries per call (fresh pages cost more than the matmuls)."""
        thread = threading.get_ident()
        bufs = self._scratch.get(thread)
        if bufs is None or bufs[0].shape[0] != n:
            bufs = (
                np.empty((n, self.hidden), dtype=np.float32),
                np.empty((n, self.hidden), dtype=np.float32),
            )
            self._scratch[thread] = bufs
        return bufs

    def _tiled(self, n: int) -> tuple[F32, F32, F32]:
        """The actor's and critic's output biases and the action std repeated to n rows: the
        same per-element sums and products as broadcasting, without numpy's slow loop over a
        6-wide inner dimension (read-only, so one cache for every thread)."""
        rows = self._rows
        if rows is None or rows[0] != n:
            b_actor, b_critic = self._actor[-1][1], self._critic[-1][1]
            rows = (
                n,
                np.tile(b_actor, (n, 1)),
                np.tile(b_critic, (n, 1)),
                np.tile(self.std, (n, 1)),
            )
            self._rows = rows
        return rows[1], rows[2], rows[3]

    def _mlp(self, x: F32, layers: list[tuple[F32, F32]], head_bias: F32) -> F32:
        (w0, b0), (w1, b1), (w2, _) = layers
        h0, h1 = self._hidden(x.shape[0])
        np.tanh(np.add(np.matmul(x, w0, out=h0), b0, out=h0), out=h0)
        np.tanh(np.add(np.matmul(h0, w1, out=h1), b1, out=h1), out=h1)
        out = np.matmul(h1, w2)
        return np.add(out, head_bias, out=out)

    def forward(self, obs: F32) -> tuple[F32, F32]:
        """Action means [B, act] and values [B] for raw observations [B, obs]."""
        x = self.normalise(np.asarray(obs, dtype=np.float32))
        b_actor, b_critic, _ = self._tiled(x.shape[0])
        return self._mlp(x, self._actor, b_actor), self._mlp(x, self._critic, b_critic)[:, 0]

    def value(self, obs: F32) -> F32:
        """Critic values [B] only."""
        x = self.normalise(np.asarray(obs, dtype=np.float32))
        return self._mlp(x, self._critic, self._tiled(x.shape[0])[1])[:, 0]

    def act(
        self, obs: F32, rng: np.random.Generator, deterministic: bool = False
    ) -> tuple[F32, F32, F32]:
        """Sample raw (pre-squash) actions; return (actions [B, act], logprobs [B], values [B]).
        `deterministic`: play for keeps: the means, except the `play_sampled` dims."""
        mean, value = self.forward(obs)
        mask = self._play_mask
        if deterministic and mask is None:
            noise = np.zeros_like(mean)
        elif deterministic and mask is not None:
            noise = rng.standard_normal(mean.shape, dtype=np.float32)
            np.multiply(noise, mask, out=noise)
        else:
            noise = rng.standard_normal(mean.shape, dtype=np.float32)
        # float32 throughout (mean, std, noise and the constants are float32), and
        # each result is a fresh array: no astype copies needed
        actions: F32 = np.multiply(noise, self._tiled(mean.shape[0])[2])
        np.add(mean, actions, out=actions)
        logp: F32 = self._logp_const - _HALF * np.einsum("ij,ij->i", noise, noise)
        return actions, logp, value

    def log_prob(self, obs: F32, actions: F32) -> F32:
        """Log-probabilities [B] of given raw actions under this policy."""
        mean, _ = self.forward(obs)
        z = (actions - mean) / self.std
        return np.asarray(self._logp_const - 0.5 * np.einsum("ij,ij->i", z, z), dtype=np.float32)
