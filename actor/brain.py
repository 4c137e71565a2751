"""The per-turn brain of B bots of one contract: tracker -> observation -> policy -> intent.

Takes one BotView per tick (from the native engine or the Bot API shell) and a NumpyPolicy;
returns a Decision (observation, raw actions, log-probs, values, intent) for the trajectory
recorder and the host. The intent answers tick N and is applied in turn N + 1 (the host's job).
A view whose geometry (CHECKED_VIEW_FIELDS, or the enemy estimate made from its scan) is not
finite raises ValueError here, once per turn; the math inside the brain then runs unchecked.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tankrl.actor.actions import ActionDecoder
from tankrl.actor.observation import ObservationEncoder
from tankrl.actor.reward import turn_reward
from tankrl.actor.tracker import EnemyTracker
from tankrl.shared.botview import BotView
from tankrl.shared.contracts import Contract
from tankrl.shared.finite import require_finite_fields
from tankrl.shared.intent import Intent
from tankrl.shared.policy import NumpyPolicy

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]

CHECKED_VIEW_FIELDS = (
    "x", "y", "direction", "gun_direction", "radar_direction", "speed", "arena_width",
    "arena_height",
)  # fmt: skip
"""The BotView fields the tracker, encoder and decoder feed to the angle and movement math."""

_FLAG_DEFAULTS = (True, True, True, False, False)
"""The intent's adjust_gun_for_body_turn, adjust_radar_for_gun_turn, adjust_radar_for_body_turn,
rescan and fire_assist."""


@dataclass
class Decision:
    """One turn's decision for B bots; every array is owned by the caller."""

    obs: F32
    """[B, obs] the observation the policy saw."""
    actions: F32
    """[B, act] raw sampled actions (pre-squash)."""
    logprobs: F32
    """[B] log-probabilities of `actions`."""
    values: F32
    """[B] critic values of `obs`."""
    intent: Intent
    """The intent to send for the next turn."""


class Brain:
    """Tracker, encoder, decoder and reward state of B bots playing one contract."""

    def __init__(
        self, contract: Contract, n_bots: int, arena_width: float = 800, arena_height: float = 600
    ):
        self.contract, self.n_bots = contract, n_bots
        self.tracker = EnemyTracker(n_bots, arena_width, arena_height)
        self.encoder = ObservationEncoder(contract, n_bots)
        self.decoder = ActionDecoder(contract, n_bots)
        self.last_reward: F64 = np.zeros(n_bots)
        """[B] reward of the transition that ended at the last observed tick (0 at round start)."""
        self._my_energy = np.zeros(n_bots)
        self._enemy_energy = np.zeros(n_bots)
        self._has_previous = np.zeros(n_bots, dtype=np.bool_)
        self._policy_checked: NumpyPolicy | None = None
        self._flags = np.repeat(np.array(_FLAG_DEFAULTS)[:, None], n_bots, axis=1)

    @property
    def nonfinite_actions(self) -> int:
        """How many bot-turns had a non-finite network output (replaced by the safe action)."""
        return self.decoder.nonfinite_total

    @property
    def nonfinite_per_bot(self) -> I64:
        """[B] the same count per bot."""
        return self.decoder.nonfinite_per_bot

    def reset(self, mask: Bool) -> None:
        """Start a new round for the bots in `mask`."""
        self.tracker.reset(mask)
        self.encoder.reset(mask)
        self.decoder.targets.reset(mask)
        self._has_previous[mask] = False

    def observe(self, view: BotView) -> F32:
        """Update the tracker, reward and radar from one tick; return the observation [B, obs].

        The returned float32 array is a fresh copy the caller owns (Fortran-ordered, which the
        policy's matmul takes as is; np.ascontiguousarray gives row-major if needed).
        Raises ValueError naming the field if the view's geometry is not finite.
        """
        if view.x.shape[0] != self.n_bots:
            raise ValueError(f"view has {view.x.shape[0]} bots, this brain {self.n_bots}")
        require_finite_fields(view, CHECKED_VIEW_FIELDS, "view")
        tracker = self.tracker
        tracker.update(view, aim_radar=False)
        require_finite_fields(tracker, ("x", "y"), "enemy estimate")  # made from the scan
        reward = turn_reward(view.energy, self._my_energy, tracker.energy, self._enemy_energy)
        self.last_reward = np.multiply(reward, self._has_previous, out=reward)
        self._my_energy[:] = view.energy
        self._enemy_energy[:] = tracker.energy
        self._has_previous.fill(True)
        obs = self.encoder.encode(view, tracker, self.decoder.targets)
        geometry = self.encoder.enemy_geometry() or tracker.gun_geometry(view)
        tracker.aim_radar(view, *geometry)  # the observation computed the radar's geometry
        return obs.copy(order="K")

    def decide(
        self,
        view: BotView,
        obs: F32,
        policy: NumpyPolicy,
        rng: np.random.Generator,
        deterministic: bool = False,
    ) -> Decision:
        """Sample actions for `obs` and turn them into the intent for the next turn."""
        if policy is not self._policy_checked:
            self.contract.require(policy.contract.sha256, "policy")
            self._policy_checked = policy
        actions, logprobs, values = policy.act(obs, rng, deterministic)
        return Decision(obs, actions, logprobs, values, self.act(view, actions))

    def act(self, view: BotView, actions: F32) -> Intent:
        """The intent for raw actions [B, act] answering `view` (the tick they were chosen on,
        already passed to `observe`); for hosts whose actions come from elsewhere, e.g. a
        Gymnasium agent."""
        motor = self.decoder.decode(actions, view, self.tracker)
        flags = self._flags.copy()  # one copy for the five flag rows the intent owns
        return Intent(
            target_speed=motor.target_speed,
            turn_rate=motor.turn_rate,
            gun_turn_rate=motor.gun_turn_rate,
            radar_turn_rate=self.tracker.radar_turn_rate().copy(),
            firepower=motor.firepower,
            adjust_gun_for_body_turn=flags[0],
            adjust_radar_for_gun_turn=flags[1],
            adjust_radar_for_body_turn=flags[2],
            rescan=flags[3],
            fire_assist=flags[4],
        )

    def step(
        self,
        view: BotView,
        policy: NumpyPolicy,
        rng: np.random.Generator,
        deterministic: bool = False,
    ) -> Decision:
        """observe + decide: the whole turn."""
        return self.decide(view, self.observe(view), policy, rng, deterministic)
