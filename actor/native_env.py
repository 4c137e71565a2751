"""NativeEnv: B arenas of the native engine seen through the brain: observations from the
contract's encoder, raw actions through its decoder and controllers, rewards from actor/reward.py.

Auto-reset follows Gymnasium's next-step mode: the step after a round ended returns the first
observation of the next round with reward 0 (the action for that arena is ignored, as the server
discards intents sent before turn 1). `gym_env.py` wraps it in the Gymnasium interfaces.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tankrl.actor.brain import Brain
from tankrl.actor.policy_seat import EXPERT, SeatFactory, expert_seat
from tankrl.actor.reward import round_end_reward
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.rules.native import NativeArenas, RoundOutcome, native_setup
from tankrl.shared.config import ArenaConfig
from tankrl.shared.contracts import Contract, get_contract

F32 = npt.NDArray[np.float32]
Bool = npt.NDArray[np.bool_]


@dataclass
class StepResult:
    obs: F32  # [S*B, obs] (S learner seats, seat-major)
    rewards: F32  # [S*B]
    terminated: Bool  # [S*B] round ended naturally at this tick
    truncated: Bool  # [S*B] round cut at max_turns_per_round
    started: Bool  # [S*B] this observation is turn 1 of a new round


def setup_from(arena: ArenaConfig) -> GameSetup:
    return native_setup(
        arena.arena_width, arena.arena_height, arena.gun_cooling_rate, arena.max_inactivity_turns
    )


class NativeEnv:
    """The learner-facing native env: seat 0 (and seat 1 in self-play) played through the brain."""

    def __init__(
        self,
        n_arenas: int,
        contract: Contract | str = "v2",
        opponents: Sequence[str] | None = ("SpinBot",),
        arena: ArenaConfig | None = None,
        seed: int = 0,
        seats: Mapping[str, SeatFactory] | None = None,
    ) -> None:
        """`opponents` name scripted opponents, `Expert` (the demonstrator's seat) or any of
        `seats` (e.g. past policy versions); None is self-play (both seats the caller's)."""
        self.contract = get_contract(contract) if isinstance(contract, str) else contract
        cfg = arena or ArenaConfig()
        known = {EXPERT: expert_seat(cfg.arena_width, cfg.arena_height), **(seats or {})}
        self.arenas = NativeArenas(
            n_arenas,
            opponents,
            setup_from(cfg),
            seed,
            cfg.max_turns_per_round,
            cfg.battle_rounds,
            known,
        )
        self.n_arenas = n_arenas
        self.seats = self.arenas.learner_seats
        self.brains = [
            Brain(self.contract, n_arenas, cfg.arena_width, cfg.arena_height) for _ in self.seats
        ]
        self.num_envs = n_arenas * len(self.seats)

    @property
    def opponent_names(self) -> npt.NDArray[np.str_]:
        return self.arenas.opponent_names

    def reset(self) -> F32:
        """Start every arena fresh; return the observations of tick 1."""
        for brain in self.brains:
            brain.reset(np.ones(self.n_arenas, dtype=np.bool_))
        self.arenas.reset()
        return self._observe().obs

    def step(self, actions: F32) -> StepResult:
        """Apply raw actions [S*B, act] (answering the last observations) and play one turn."""
        actions = np.asarray(actions, dtype=np.float32).reshape(len(self.seats), self.n_arenas, -1)
        intents = [
            brain.act(self.arenas.views[seat], actions[k])
            for k, (seat, brain) in enumerate(zip(self.seats, self.brains, strict=True))
        ]
        self.arenas.step(intents)
        return self._observe()

    def _observe(self) -> StepResult:
        a = self.arenas
        obs, rewards = [], []
        for seat, brain, outcome in zip(self.seats, self.brains, a.outcomes, strict=True):
            if a.round_started.any():
                brain.reset(a.round_started)
            obs.append(brain.observe(a.views[seat]))
            r = brain.last_reward + np.where(a.ended, round_end_reward(outcome.score), 0.0)
            rewards.append(np.where(a.round_started, 0.0, r).astype(np.float32))
        k = len(self.seats)
        return StepResult(
            obs=np.concatenate(obs) if k > 1 else obs[0],
            rewards=np.concatenate(rewards) if k > 1 else rewards[0],
            terminated=np.tile(a.ended, k),
            truncated=np.tile(a.truncated, k),
            started=np.tile(a.round_started, k),
        )

    def outcomes(self) -> list[RoundOutcome]:
        """Per learner seat: facts of the rounds that ended or were truncated at this tick."""
        return self.arenas.outcomes
