"""The bot actors' Ray shells: `NativeBotActor` (a NativeRunner batch) and `HostedBotActor` (the
PPO bot on the official Bot API, in this actor's process, playing real battles against the
scripted opponents on an embedded arena server). Both find the learner by name, stream
trajectories through a LearnerLink, swap weights between turns and report stats.
"""

import itertools
import threading
import time
from typing import Any

import numpy as np
import ray

from tankrl.actor.learner_link import LearnerLink
from tankrl.actor.policy_slot import PolicySlot
from tankrl.shared.config import RunConfig
from tankrl.shared.contracts import get_contract

FIRST_WEIGHTS_TIMEOUT_S = 60.0
"""How long a new bot actor waits for the learner's first weights before playing random init."""


def _link(cfg: RunConfig, learner_name: str, namespace: str | None, seed: int) -> LearnerLink:
    slot = PolicySlot(get_contract(cfg.contract), seed=seed, version=-1)  # take the learner's v0
    link = LearnerLink(
        ray.get_actor(learner_name, namespace=namespace),
        slot,
        max_buffered=cfg.actors.max_buffered_rounds,
    )
    try:
        first = link.fetch(FIRST_WEIGHTS_TIMEOUT_S)
        if first is not None:
            slot.offer(first)
            slot.swap()
    except Exception as error:  # the learner is not reachable yet: play and retry in background
        print(f"bot actor: no weights from {learner_name} yet ({error!r})", flush=True)
    return link.start()


