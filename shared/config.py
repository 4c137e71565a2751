"""The run configuration: one frozen dataclass tree, every field with a one-line help text.

`deploy/` parses it once (CLI flags and named configs) and hands each component the narrowest
section it needs; the resolved tree is saved with every checkpoint (`to_dict` / `from_dict`).
"""

import dataclasses
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tankrl.shared.contracts import CONTRACTS, DEFAULT_CONTRACT, get_contract
from tankrl.shared.game_constants import SAMPLE_BOTS
from tankrl.shared.policy import sampled_dims

T = TypeVar("T")


class ConfigError(ValueError):
    """A configuration value is invalid; the message says how to fix it."""


def option(default: T, help: str) -> T:
    """A dataclass field with a default and a one-line help text for `--help`."""
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class PPOConfig:
    """PPO and GAE hyper-parameters (CleanRL-style defaults; the named configs tune them)."""

    gamma: float = option(0.99, "discount factor")
    gae_lambda: float = option(0.95, "GAE lambda")
    clip_coef: float = option(0.2, "PPO clipped-surrogate epsilon")
    ent_coef: float = option(0.01, "entropy bonus coefficient")
    vf_coef: float = option(0.5, "value-loss coefficient")
    learning_rate: float = option(3e-4, "Adam learning rate (actor and critic)")
    adam_eps: float = option(1e-5, "Adam epsilon")
    max_grad_norm: float = option(0.5, "gradient-norm clip, for the actor and the critic each")
    update_epochs: int = option(4, "PPO epochs per training pass")
    minibatch_size: int = option(64, "turns per minibatch (shuffled)")
    hidden_size: int = option(64, "width of the two hidden layers of actor and critic")
    log_std_init: float = option(
        0.0,
        "log standard deviation of the action Gaussian a fresh run starts with (random init, "
        "warm start or train.init_from)",
    )
    norm_obs: bool = option(False, "normalise observations with running statistics")
    scale_rewards: bool = option(False, "scale rewards by the std of the discounted return")
    norm_advantages: bool = option(True, "normalise advantages per minibatch")
    target_kl: float = option(
        0.0,
        "end a training pass early once a minibatch's approx_kl exceeds 1.5 x this (0 = off)",
    )
    bc_coef: float = option(
        0.0,
        "weight of a behaviour-cloning term that keeps the policy's means near the scripted "
        "demonstrator's actions on rounds against ppo.bc_opponents (0 = off)",
    )
    bc_opponents: tuple[str, ...] = option(
        (), "opponents on whose rounds ppo.bc_coef anchors the policy to the demonstrator"
    )
    min_turns_per_update: int = option(1, "collect at least this many turns before a training pass")
    max_turns_per_update: int = option(
        1_000_000, "train on at most this many turns per pass (newest rounds first)"
    )

    def validate(self) -> None:
        if not 0.0 < self.gamma <= 1.0:
            raise ConfigError(f"ppo.gamma={self.gamma}: use a value in (0, 1]")
        if not 0.0 <= self.gae_lambda <= 1.0:
            raise ConfigError(f"ppo.gae_lambda={self.gae_lambda}: use a value in [0, 1]")
        if self.minibatch_size < 1 or self.update_epochs < 1:
            raise ConfigError("ppo.minibatch_size and ppo.update_epochs must be at least 1")
        if self.target_kl < 0:
            raise ConfigError(f"ppo.target_kl={self.target_kl}: use 0 (off) or a positive value")
        if self.hidden_size < 1:
            raise ConfigError(f"ppo.hidden_size={self.hidden_size}: use a positive width")
        if self.bc_coef < 0:
            raise ConfigError(f"ppo.bc_coef={self.bc_coef}: use 0 (off) or a positive weight")
        if self.bc_coef > 0 and not self.bc_opponents:
            raise ConfigError("ppo.bc_coef > 0 anchors no round: name ppo.bc_opponents")
        if self.min_turns_per_update > self.max_turns_per_update:
            raise ConfigError(
                "ppo.min_turns_per_update exceeds ppo.max_turns_per_update: lower the first"
            )


