"""The trajectory recorder: per-turn decisions and rewards of B bots, cut into one Trajectory per
bot per finished round (the wire message the learner receives).

Storage is time-major blocks [block, B, ...] so a turn of B bots is a few array writes; a round of
bot b is gathered from the blocks when it ends. Used by the hosted bot (B = 1) and the native
actor (B arenas).
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tankrl.shared.contracts import Contract
from tankrl.shared.wire import InfoValue, Trajectory

F32 = npt.NDArray[np.float32]
Bool = npt.NDArray[np.bool_]


@dataclass
class _Block:
    obs: F32
    actions: F32
    logprobs: F32
    values: F32
    rewards: F32


class TrajectoryRecorder:
    """Records decisions (obs, raw action, log-prob, value) and the rewards that follow them."""

    def __init__(self, contract: Contract, bot_ids: Sequence[str], block: int = 256) -> None:
        self.contract = contract
        self.bot_ids = list(bot_ids)
        self.n = len(self.bot_ids)
        self.block = block
        self._blocks: dict[int, _Block] = {}
        self._t = 0  # global turn index of the next decision row
        self.start = np.full(self.n, -1, dtype=np.int64)  # first row of each bot's current round
        self.last = np.full(self.n, -1, dtype=np.int64)  # row of each bot's latest decision
        self.round_id = np.zeros(self.n, dtype=np.int64)
        self.version = np.zeros(self.n, dtype=np.int64)  # policy_version of a round's first step

    def _row(self, t: int) -> tuple[_Block, int]:
        k, i = divmod(t, self.block)
        if k not in self._blocks:
            b, n, c = self.block, self.n, self.contract
            self._blocks[k] = _Block(
                np.zeros((b, n, c.obs_size), np.float32),
                np.zeros((b, n, c.action_size), np.float32),
                np.zeros((b, n), np.float32),
                np.zeros((b, n), np.float32),
                np.zeros((b, n), np.float32),
            )
        return self._blocks[k], i

    def add_decision(
        self,
        mask: Bool,
        obs: F32,
        actions: F32,
        logprobs: F32,
        values: F32,
        policy_version: int,
    ) -> None:
        """Record this turn's decision of the bots in `mask` (arrays [B, ...])."""
        blk, i = self._row(self._t)
        blk.obs[i] = obs
        blk.actions[i] = actions
        blk.logprobs[i] = logprobs
        blk.values[i] = values
        blk.rewards[i] = 0.0
        new = mask & (self.start < 0)
        self.start[new] = self._t
        self.version[new] = policy_version
        self.last[mask] = self._t
        self._t += 1

    def add_reward(self, mask: Bool, rewards: F32) -> None:
        """Add rewards (arrays [B]) to each masked bot's latest decision."""
        has = mask & (self.last >= 0)
        for t in np.unique(self.last[has]):
            blk, i = self._row(int(t))
            sel = has & (self.last == t)
            blk.rewards[i, sel] += rewards[sel]

    def end_round(
        self,
        mask: Bool,
        truncated: Bool,
        bootstrap: F32,
        infos: Sequence[dict[str, InfoValue]] | None = None,
    ) -> list[Trajectory]:
        """Close the current round of every bot in `mask` and return their trajectories.

        `truncated` bots end by an interruption (the learner bootstraps from `bootstrap`); the
        others end naturally (terminal, value 0 after the last step). Bots with no recorded
        decision this round produce nothing.
        """
        out = []
        for b in np.nonzero(mask)[0]:
            if self.start[b] >= 0:
                info = dict(infos[int(b)]) if infos is not None else {}
                out.append(self._cut(int(b), bool(truncated[b]), float(bootstrap[b]), info))
            self.start[b] = -1
            self.last[b] = -1
            self.round_id[b] += 1
        self._free()
        return out

    def _cut(
        self, b: int, truncated: bool, bootstrap: float, info: dict[str, InfoValue]
    ) -> Trajectory:
        t0, t1 = int(self.start[b]), int(self.last[b]) + 1
        parts: dict[str, list[npt.NDArray[np.float32]]] = {k: [] for k in _Block.__annotations__}
        t = t0
        while t < t1:
            blk, i = self._row(t)
            j = min(self.block, i + (t1 - t))
            for name in parts:
                parts[name].append(getattr(blk, name)[i:j, b])
            t += j - i
        arrays = {k: np.concatenate(v) for k, v in parts.items()}
        turns = t1 - t0
        terminals = np.zeros(turns, dtype=np.bool_)
        truncations = np.zeros(turns, dtype=np.bool_)
        (truncations if truncated else terminals)[-1] = True
        return Trajectory(
            bot_id=self.bot_ids[b],
            round_id=int(self.round_id[b]),
            policy_version=int(self.version[b]),
            contract_sha256=self.contract.sha256,
            terminals=terminals,
            truncations=truncations,
            bootstrap_value=bootstrap if truncated else 0.0,
            info=info,
            **arrays,
        )

    def _free(self) -> None:
        """Drop blocks no open round needs any more."""
        open_starts = self.start[self.start >= 0]
        oldest = int(open_starts.min()) if open_starts.size else self._t
        for k in [k for k in self._blocks if (k + 1) * self.block <= oldest]:
            del self._blocks[k]