class NativeBotActor:
    """A batch of native arenas playing the current policy against the scripted opponents."""

    def __init__(
        self, config: dict[str, Any], learner_name: str, index: int, namespace: str | None = None
    ) -> None:
        from tankrl.actor.native_env import NativeEnv
        from tankrl.actor.native_runner import NativeRunner

        self.cfg = cfg = RunConfig.from_dict(config)
        seed = cfg.seed + 1000 * (index + 1)
        self.link = _link(cfg, learner_name, namespace, seed)
        env = NativeEnv(
            cfg.actors.native_arenas, cfg.contract, cfg.actors.opponents, cfg.arena, seed=seed
        )
        self.runner = NativeRunner(
            env, self.link.slot, self.link.send, f"native{index}", seed, cfg.actors.deterministic
        )
        self.index = index
        self._seed, self._mixes = seed, 0
        self._stop = threading.Event()
        self._error: str | None = None
        self._thread = threading.Thread(target=self._loop, name="tankrl-native", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        try:
            since_mix = 0
            while not self._stop.is_set():
                self.runner.run(16)
                since_mix += 16
                if (
                    self.cfg.actors.curriculum == "adaptive"
                    and since_mix >= self.cfg.actors.curriculum_every_turns
                ):
                    since_mix = 0
                    self._remix()
                # backpressure: do not outrun a learner that has not taken what we sent; while
                # the learner is unreachable keep playing (the link drops the oldest rounds)
                limit = max(1, self.cfg.actors.max_buffered_rounds // 2)
                while self.link.healthy and self.link.pending >= limit:
                    if self._stop.wait(0.05):
                        return
        except Exception as error:  # reported through stats(); Ray restarts a dead actor
            self._error = repr(error)
            raise

    def _remix(self) -> None:
        """Adaptive curriculum: a new native batch with more arenas against the opponents we
        still lose to."""
        from tankrl.actor.native_env import NativeEnv
        from tankrl.actor.native_runner import curriculum_mix

        cfg = self.cfg
        names = curriculum_mix(cfg.actors.opponents, self.runner.recent, cfg.actors.native_arenas)
        self._mixes += 1
        env = NativeEnv(
            cfg.actors.native_arenas,
            cfg.contract,
            tuple(names),
            cfg.arena,
            seed=self._seed + 7 * self._mixes,
        )
        self.runner.set_env(env)

    def stats(self) -> dict[str, Any]:
        s: dict[str, Any] = dict(self.runner.stats())
        s.update(self.link.stats())
        s.update(
            kind="native",
            index=self.index,
            node=ray.get_runtime_context().get_node_id(),
            wins=dict(self.runner.wins),
            played=dict(self.runner.played),
            refused_weights=self.link.slot.refused,
            error=self._error,
        )
        return s

    def stop(self) -> dict[str, Any]:
        self._stop.set()
        self._thread.join(timeout=10)
        self.link.stop()
        return self.stats()


class HostedBotActor:
    """The PPO bot on the official Bot API (its threads live in this process) fighting games of
    `rounds_per_game` rounds against the scripted opponents in turn, on an embedded server."""

    def __init__(
        self,
        config: dict[str, Any],
        learner_name: str,
        index: int,
        namespace: str | None = None,
        rounds_per_game: int = 10,
    ) -> None:
        from tankrl.actor.ppo_bot import PPOBot, PPOHooks, PPOTurns, bot_info
        from tankrl.arena.server.options import ServerOptions
        from tankrl.arena.server.thread import ServerThread

        self.cfg = cfg = RunConfig.from_dict(config)
        self.index, self.rounds_per_game = index, rounds_per_game
        seed = cfg.seed + 7919 * (index + 1)
        self.link = _link(cfg, learner_name, namespace, seed)
        self.server_thread = ServerThread(ServerOptions(port=0, seed=seed))
        self.server = self.server_thread.start()
        self.name = f"TankRL-{index}"
        self.turns = PPOTurns(
            self.link.slot, f"hosted{index}", self.link.send, seed, cfg.actors.deterministic
        )
        self.bot = PPOBot(
            self.turns,
            PPOHooks(self.turns),
            bot_info=bot_info(self.name),
            server_url=self.server.url,
            exit_on_game_end=False,
        )
        self.games = 0
        self.wins: dict[str, int] = {}
        self.played: dict[str, int] = {}
        self._error: str | None = None
        self._stop = threading.Event()
        self._started = time.perf_counter()
        threading.Thread(target=self.bot.start, name="tankrl-bot", daemon=True).start()
        self._thread = threading.Thread(target=self._games, name="tankrl-games", daemon=True)
        self._thread.start()

    def _games(self) -> None:
        from tankrl.arena.server.battle import BattleSpec, run_battle

        opponents = itertools.cycle(self.cfg.actors.opponents)
        try:
            while not self._stop.is_set():
                opponent = next(opponents)
                self.turns.opponent = opponent
                rounds_before, wins_before = self.turns.rounds, self.turns.wins
                run_battle(
                    BattleSpec(
                        bots=(opponent,),
                        present=(self.name,),
                        server_url=self.server.url,
                        rounds=self.rounds_per_game,
                        turn_timeout_us=self.cfg.arena.turn_timeout_us,
                        ready_timeout_us=self.cfg.arena.ready_timeout_us,
                    )
                )
                self.games += 1
                self.played[opponent] = self.played.get(opponent, 0) + (
                    self.turns.rounds - rounds_before
                )
                self.wins[opponent] = self.wins.get(opponent, 0) + (self.turns.wins - wins_before)
        except Exception as error:
            self._error = repr(error)
            raise

    def stats(self) -> dict[str, Any]:
        seconds = time.perf_counter() - self._started
        s: dict[str, Any] = dict(self.link.stats())
        s.update(
            kind="hosted",
            index=self.index,
            node=ray.get_runtime_context().get_node_id(),
            turns=float(self.turns.turns),
            turns_per_s=self.turns.turns / max(seconds, 1e-9),
            rounds=float(self.turns.rounds),
            games=self.games,
            policy_version=float(self.link.slot.version),
            swaps=float(self.turns.swaps),
            skipped_turns=float(self.bot.skipped_turns),
            wins=dict(self.wins),
            played=dict(self.played),
            refused_weights=self.link.slot.refused,
            nonfinite_actions=float(self.turns.brain.nonfinite_actions),
            error=self._error,
            server_us_per_turn=float(np.mean(self.server.stats.turn_us))
            if self.server.stats.turn_us
            else 0.0,
        )
        return s

    def stop(self) -> dict[str, Any]:
        self._stop.set()
        self.link.stop()
        return self.stats()
