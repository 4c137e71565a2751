"""The PPO bot on the official Bot API: every turn the brain decides with the current weights,
the decision is recorded, and at round end one Trajectory goes to the sink (the learner link).

Terminal or truncated: a round that ends naturally (win, loss or the server's round end)
is terminal (value 0 after it); a game that is aborted or a lost connection truncates the round
and the learner bootstraps from the critic's value of the last observation.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from robocode_tank_royale.bot_api.bot_info import BotInfo

from tankrl.actor.botapi_shell import DeciderBot, ShellHooks
from tankrl.actor.brain import Brain
from tankrl.actor.policy_slot import PolicySlot
from tankrl.actor.recorder import TrajectoryRecorder
from tankrl.actor.reward import round_end_reward
from tankrl.shared.botview import BotView
from tankrl.shared.intent import Intent
from tankrl.shared.wire import InfoValue, Trajectory

Sink = Callable[[Trajectory], None]
WeightsPoll = Callable[[], None]

_ONE = np.ones(1, dtype=np.bool_)


class PPOTurns:
    """The per-turn logic of one hosted PPO bot (B = 1), apart from the Bot API shell."""

    def __init__(
        self,
        slot: PolicySlot,
        bot_id: str,
        sink: Sink | None = None,
        seed: int = 0,
        deterministic: bool = False,
    ) -> None:
        self.slot = slot
        self.brain = Brain(slot.contract, 1)
        self.recorder = TrajectoryRecorder(slot.contract, [bot_id])
        self.sink = sink
        self.rng = np.random.default_rng(seed)
        self.deterministic = deterministic
        self.rounds = 0
        self.wins = 0
        self.turns = 0
        self.swaps = 0
        self.opponent = ""
        self._last_obs: np.ndarray | None = None
        self._score_seen = 0.0
        self._energy_dealt = 0.0
        self._energy_taken = 0.0

    def start_round(self) -> None:
        self.brain.reset(_ONE)
        self._last_obs = None
        self._energy_dealt = self._energy_taken = 0.0

    def turn(self, view: BotView, live: bool) -> Intent | None:
        """Observe a tick (reward for the previous decision); decide when the tick is live."""
        obs = self.brain.observe(view)
        self.recorder.add_reward(_ONE, self.brain.last_reward.astype(np.float32))
        self._last_obs = obs
        self._energy_dealt += float(view.bullet_hit_damage[0])
        self._energy_taken += float(view.hit_by_bullet_damage[0])
        if not live:
            return None
        if self.slot.swap():
            self.swaps += 1
        d = self.brain.decide(view, obs, self.slot.policy, self.rng, self.deterministic)
        self.recorder.add_decision(_ONE, d.obs, d.actions, d.logprobs, d.values, self.slot.version)
        self.turns += 1
        return d.intent

    def end_round(self, total_score: float | None, won: bool, interrupted: bool) -> None:
        """Close the round: add the round score / 100 (natural end) or bootstrap (interrupted)."""
        info: dict[str, InfoValue] = {
            "kind": "hosted",
            "opponent": self.opponent,
            "won": won,
            "damage_dealt": self._energy_dealt,
            "damage_taken": self._energy_taken,
        }
        bootstrap = np.zeros(1, dtype=np.float32)
        if not interrupted and total_score is not None:
            score = total_score - self._score_seen
            self._score_seen = total_score
            info["score"] = score
            self.recorder.add_reward(_ONE, round_end_reward(np.array([score])).astype(np.float32))
        elif self._last_obs is not None:
            bootstrap = self.slot.policy.value(self._last_obs)
        trajectories = self.recorder.end_round(
            _ONE, np.array([interrupted]), bootstrap.astype(np.float32), [info]
        )
        self.rounds += 1
        self.wins += int(won)
        if self.sink is not None:
            for t in trajectories:
                self.sink(t)


class PPOHooks(ShellHooks):
    """Connects the shell's callbacks to PPOTurns."""

    def __init__(self, turns: PPOTurns, poll: WeightsPoll | None = None) -> None:
        self.turns = turns
        self.poll = poll
        self.won_round = False

    def on_round_start(self, round_number: int) -> None:
        self.turns.start_round()
        self.won_round = False
        if self.poll is not None:
            self.poll()

    def on_view(self, view: BotView, live: bool) -> None:
        if view.enemy_died[0] and view.energy[0] >= 0.0:
            self.won_round = True

    def on_round_end(self, round_number: int, results: object) -> None:
        score = float(getattr(results, "total_score", 0.0))
        self.turns.end_round(score, self.won_round, interrupted=False)
        if self.poll is not None:
            self.poll()


