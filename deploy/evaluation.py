"""The shells of `tankrl evaluate`: play one policy against scripted opponents and return per-round
records (deploy/eval_stats.py) for the report.

Hosted: per opponent battles of at most `battle_rounds` rounds (more, smaller ones when --jobs
exceeds the battles) of the TankRL bot directory against the opponent's bot directory on an
embedded server, observed per round; an opponent that learns (Surfer) keeps what it learned for
one battle, in both forms (natively `battle_rounds` is the engine's battle length); up to
`jobs` battles run at once, each in its own thread and event loop, and each bot gets the weights
through its own environment. Native: B arenas of the in-process engine per opponent; every arena
plays a fixed quota of rounds, so long rounds are not under-represented.
"""

import asyncio
import hashlib
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tankrl.deploy.eval_stats import RoundRecord

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from tankrl.arena.rules.native import RoundOutcome
    from tankrl.arena.server.battle import BattleResult, BattleSpec
    from tankrl.deploy.eval_motion import RoundMotion
    from tankrl.shared.contracts import Contract

Progress = Callable[[str], None]
PPO_BOT = "TankRL"
"""The PPO bot directory under actor/bots/."""
PROGRESS_EVERY_S = 10.0


@dataclass(frozen=True)
class EvalOptions:
    policy: Path
    """The resolved package zip, policy dir or run dir."""
    opponents: tuple[str, ...]
    rounds: int
    """Rounds per opponent."""
    seed: int = 0
    sampled: tuple[str, ...] = ()
    """Action dims played sampled (at the learned std); the others play their means."""
    motion: bool = False
    jobs: int = 2
    """Hosted battles at once."""
    turn_timeout_us: int = 1_000_000
    arenas_per_opponent: int = 64
    """Native: at most this many arenas per opponent (fewer when whole battles need fewer)."""
    max_turns_per_round: int = 5000
    """Native: a round longer than this is cut and counted as not won."""
    log_dir: Path | None = None
    """Hosted: keep the bots' output here (default: a temporary dir)."""
    battle_rounds: int = 10
    """Rounds per battle: opponents that learn forget between battles."""


@dataclass
class Played:
    records: list[RoundRecord]
    skipped_turns: int | None = None
    settings: dict[str, Any] = field(default_factory=dict)


def resolve_policy(arg: str, weights_dir: Path) -> Path:
    """A path as given when it exists (unless a bare name that is also a run under
    weights_dir), else weights_dir/ARG; FileNotFoundError when neither exists."""
    path = Path(arg)
    under = weights_dir / arg
    if path.exists() and (len(path.parts) > 1 or not under.exists()):
        return path.resolve()
    if under.exists():
        return under.resolve()
    raise FileNotFoundError(f"no policy {arg!r}: neither {path} nor {under} exists")