@dataclass(frozen=True)
class LearnerConfig:
    """The learner service: intake, staleness, checkpoints."""

    max_policy_lag: int = option(8, "drop rounds played more than this many versions ago")
    max_trajectory_bytes: int = option(16 * 1024 * 1024, "reject trajectories larger than this")
    checkpoint_every_rounds: int = option(50, "rotate checkpoint_1..3 every this many rounds")
    keep_checkpoints: int = option(3, "how many rotating checkpoints to keep")
    torch_threads: int = option(1, "torch intra-op threads for the training pass")
    latest_every_s: float = option(
        10.0, "rewrite latest/ at most this often, in seconds (0 = after every pass)"
    )
    tb_every_s: float = option(
        15.0, "write TensorBoard scalars at most this often, in seconds (0 = every pass)"
    )
    round_log: bool = option(
        False, "append every received round's result to <run>/rounds.jsonl (for learning curves)"
    )

    def validate(self) -> None:
        if self.max_policy_lag < 0:
            raise ConfigError("learner.max_policy_lag must be >= 0")
        if self.latest_every_s < 0 or self.tb_every_s < 0:
            raise ConfigError("learner.latest_every_s and tb_every_s must be >= 0 (0 = always)")
        if self.keep_checkpoints < 1 or self.checkpoint_every_rounds < 1:
            raise ConfigError("learner.keep_checkpoints and checkpoint_every_rounds must be >= 1")


@dataclass(frozen=True)
class ArenaConfig:
    """The game setup the training battles use (1v1 preset)."""

    arena_width: int = option(800, "arena width in units")
    arena_height: int = option(600, "arena height in units")
    gun_cooling_rate: float = option(0.1, "gun heat lost per turn")
    max_inactivity_turns: int = option(450, "turns without bullet hits before inactivity zaps")
    turn_timeout_us: int = option(30_000, "hosted turn deadline in microseconds")
    ready_timeout_us: int = option(10_000_000, "hosted ready deadline in microseconds")
    max_turns_per_round: int = option(
        3000, "native env: truncate a round after this many turns (0 = never)"
    )
    battle_rounds: int = option(
        10, "native env: rounds per battle (opponents that learn forget between battles)"
    )

    @property
    def arena_diagonal(self) -> float:
        return float((self.arena_width**2 + self.arena_height**2) ** 0.5)

    def validate(self) -> None:
        if not (400 <= self.arena_width <= 5000 and 400 <= self.arena_height <= 5000):
            raise ConfigError("arena size must be within 400..5000 units on each side")
        if self.battle_rounds < 1:
            raise ConfigError("arena.battle_rounds must be at least 1")
        if self.turn_timeout_us <= 0 or self.ready_timeout_us <= 0:
            raise ConfigError("arena timeouts must be positive microseconds")


DEFAULT_OPPONENTS = SAMPLE_BOTS
NAMED_OPPONENTS = (*SAMPLE_BOTS, "Surfer", "Expert")
"""Every opponent a command or config can name: the ten sample bots, Surfer (wave surfing and a
GuessFactor gun) and Expert (the warm start's scripted demonstrator); each has a bot directory
and plays in the native env (tests/unit/test_opponent_list.py checks they agree)."""

RAY_NAMESPACE = "tankrl"
"""The Ray namespace of every named actor tankrl starts (the learner `tankrl-learner-<run>`), so
`tankrl bot --learner` and other drivers find them by name."""
RAY_TASK_EVENTS = False
"""Whether calls to the learner and the bot actors report Ray task events (the dashboard's task
list and timeline). Off: bots call `submit` and `wait_weights` thousands of times a minute, and
with them on the GCS's memory grew with the length of the run (bench/soak.py: +18.6% from
minute 10 to 60; +0.4% with them off)."""