class PPOBot(DeciderBot):
    """The hosted PPO bot: PPOTurns decides (never on a tick that is not live)."""

    def __init__(self, turns: PPOTurns, hooks: PPOHooks, **kwargs: object) -> None:
        super().__init__(decider=_NoDecider(), hooks=hooks, **kwargs)  # type: ignore[arg-type]
        self.turns_logic = turns
        # the API does not route GameAbortedEvent to a bot method; subscribe to it directly
        self._internals.bot_event_handlers.on_game_aborted.subscribe(
            lambda _event: self._interrupted()
        )

    def decide_turn(self, view: BotView, live: bool) -> Intent | None:
        return self.turns_logic.turn(view, live)

    def _interrupted(self) -> None:
        """An aborted game or a lost connection: truncate the open round (bootstrap)."""
        with self._lock:
            if self.turns_logic.recorder.start[0] >= 0:
                self.turns_logic.end_round(None, False, interrupted=True)

    def on_disconnected(self, disconnected_event: object) -> None:  # type: ignore[override]
        self._interrupted()
        super().on_disconnected(disconnected_event)


class _NoDecider:
    """The PPO bot decides in decide_turn; the shell's decider slot stays unused."""

    def reset_round(self, mask: np.ndarray) -> None:
        pass

    def decide(self, view: BotView) -> Intent:
        raise RuntimeError("PPOBot decides in decide_turn")


def file_sink(path: str) -> Sink:
    """A sink that appends each trajectory (its wire bytes, as a msgpack bin) to a file."""
    import msgpack

    def write(trajectory: Trajectory) -> None:
        with open(path, "ab") as f:
            f.write(msgpack.packb(trajectory.encode(), use_bin_type=True))

    return write


def read_trajectory_file(path: str) -> list[Trajectory]:
    """The trajectories a file_sink wrote."""
    import msgpack

    with open(path, "rb") as f:
        return [Trajectory.decode(b) for b in msgpack.Unpacker(f, raw=False)]


@dataclass(frozen=True)
class BotOptions:
    """How to start one hosted PPO bot (see `tankrl bot --help`)."""

    server_url: str = "ws://localhost:7654"
    secret: str | None = None
    weights: str | None = None
    learner: str | None = None
    ray_address: str = "auto"
    contract: str = "v2"
    name: str = "TankRL"
    seed: int | None = None
    deterministic: bool = False
    sample: str | None = None
    """With `deterministic`: the dims still sampled (comma-separated, `all` or `none`); None:
    the policy's own `actors.play_sampled`."""
    record_trajectories: str | None = None
    exit_on_game_end: bool = True
    max_buffered_rounds: int = 16


def load_slot(
    weights: str | None, contract_name: str, seed: int, sample: str | None = None
) -> PolicySlot:
    """A PolicySlot with the weights at `weights` (package, policy dir or run dir) or a random
    initial policy of `contract_name`; `sample` as in BotOptions."""
    from pathlib import Path

    from tankrl.shared.contracts import get_contract
    from tankrl.shared.policy_files import play_sampled_of
    from tankrl.shared.policy_package import load_policy

    if weights is None:
        contract = get_contract(contract_name)
        sampled = play_sampled_of({}, contract, sample)
        return PolicySlot(contract, seed=seed, play_sampled=sampled)
    contract, tensors, manifest = load_policy(Path(weights))
    sampled = play_sampled_of(manifest, contract, sample)
    version = int(manifest.get("policy_version", 0))
    return PolicySlot(contract, tensors, version, play_sampled=sampled)


def bot_info(name: str) -> BotInfo:
    return BotInfo(
        name=name,
        version="1.0",
        authors=["tankrl"],
        description="PPO bot (tankrl)",
        game_types={"1v1", "classic"},
        platform="Python",
        programming_lang="Python 3",
    )


