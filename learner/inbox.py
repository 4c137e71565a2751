"""The learner's inbox: staleness rules between decoded trajectories and the training pass.

Input: decoded Trajectory messages with the learner's current policy_version; output: the queued
rounds `take()` hands to the trainer, plus counters by drop reason and lag/queue statistics.
Pure and single-threaded: the service holds its lock around every call.

Rules (architecture.md, "Staleness and versions"):
- the contract id must be this run's (`contract`: rejected, naming both ids), and the arrays must
  have its widths and at least one turn (`invalid`);
- a round played more than `max_policy_lag` versions ago is dropped on arrival (`lag`);
- at most one untrained round per bot: a newer round_id replaces the queued one (`stale_pass`);
  a round_id not newer than one already queued or trained for that bot is dropped (`stale_round`);
- a pass is due at `min_turns` queued, or as soon as a round was replaced: every bot then has a
  round waiting, so waiting longer only loses rounds (short rounds from few bots never add up).
"""

from collections import Counter
from dataclasses import dataclass

from tankrl.shared.contracts import Contract, ContractError
from tankrl.shared.wire import Trajectory

DROP_REASONS = ("invalid", "contract", "lag", "stale_pass", "stale_round")
"""Every reason a round does not reach a training pass (`invalid`: failed wire validation)."""


@dataclass(frozen=True)
class Verdict:
    """What happened to one offered round."""

    accepted: bool
    reason: str = ""
    """Empty when accepted; otherwise one of DROP_REASONS."""
    detail: str = ""
    """A sentence for the sender, e.g. the ContractError text."""
    replaced_round: int | None = None
    """The round_id this one replaced (counted as a stale pass), if any."""


@dataclass(frozen=True)
class LagStats:
    """Policy lag (current version - played version) over a set of rounds."""

    min: int
    mean: float
    max: int

    @classmethod
    def of(cls, lags: list[int]) -> "LagStats | None":
        if not lags:
            return None
        return cls(min(lags), sum(lags) / len(lags), max(lags))


class Inbox:
    """Queued untrained rounds, one per bot at most, with drop counters."""

    def __init__(self, contract: Contract, max_policy_lag: int):
        self.contract = contract
        self.max_policy_lag = max_policy_lag
        self.dropped: Counter[str] = Counter({r: 0 for r in DROP_REASONS})
        self.accepted = 0
        self._queued: dict[str, Trajectory] = {}
        self._newest_round: dict[str, int] = {}
        self._replaced = 0  # queued rounds replaced since the last take()
        self.max_version_seen = -1

    def reject(self, reason: str, detail: str) -> Verdict:
        """Count a round refused before the staleness rules (e.g. `invalid` bytes)."""
        self.dropped[reason] += 1
        return Verdict(False, reason, detail)

    def offer(self, tr: Trajectory, current_version: int) -> Verdict:
        """Apply the rules to one decoded round; queue it or drop it (counted)."""
        try:
            self.contract.require(tr.contract_sha256, f"round {tr.round_id} of bot {tr.bot_id}")
        except ContractError as e:
            return self.reject("contract", str(e))
        if problem := self._shape_problem(tr):
            return self.reject("invalid", f"round {tr.round_id} of bot {tr.bot_id}: {problem}")
        lag = current_version - tr.policy_version
        if lag > self.max_policy_lag:
            return self.reject(
                "lag",
                f"round {tr.round_id} of bot {tr.bot_id} was played by policy_version "
                f"{tr.policy_version}, {lag} versions behind {current_version} "
                f"(max_policy_lag {self.max_policy_lag})",
            )
        newest = self._newest_round.get(tr.bot_id)
        if newest is not None and tr.round_id <= newest:
            return self.reject(
                "stale_round",
                f"round {tr.round_id} of bot {tr.bot_id} is not newer than round {newest}",
            )
        replaced = self._queued.pop(tr.bot_id, None)  # re-inserted last: arrival order
        if replaced is not None:
            self.dropped["stale_pass"] += 1
            self._replaced += 1
        self._queued[tr.bot_id] = tr
        self._newest_round[tr.bot_id] = tr.round_id
        self.max_version_seen = max(self.max_version_seen, tr.policy_version)
        self.accepted += 1
        return Verdict(True, replaced_round=None if replaced is None else replaced.round_id)

    def _shape_problem(self, tr: Trajectory) -> str:
        """Why the arrays do not fit the contract, or "" (wire decoding checked the rest)."""
        c = self.contract
        if tr.turns == 0:
            return "no turns"
        if tr.obs.shape[1] != c.obs_size or tr.actions.shape[1] != c.action_size:
            return (
                f"obs/actions are {tr.obs.shape[1]}/{tr.actions.shape[1]} wide, contract "
                f"{c.name} has {c.obs_size}/{c.action_size}"
            )
        return ""

    @property
    def depth(self) -> int:
        """Rounds waiting for a training pass."""
        return len(self._queued)

    @property
    def queued_turns(self) -> int:
        return sum(tr.turns for tr in self._queued.values())

    def pass_due(self, min_turns: int) -> bool:
        """Whether the trainer should take the queue now (see the module's rules)."""
        return bool(self._queued) and (self._replaced > 0 or self.queued_turns >= min_turns)

    def queued_lag(self, current_version: int) -> LagStats | None:
        """Lag of the rounds waiting now, relative to `current_version`."""
        return LagStats.of([current_version - tr.policy_version for tr in self._queued.values()])

    def take(
        self, current_version: int, max_turns: int | None = None
    ) -> tuple[list[Trajectory], LagStats | None]:
        """Hand over queued rounds (newest arrivals first, up to `max_turns`) with their lag.

        Rounds that became too old while queued are dropped as `lag`; rounds beyond `max_turns`
        stay queued for the next pass.
        """
        rounds: list[Trajectory] = []
        turns = 0
        self._replaced = 0
        for bot_id, tr in reversed(list(self._queued.items())):
            if current_version - tr.policy_version > self.max_policy_lag:
                self.dropped["lag"] += 1
                del self._queued[bot_id]
            elif max_turns is None or not rounds or turns + tr.turns <= max_turns:
                rounds.append(tr)
                turns += tr.turns
                del self._queued[bot_id]
        rounds.reverse()
        return rounds, LagStats.of([current_version - tr.policy_version for tr in rounds])