@dataclass(frozen=True)
class ActorConfig:
    """Bot actors: how many of each kind, and whom they fight."""

    native_actors: int = option(1, "native bot actors (each steps a batch of arenas)")
    native_arenas: int = option(64, "arenas per native bot actor")
    hosted_bots: int = option(1, "hosted bots (official Bot API on our server)")
    opponents: tuple[str, ...] = option(
        DEFAULT_OPPONENTS, "opponents to train against (the ten sample bots, Surfer, Expert)"
    )
    max_buffered_rounds: int = option(
        16, "rounds a bot keeps while the learner is unreachable (oldest dropped)"
    )
    deterministic: bool = option(False, "play the action means instead of sampling")
    play_sampled: tuple[str, ...] = option(
        (),
        "action dims the trained policy samples when it plays for keeps (evaluation, tankrl bot "
        "--deterministic); the others play their means (empty: every dim at its mean)",
    )
    curriculum: str = option(
        "uniform", "native opponent mix: uniform, or adaptive (more arenas where we lose)"
    )
    curriculum_every_turns: int = option(
        20_000, "adaptive curriculum and pool: turns per native arena between re-mixes"
    )
    pool_size: int = option(
        0, "self-play: past policy versions kept as native opponents (0 = no pool)"
    )
    pool_every_versions: int = option(20, "self-play: a version joins the pool this often")
    pool_share: float = option(0.25, "self-play: share of native arenas that play pool members")
    pool_rule: str = option(
        "pfsp",
        "self-play: pfsp (play most the members that still beat us; the one we beat most "
        "leaves), uniform or latest (both: the oldest leaves)",
    )

    def validate(self) -> None:
        if self.curriculum not in ("uniform", "adaptive"):
            raise ConfigError(f"actors.curriculum={self.curriculum!r}: use uniform or adaptive")
        if self.pool_rule not in ("pfsp", "uniform", "latest"):
            raise ConfigError(f"actors.pool_rule={self.pool_rule!r}: use pfsp, uniform or latest")
        if self.pool_size < 0 or self.pool_every_versions < 1 or not 0 <= self.pool_share < 1:
            raise ConfigError(
                "actors.pool_size >= 0, pool_every_versions >= 1 and 0 <= pool_share < 1"
            )
        if self.native_actors < 0 or self.hosted_bots < 0:
            raise ConfigError("actors.native_actors and actors.hosted_bots must be >= 0")
        if self.native_actors + self.hosted_bots == 0:
            raise ConfigError("no bot actors: set actors.native_actors or actors.hosted_bots")
        if not self.opponents:
            raise ConfigError("actors.opponents is empty: name at least one scripted opponent")


@dataclass(frozen=True)
class TrainConfig:
    """When the main job stops and how it reports."""

    minutes: float = option(15.0, "stop after this many minutes of training")
    target_win_rate: float = option(
        0.0, "stop early once the recent win rate against every opponent reaches this (0 = off)"
    )
    target_window: int = option(100, "recent rounds per opponent the target is measured over")
    progress_s: float = option(5.0, "seconds between progress reports")
    hosted_rounds_per_game: int = option(10, "rounds per hosted battle (a new opponent each game)")
    ray_task_events: int = option(
        10_000,
        "task events the embedded Ray instance's GCS keeps for the dashboard (bounds its memory; "
        "a cluster's own setting is RAY_task_events_max_num_task_in_gcs)",
    )
    pretrain_turns: int = option(
        0,
        "warm start a fresh run by behaviour cloning the scripted demonstrator (actor/expert.py, "
        "goto/aim contracts) for this many native arena-turns before PPO (0 = off)",
    )
    pretrain_iterations: int = option(6, "DAgger iterations of the warm start")
    pretrain_arenas: int = option(256, "native arenas the warm start plays at once")
    pretrain_steps: int = option(
        0,
        "minibatch steps of the warm start in all, spread evenly over its iterations "
        "(0 = two passes over the data set per iteration)",
    )
    pretrain_lr: float = option(1e-3, "the warm start's Adam learning rate at its first step")
    pretrain_lr_end: float = option(
        1e-3, "the warm start's learning rate at its last step (log-linear decay from pretrain_lr)"
    )
    pretrain_aim_weight: float = option(
        1.0, "weight of the aim dims in the cloning loss (the others weigh 1)"
    )
    pretrain_max_samples: int = option(
        2_000_000, "the aggregated DAgger data set keeps at most this many (newest) samples"
    )
    distill_turns: int = option(
        0,
        "after PPO, consolidate for this many native arena-turns (0 = off): DAgger on the "
        "policy's own play, copying the scripted demonstrator on the turns against "
        "train.distill_demonstrated and the policy PPO trained on every other turn",
    )
    distill_opponents: tuple[str, ...] = option(
        (),
        "the consolidation's opponents: arena i plays the i-th name, cyclically (repeat a name "
        "to give it more arenas)",
    )
    distill_demonstrated: tuple[str, ...] = option(
        (), "opponents on whose turns the consolidation copies the scripted demonstrator"
    )
    distill_iterations: int = option(6, "DAgger iterations of the consolidation")
    distill_arenas: int = option(128, "native arenas the consolidation plays at once")
    distill_steps: int = option(9000, "minibatch steps of the consolidation in all")
    distill_lr: float = option(3e-4, "the consolidation's Adam learning rate")
    distill_policy_repeat: int = option(
        4, "a turn labelled by the trained policy counts this many times in the consolidation"
    )
    distill_power_weight: float = option(
        5.0, "weight of fire_power in the consolidation loss (aim dims: pretrain_aim_weight)"
    )
    distill_max_samples: int = option(
        420_000, "the consolidation's data set keeps at most this many (newest) samples"
    )
    init_from: str = option(
        "",
        "start a fresh run from this policy (package zip, policy dir or run dir) instead of a "
        "warm start; its action log-std becomes ppo.log_std_init",
    )

    def validate(self) -> None:
        if self.minutes <= 0:
            raise ConfigError(f"train.minutes={self.minutes}: use a positive number of minutes")
        if self.ray_task_events < 1:
            raise ConfigError("train.ray_task_events must be at least 1")
        if not 0.0 <= self.target_win_rate <= 1.0:
            raise ConfigError("train.target_win_rate must be within [0, 1]")
        if self.pretrain_turns < 0 or self.pretrain_iterations < 1 or self.pretrain_arenas < 1:
            raise ConfigError(
                "train.pretrain_turns must be >= 0, pretrain_iterations and pretrain_arenas >= 1"
            )
        if self.pretrain_steps < 0 or self.pretrain_max_samples < 1:
            raise ConfigError("train.pretrain_steps must be >= 0, pretrain_max_samples >= 1")
        if not (self.pretrain_lr > 0 and self.pretrain_lr_end > 0 and self.pretrain_aim_weight > 0):
            raise ConfigError(
                "train.pretrain_lr, pretrain_lr_end and pretrain_aim_weight must be positive"
            )
        if (
            self.distill_turns < 0
            or min(
                self.distill_iterations,
                self.distill_arenas,
                self.distill_steps,
                self.distill_policy_repeat,
                self.distill_max_samples,
            )
            < 1
            or not (self.distill_lr > 0 and self.distill_power_weight > 0)
        ):
            raise ConfigError(
                "train.distill_turns must be >= 0; distill_iterations, _arenas, _steps, "
                "_policy_repeat, _max_samples, _lr and _power_weight must be positive"
            )
        if self.distill_turns > 0 and not self.distill_opponents:
            raise ConfigError(
                "train.distill_turns > 0 plays no arena: name train.distill_opponents"
            )
        stray = sorted(set(self.distill_demonstrated) - set(self.distill_opponents))
        if stray:
            raise ConfigError(
                f"train.distill_demonstrated names {', '.join(stray)}, which "
                "train.distill_opponents does not play"
            )
        if self.progress_s <= 0 or self.target_window < 1 or self.hosted_rounds_per_game < 1:
            raise ConfigError(
                "train.progress_s, train.target_window and hosted_rounds_per_game must be positive"
            )