def run_ppo_bot(opts: BotOptions) -> None:
    """Build the bot (weights, learner link, sinks) and play; the process exits at game end."""
    import secrets

    from tankrl.actor.botapi_shell import run_bot

    seed = opts.seed if opts.seed is not None else secrets.randbits(31)
    slot = load_slot(opts.weights, opts.contract, seed, opts.sample)
    sinks: list[Sink] = []
    link = None
    if opts.learner is not None:
        import ray

        from tankrl.actor.learner_link import LearnerLink
        from tankrl.shared.config import RAY_NAMESPACE

        ray.init(
            address=opts.ray_address,
            namespace=RAY_NAMESPACE,
            ignore_reinit_error=True,
            log_to_driver=False,
        )
        link = LearnerLink.by_name(
            opts.learner, slot, namespace=RAY_NAMESPACE, max_buffered=opts.max_buffered_rounds
        )
        link.start()
        sinks.append(link.send)
    if opts.record_trajectories:
        sinks.append(file_sink(opts.record_trajectories))

    def sink(t: Trajectory) -> None:
        for s in sinks:
            s(t)

    turns = PPOTurns(slot, f"{opts.name}-{seed}", sink if sinks else None, seed, opts.deterministic)
    hooks = PPOHooks(turns)
    sampled = ", ".join(slot.play_sampled) or "none"
    actions = f"means, sampled: {sampled}" if opts.deterministic else "sampled"
    print(
        f"{opts.name}: contract {slot.contract.name}, policy_version {slot.version}, "
        f"seed {seed}, actions {actions}, server {opts.server_url}",
        flush=True,
    )
    bot = PPOBot(
        turns,
        hooks,
        bot_info=bot_info(opts.name),
        server_url=opts.server_url,
        server_secret=opts.secret,
        exit_on_game_end=opts.exit_on_game_end,
    )
    if link is not None:
        hooks.on_game_end = lambda results, number_of_rounds: link.stop()  # type: ignore[method-assign]
    run_bot(bot)


ENV_WEIGHTS = "TANKRL_WEIGHTS"
ENV_SEED = "TANKRL_SEED"
ENV_TRAJECTORIES = "TANKRL_TRAJECTORIES"
ENV_DETERMINISTIC = "TANKRL_DETERMINISTIC"
ENV_SAMPLE = "TANKRL_SAMPLE"
ENV_CONTRACT = "TANKRL_CONTRACT"


ENV_LAUNCH_DIR = "TANKRL_LAUNCH_DIR"
"""Set by our booter: where the booting command was started (arena/server/booter.py)."""


def env_path(name: str) -> str | None:
    """A path from the environment variable `name`, a relative one resolved from where the
    command that booted this bot was started (not from the bot's own directory, where it runs)."""
    import os

    value = os.environ.get(name, "").strip()
    if not value:
        return None
    return os.path.join(os.environ.get(ENV_LAUNCH_DIR) or os.getcwd(), os.path.expanduser(value))


def run_from_env() -> None:
    """Entry point of the TankRL bot directory (started like any bot by a booter): weights,
    seed and options come from TANKRL_* environment variables, the server from SERVER_URL.
    A bad setting ends the bot with one line on stderr naming it (exit status 2)."""
    import os
    import sys

    from tankrl.shared.policy_package import PackageError

    seed = os.environ.get(ENV_SEED, "").strip()
    opts = BotOptions(
        server_url=os.environ.get("SERVER_URL", "ws://localhost:7654"),
        secret=os.environ.get("SERVER_SECRET"),
        weights=env_path(ENV_WEIGHTS),
        contract=os.environ.get(ENV_CONTRACT, "v2"),
        name=os.environ.get("BOT_NAME", "TankRL"),
        seed=int(seed, 0) if seed else None,
        deterministic=os.environ.get(ENV_DETERMINISTIC, "") in ("1", "true", "yes"),
        sample=os.environ.get(ENV_SAMPLE) or None,
        record_trajectories=env_path(ENV_TRAJECTORIES),
    )
    try:
        run_ppo_bot(opts)
    except (PackageError, OSError, ValueError) as error:
        print(f"{opts.name}: {ENV_WEIGHTS}: {error}", file=sys.stderr, flush=True)
        sys.exit(2)
