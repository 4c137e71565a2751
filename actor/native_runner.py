"""The native actor's loop (pure, no Ray): a NativeEnv batch played with the current policy,
every finished round cut into a Trajectory for the sink, weights swapped only between turns.

The Ray shell (actor/service.py) drives `run(turns)` and ships the trajectories; tests and the
evaluator drive it directly.
"""

import time
from collections import Counter, deque
from collections.abc import Callable

import numpy as np

from tankrl.actor.native_env import NativeEnv
from tankrl.actor.policy_slot import PolicySlot
from tankrl.actor.recorder import TrajectoryRecorder
from tankrl.shared.wire import InfoValue, Trajectory

Sink = Callable[[Trajectory], None]
RECENT_ROUNDS = 100


def curriculum_mix(
    opponents: tuple[str, ...], recent: dict[str, "deque[bool]"], n_arenas: int, floor: float = 0.05
) -> list[str]:
    """Opponents for n arenas, weighted by how often we still lose to each (1 - recent win rate,
    at least `floor`; opponents without results count as never beaten)."""
    rates = [sum(recent[o]) / len(recent[o]) if recent.get(o) else 0.0 for o in opponents]
    weights = np.maximum(1.0 - np.asarray(rates), floor)
    counts = np.maximum(1, np.floor(weights / weights.sum() * n_arenas)).astype(int)
    names = [o for o, c in zip(opponents, counts, strict=True) for _ in range(c)]
    order = np.argsort(-weights)
    k = 0
    while len(names) < n_arenas:
        names.append(opponents[int(order[k % len(order)])])
        k += 1
    return names[:n_arenas]


class NativeRunner:
    """Plays B arenas (and both seats in self-play) and emits one Trajectory per finished round."""

    def __init__(
        self,
        env: NativeEnv,
        slot: PolicySlot,
        sink: Sink | None = None,
        bot_prefix: str = "native",
        seed: int = 0,
        deterministic: bool = False,
        record: bool = True,
        on_result: Callable[[str, bool], None] | None = None,
    ) -> None:
        """`on_result(opponent, won)` hears every finished round (e.g. the self-play pool)."""
        self.env, self.slot, self.sink = env, slot, sink
        self.on_result = on_result
        self.rng = np.random.default_rng(seed)
        self.deterministic = deterministic
        ids = [f"{bot_prefix}-{i}" for i in range(env.num_envs)]
        self.recorder = TrajectoryRecorder(env.contract, ids) if record else None
        self.opponents = np.tile(env.opponent_names, len(env.seats))
        self.obs = env.reset()
        self.done = np.zeros(env.num_envs, dtype=np.bool_)
        self.turns = 0
        self.rounds = 0
        self.swaps = 0
        self.wins: Counter[str] = Counter()
        self.played: Counter[str] = Counter()
        self.recent: dict[str, deque[bool]] = {}
        """Per opponent, the results of the last RECENT_ROUNDS rounds (for the curriculum)."""
        self.seconds = 0.0

    def set_env(self, env: NativeEnv) -> None:
        """Continue on a new env (e.g. another opponent mix): open rounds are abandoned, counters
        and the policy stay."""
        self.env = env
        self.opponents = np.tile(env.opponent_names, len(env.seats))
        if self.recorder is not None:
            self.recorder.start[:] = -1
            self.recorder.last[:] = -1
        self.obs = env.reset()
        self.done = np.zeros(env.num_envs, dtype=np.bool_)

    def run(self, turns: int) -> list[Trajectory]:
        """Play `turns` turns in every arena; return (and sink) the finished trajectories."""
        out: list[Trajectory] = []
        start = time.perf_counter()
        for _ in range(turns):
            out += self._turn()
        self.seconds += time.perf_counter() - start
        return out

    def _turn(self) -> list[Trajectory]:
        if self.slot.swap():
            self.swaps += 1
        policy = self.slot.policy
        live = ~self.done
        actions, logprobs, values = policy.act(self.obs, self.rng, self.deterministic)
        if self.recorder is not None:
            self.recorder.add_decision(live, self.obs, actions, logprobs, values, self.slot.version)
        r = self.env.step(actions)
        self.turns += 1
        if self.recorder is not None:
            self.recorder.add_reward(live, r.rewards)
        done = r.terminated | r.truncated
        self.obs, self.done = r.obs, done
        if not done.any():
            return []
        return self._finish(done, r.truncated, policy.value(r.obs) if r.truncated.any() else None)

    def _finish(
        self, done: np.ndarray, truncated: np.ndarray, values: np.ndarray | None
    ) -> list[Trajectory]:
        outcomes = self.env.outcomes()
        k = len(outcomes)
        won = np.concatenate([o.won for o in outcomes]) if k > 1 else outcomes[0].won
        infos: list[dict[str, InfoValue]] = [{} for _ in range(self.env.num_envs)]
        for i in np.nonzero(done)[0]:
            o, a = outcomes[i // self.env.n_arenas], i % self.env.n_arenas
            name = str(self.opponents[i])
            self.played[name] += 1
            self.wins[name] += bool(won[i])
            self.recent.setdefault(name, deque(maxlen=RECENT_ROUNDS)).append(bool(won[i]))
            if self.on_result is not None:
                self.on_result(name, bool(won[i]))
            infos[i] = {
                "kind": "native",
                "opponent": name,
                "won": bool(won[i]),
                "score": float(o.score[a]),
                "enemy_score": float(o.enemy_score[a]),
                "damage_dealt": float(o.damage_dealt[a]),
                "damage_taken": float(o.damage_taken[a]),
                "turns": int(o.turns[a]),
                "truncated": bool(truncated[i]),
            }
        self.rounds += int(done.sum())
        if self.recorder is None:
            return []
        bootstrap = np.zeros(self.env.num_envs, np.float32) if values is None else values
        trajectories = self.recorder.end_round(done, truncated, bootstrap, infos)
        if self.sink is not None:
            for t in trajectories:
                self.sink(t)
        return trajectories

    def stats(self) -> dict[str, float]:
        tps = self.turns * self.env.num_envs / self.seconds if self.seconds else 0.0
        return {
            "turns": float(self.turns * self.env.num_envs),
            "turns_per_s": tps,
            "rounds": float(self.rounds),
            "policy_version": float(self.slot.version),
            "swaps": float(self.swaps),
            "nonfinite_actions": float(sum(b.nonfinite_actions for b in self.env.brains)),
        }
