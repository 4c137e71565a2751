"""Policy seats: an opponent seat played by a policy, seeing its own observation through the same
Brain code as our bot (tracker, observation, decoder, controllers), so it plays exactly as a
bot of that contract would. A seat is hosted like a scripted opponent (`reset_round`,
`reset_battle`, `decide(view) -> Intent`): by the native arenas (arena/rules/native.py) and, with
B = 1, by the Bot API shell (actor/botapi_shell.py) as a bot directory.

What chooses the actions is an ActionSource: a frozen policy version (`FrozenPolicy`, means or
samples) or the scripted demonstrator (`Expert`, actor/expert.py).
"""

from collections.abc import Callable
from typing import Protocol

import numpy as np
import numpy.typing as npt

from tankrl.actor.brain import Brain
from tankrl.actor.expert import GotoAimExpert
from tankrl.shared.botview import BotView
from tankrl.shared.contracts import Contract, get_contract
from tankrl.shared.intent import Intent
from tankrl.shared.policy import NumpyPolicy

F32 = npt.NDArray[np.float32]
Bool = npt.NDArray[np.bool_]

EXPERT = "Expert"
"""The demonstrator's seat name, in `--opponents` lists and as a bot directory."""
EXPERT_CONTRACT = "v2"


class ActionSource(Protocol):
    def actions(self, obs: F32) -> F32: ...


class FrozenPolicy:
    """A fixed policy version: the means (`deterministic`) or seeded samples of its actions."""

    def __init__(self, policy: NumpyPolicy, seed: int = 0, deterministic: bool = False) -> None:
        self.policy = policy
        self.rng = np.random.default_rng(seed)
        self.deterministic = deterministic

    def actions(self, obs: F32) -> F32:
        actions, _, _ = self.policy.act(obs, self.rng, self.deterministic)
        return actions


class PolicySeat:
    """n copies (one per arena) of a bot whose actions come from `source`."""

    def __init__(
        self,
        contract: Contract,
        source: ActionSource,
        n: int,
        arena_width: float = 800,
        arena_height: float = 600,
    ) -> None:
        self.n = n
        self.source = source
        self.brain = Brain(contract, n, arena_width, arena_height)

    def reset_round(self, mask: Bool) -> None:
        self.brain.reset(mask)

    def reset_battle(self, mask: Bool) -> None:
        """Nothing to forget: a policy seat does not learn within a battle."""

    def decide(self, view: BotView) -> Intent:
        obs = self.brain.observe(view)
        return self.brain.act(view, self.source.actions(obs))


SeatFactory = Callable[[int, npt.ArrayLike], PolicySeat]
"""(n arenas, their seeds) -> a seat for them, as OPPONENTS' classes are called."""


def expert_seat(width: float = 800, height: float = 600) -> SeatFactory:
    """The demonstrator as a seat (contract v2's observation and controllers)."""
    contract = get_contract(EXPERT_CONTRACT)

    def make(n: int, seeds: npt.ArrayLike) -> PolicySeat:
        return PolicySeat(contract, GotoAimExpert(contract, width, height), n, width, height)

    return make


def frozen_seat(
    contract: Contract,
    tensors: dict[str, npt.NDArray[np.float32]],
    deterministic: bool = False,
    width: float = 800,
    height: float = 600,
) -> SeatFactory:
    """A fixed policy version as a seat, its samples seeded per batch by its arenas' seeds."""
    policy = NumpyPolicy(contract, tensors)

    def make(n: int, seeds: npt.ArrayLike) -> PolicySeat:
        seed = int(np.bitwise_xor.reduce(np.asarray(seeds, dtype=np.uint64).ravel()) >> 1)
        return PolicySeat(contract, FrozenPolicy(policy, seed, deterministic), n, width, height)

    return make