def battles_needed(rounds: int, battle_rounds: int) -> int:
    """Battles of at most `battle_rounds` that `rounds` fill (the hosted and native plans)."""
    return -(-rounds // battle_rounds)


def plan_battles(
    opponents: Sequence[str], rounds: int, jobs: int, battle_rounds: int
) -> list[tuple[str, int, int]]:
    """(opponent, rounds, chunk) per battle: per opponent `rounds` split evenly into battles of
    at most `battle_rounds`, and into at least ceil(jobs / opponents) battles, so every job has
    one."""
    for_jobs = -(-jobs // max(len(opponents), 1))
    chunks = max(1, min(rounds, max(for_jobs, battles_needed(rounds, battle_rounds))))
    plan = []
    for name in opponents:
        for c in range(chunks):
            n = rounds // chunks + (c < rounds % chunks)
            plan.append((name, n, c))
    return plan


def battle_seed(seed: int, opponent: str, chunk: int) -> int:
    """A 56-bit seed per battle that depends on (seed, opponent, chunk) only."""
    digest = hashlib.sha256(f"tankrl-evaluate/{seed}/{opponent}/{chunk}".encode()).digest()
    return int.from_bytes(digest[:7], "big")


def _battle_spec(opts: EvalOptions, opponent: str, rounds: int, chunk: int) -> "BattleSpec":
    from tankrl.arena.server.battle import BattleSpec

    s = battle_seed(opts.seed, opponent, chunk)
    env = {
        "TANKRL_WEIGHTS": str(opts.policy),
        "TANKRL_SEED": str(s),
        "TANKRL_DETERMINISTIC": "1",
        "TANKRL_SAMPLE": ",".join(opts.sampled) or "none",
        "TANKRL_TRAJECTORIES": "",
        "TANKRL_BOT_SEED": str(s),
    }
    return BattleSpec(
        bots=(PPO_BOT, opponent),
        rounds=rounds,
        seed=s,
        turn_timeout_us=opts.turn_timeout_us,
        log_dir=opts.log_dir,
        env=env,
        observe_rounds=True,
        trace_motion=opts.motion,
    )


def _run_cancellable(spec: "BattleSpec", stop: threading.Event) -> "BattleResult":
    """run_battle in this thread's own event loop, cancelled (bots ended) once `stop` is set."""
    from tankrl.arena.server import event_loop
    from tankrl.arena.server.battle import run_battle_async

    async def main() -> "BattleResult":
        battle = asyncio.ensure_future(run_battle_async(spec))
        while not battle.done():
            if stop.is_set():
                battle.cancel()
            await asyncio.wait([battle], timeout=0.2)
        return battle.result()

    return event_loop.run(main())


def play_hosted(opts: EvalOptions, progress: Progress) -> Played:
    """Run the planned battles, `opts.jobs` at a time; raise the first battle's error (the
    others are cancelled and their bots ended)."""
    from tankrl.arena.server.booter import resolve_bot
    from tankrl.deploy.eval_stats import hosted_records

    our_name = resolve_bot(PPO_BOT).name
    plan = plan_battles(opts.opponents, opts.rounds, opts.jobs, opts.battle_rounds)
    stop = threading.Event()
    records: dict[int, list[RoundRecord]] = {}
    skipped = 0
    with ThreadPoolExecutor(max_workers=opts.jobs, thread_name_prefix="tankrl-eval") as pool:
        futures: dict[Future[BattleResult], int] = {}
        started = time.perf_counter()
        try:
            for i, (name, n, chunk) in enumerate(plan):
                spec = _battle_spec(opts, name, n, chunk)
                futures[pool.submit(_run_cancellable, spec, stop)] = i
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_EXCEPTION)
                for f in done:
                    i = futures[f]
                    result = f.result()
                    name, n = plan[i][0], plan[i][1]
                    records[i] = hosted_records(result, our_name, name)
                    skipped += result.skipped_turns or 0
                    progress(
                        f"{name}: {n} rounds, {result.turns} turns "
                        f"({len(records)}/{len(plan)} battles, "
                        f"{time.perf_counter() - started:.0f} s)"
                    )
        except BaseException:
            stop.set()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    settings = {"turn_timeout_us": opts.turn_timeout_us, "battles": len(plan), "jobs": opts.jobs}
    ordered = [r for i in sorted(records) for r in records[i]]
    return Played(ordered, skipped, settings)


def native_arenas(rounds: int, battle_rounds: int, cap: int) -> int:
    """Native arenas per opponent: as many as whole battles of `battle_rounds` fill (at most
    `cap`), so an opponent that learns within a battle (Surfer) meets our policy in its later
    rounds as often as hosted; 64 arenas for 100 rounds would stop every battle in round 2."""
    return max(1, min(rounds, cap, battles_needed(rounds, battle_rounds)))


def arena_quotas(opponents: int, rounds: int, per_opponent: int) -> "npt.NDArray[np.int64]":
    """Rounds each native arena plays: arena i faces opponent i % opponents and is that
    opponent's (i // opponents)-th arena; an opponent's quotas add up to `rounds`."""
    import numpy as np

    k = np.arange(opponents * per_opponent) // opponents
    return rounds // per_opponent + (k < rounds % per_opponent).astype(np.int64)


def play_native(
    opts: EvalOptions,
    contract: "Contract",
    tensors: "dict[str, npt.NDArray[np.float32]]",
    progress: Progress,
) -> Played:
    """Play every opponent's quota of rounds in one NativeEnv; seat 0 is our policy."""
    import numpy as np

    from tankrl.actor.native_env import NativeEnv
    from tankrl.deploy.eval_motion import MotionTracker
    from tankrl.shared.config import ArenaConfig
    from tankrl.shared.policy import NumpyPolicy

    per = native_arenas(opts.rounds, opts.battle_rounds, opts.arenas_per_opponent)
    arena_cfg = ArenaConfig(
        max_turns_per_round=opts.max_turns_per_round, battle_rounds=opts.battle_rounds
    )
    env = NativeEnv(per * len(opts.opponents), contract, opts.opponents, arena_cfg, opts.seed)
    policy = NumpyPolicy(contract, tensors, opts.sampled)
    rng = np.random.default_rng(opts.seed)
    quota = arena_quotas(len(opts.opponents), opts.rounds, per)
    played = np.zeros_like(quota)
    names = [str(n) for n in env.opponent_names]
    bots = env.arenas.engine.bots
    tracker = MotionTracker(env.n_arenas) if opts.motion else None

    def track(started: "npt.NDArray[np.bool_]") -> None:
        if tracker is not None:
            b = bots
            tracker.update(started, b.speed[:, 0], b.turn_rate[:, 0], b.x[:, 0], b.y[:, 0])

    obs = env.reset()
    track(env.arenas.round_started)
    records: list[RoundRecord] = []
    next_report = time.perf_counter() + PROGRESS_EVERY_S
    while (played < quota).any():
        actions, _, _ = policy.act(obs, rng, deterministic=True)
        r = env.step(actions)
        obs = r.obs
        track(r.started)
        done = r.terminated | r.truncated
        if done.any():
            o = env.outcomes()[0]
            for a in np.nonzero(done & (played < quota))[0]:
                motion = tracker.take(int(a)) if tracker is not None else None
                records.append(_native_record(names[a], o, int(a), bool(r.truncated[a]), motion))
            played += done
        if time.perf_counter() > next_report:
            next_report += PROGRESS_EVERY_S
            progress(f"native: {len(records)}/{int(quota.sum())} rounds")
    settings = {
        "arenas": env.n_arenas,
        "max_turns_per_round": opts.max_turns_per_round,
        "arena": f"{arena_cfg.arena_width}x{arena_cfg.arena_height}",
    }
    order = {name: i for i, name in enumerate(opts.opponents)}
    records.sort(key=lambda rec: order[rec.opponent])
    return Played(records, None, settings)


def _native_record(
    opponent: str, o: "RoundOutcome", a: int, truncated: bool, motion: "RoundMotion | None"
) -> RoundRecord:
    """Arena a's finished round; a round cut at the turn limit is neither won nor 1st."""
    return RoundRecord(
        opponent=opponent,
        won=bool(o.won[a]),
        first=not truncated and float(o.score[a]) >= float(o.enemy_score[a]),
        score=float(o.score[a]),
        enemy_score=float(o.enemy_score[a]),
        damage_dealt=float(o.damage_dealt[a]),
        damage_taken=float(o.damage_taken[a]),
        turns=int(o.turns[a]),
        truncated=truncated,
        motion=motion,
    )