@dataclass(frozen=True)
class RunConfig:
    """Everything one training run needs."""

    run: str = option("default", "run name: output goes to weights/<run>/")
    contract: str = option(DEFAULT_CONTRACT, "observation/action contract (v1 or v2)")
    seed: int = option(
        0, "base seed: model init and minibatch order; each bot actor derives its own from it"
    )
    weights_dir: str = option("weights", "where run directories live")
    ppo: PPOConfig = field(default_factory=PPOConfig)
    learner: LearnerConfig = field(default_factory=LearnerConfig)
    arena: ArenaConfig = field(default_factory=ArenaConfig)
    actors: ActorConfig = field(default_factory=ActorConfig)
    train: TrainConfig = field(default_factory=TrainConfig)

    def validate(self) -> "RunConfig":
        if self.contract not in CONTRACTS:
            raise ConfigError(f"contract={self.contract!r}: use one of {', '.join(CONTRACTS)}")
        if not self.run or "/" in self.run or self.run.startswith("."):
            raise ConfigError(f"run={self.run!r}: use a plain directory name")
        self.ppo.validate()
        self.learner.validate()
        self.arena.validate()
        self.actors.validate()
        self.train.validate()
        try:
            sampled_dims(get_contract(self.contract), self.actors.play_sampled)
        except ValueError as e:
            raise ConfigError(f"actors.play_sampled: {e}") from None
        return self

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunConfig":
        """Rebuild a config; unknown keys are an error naming them."""
        return _build(cls, data, "")


def _build(cls: type[T], data: dict[str, Any], prefix: str) -> T:
    known = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    if unknown := sorted(set(data) - set(known)):
        raise ConfigError(f"unknown config keys: {', '.join(prefix + k for k in unknown)}")
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        f = known[name]
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else None
        if dataclasses.is_dataclass(default) and isinstance(value, dict):
            kwargs[name] = _build(type(default), value, f"{prefix}{name}.")
        elif isinstance(value, list):
            kwargs[name] = tuple(value)
        else:
            kwargs[name] = value
    return cls(**kwargs)
