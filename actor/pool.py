"""The opponent pool for self-play: past versions of the policy, kept as frozen weights, that
native arenas play as opponents (actor/policy_seat.py), and the rule that picks them.

A version enters when the bot actor has played `every_versions` versions past the newest
member; with the pool full, one member leaves by the rule. Rules (config `actors.pool_rule`):
- `pfsp` (prioritised fictitious self-play): members are sampled in proportion to
  (1 - our recent win rate against them)^2, so the versions that still beat us are played
  most; the member we beat most often leaves first.
- `uniform`: every member alike; the oldest leaves first.
- `latest`: the newer a member, the more often it is played (weight = its rank); the oldest
  leaves first.
Members are named `v<policy_version>` (the opponent name in trajectories, progress and plots).
Pure: no Ray; the native bot actor offers versions and records results.
"""

import re
from collections import deque
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

RULES = ("pfsp", "uniform", "latest")
MEMBER_NAME = re.compile(r"v\d+")
"""How members are named (`Member.name`); no scripted opponent's name matches it."""
RECENT = 50
"""Results per member that its win rate is taken over."""
MIN_RESULTS = 10
"""A member needs this many results before pfsp may choose it to leave."""

Tensors = dict[str, npt.NDArray[np.float32]]


@dataclass
class Member:
    version: int
    tensors: Tensors
    results: deque[bool] = field(default_factory=lambda: deque(maxlen=RECENT))

    @property
    def name(self) -> str:
        return f"v{self.version}"  # matches MEMBER_NAME

    @property
    def win_rate(self) -> float:
        """Our recent win rate against this member (0.5 before any result)."""
        return sum(self.results) / len(self.results) if self.results else 0.5


class OpponentPool:
    def __init__(self, capacity: int, every_versions: int, rule: str = "pfsp", seed: int = 0):
        if rule not in RULES:
            raise ValueError(f"unknown pool rule {rule!r}; known: {', '.join(RULES)}")
        if capacity < 1 or every_versions < 1:
            raise ValueError("a pool needs capacity >= 1 and every_versions >= 1")
        self.capacity, self.every, self.rule = capacity, every_versions, rule
        self.members: dict[str, Member] = {}
        self.rng = np.random.default_rng(seed)
        self.left: list[str] = []
        """Names of the members that have left, oldest first."""

    def offer(self, version: int, tensors: Tensors) -> bool:
        """Take `version` in if it is `every_versions` past the newest member; True if taken."""
        newest = max((m.version for m in self.members.values()), default=None)
        if newest is not None and version < newest + self.every:
            return False
        if newest is None and version < self.every:
            return False  # the first member is the policy after some learning, not its start
        member = Member(version, {k: v.copy() for k, v in tensors.items()})
        self.members[member.name] = member
        while len(self.members) > self.capacity:
            leaving = self._leaving()
            del self.members[leaving]
            self.left.append(leaving)
        return True

    def _leaving(self) -> str:
        members = list(self.members.values())
        if self.rule == "pfsp":
            judged = [m for m in members[:-1] if len(m.results) >= MIN_RESULTS]
            if judged:
                return max(judged, key=lambda m: (m.win_rate, -m.version)).name
        return min(members, key=lambda m: m.version).name

    def weights(self) -> npt.NDArray[np.float64]:
        """The sampling weight of each member, in `members` order (sum 1)."""
        members = list(self.members.values())
        if self.rule == "pfsp":
            w = np.array([(1.0 - m.win_rate) ** 2 + 1e-3 for m in members])
        elif self.rule == "latest":
            w = np.argsort(np.argsort([m.version for m in members])) + 1.0
        else:
            w = np.ones(len(members))
        return np.asarray(w / w.sum(), dtype=np.float64)

    def sample(self, k: int) -> list[str]:
        """k member names drawn by the rule (with replacement); [] when the pool is empty."""
        if not self.members or k <= 0:
            return []
        names = list(self.members)
        picks = self.rng.choice(len(names), size=k, p=self.weights())
        return [names[i] for i in picks]

    def record(self, name: str, won: bool) -> None:
        """A finished round against member `name` (ignored if it has left)."""
        member = self.members.get(name)
        if member is not None:
            member.results.append(won)

    def summary(self) -> dict[str, list[float]]:
        """name -> [our recent win rate, results] of every member, oldest first."""
        return {m.name: [m.win_rate, len(m.results)] for m in self.members.values()}
