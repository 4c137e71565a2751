"""The bot actors' Ray shells: `NativeBotActor` (a NativeRunner batch) and `HostedBotActor` (the
PPO bot on the official Bot API, in this actor's process, playing real battles against the
scripted opponents on an embedded arena server). Both find the learner by name, stream
trajectories through a LearnerLink, swap weights between turns and report stats.

What they share (`BotActor`): `__init__` only starts the play thread, which does the slow set-up
(the first weights, the server, the env), so `stats()` answers from the first second; every bot
id carries this incarnation's token, so after Ray restarts an actor its rounds are new to the
learner (the inbox drops a round not newer than one it has seen from that bot id); and an
exception in the play thread ends the process, so Ray restarts the actor instead of leaving it
alive and idle.
"""

import itertools
import os
import secrets
import threading
import time
import traceback
from typing import Any

import numpy as np
import ray

from tankrl.actor.learner_link import LearnerLink
from tankrl.actor.policy_slot import PolicySlot
from tankrl.shared.config import RunConfig
from tankrl.shared.contracts import get_contract

FIRST_WEIGHTS_TIMEOUT_S = 60.0
"""How long a new bot actor waits for the learner's first weights before playing random init."""
STOP_TIMEOUT_S = 30.0


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


class BotActor:
    """One play thread and the stats around it (see the module's docstring)."""

    kind = ""

    def __init__(
        self, config: dict[str, Any], learner_name: str, index: int, namespace: str | None
    ) -> None:
        self.cfg = RunConfig.from_dict(config)
        self.index = index
        self.incarnation = secrets.token_hex(3)
        self.bot_prefix = f"{self.kind}{index}.{self.incarnation}"
        """Every bot id of this incarnation starts with it."""
        self.state = "starting"
        """starting (set-up: first weights, server, env), playing, stopped."""
        self._ready = False
        self.link: LearnerLink | None = None
        self._learner, self._namespace = learner_name, namespace
        self._error: str | None = None
        self._stop = threading.Event()
        self._started = time.perf_counter()
        self._thread = threading.Thread(target=self._main, name=f"tankrl-{self.kind}", daemon=True)
        self._thread.start()

    @property
    def seed(self) -> int:
        raise NotImplementedError

    def _play(self, link: LearnerLink) -> None:
        """Set up and play until `self._stop` is set (the subclass's loop)."""
        raise NotImplementedError

    def _halt(self) -> None:
        """Interrupt what `_play` may be blocked in (called by `stop`)."""

    def _stats(self) -> dict[str, Any]:
        """The subclass's own figures."""
        raise NotImplementedError

    def _main(self) -> None:
        try:
            self.link = _link(self.cfg, self._learner, self._namespace, self.seed)
            self._play(self.link)
            self.state = "stopped"
        except Exception as error:
            self._error = repr(error)
            if self._stop.is_set():  # failing while being stopped is no reason to restart
                self.state = "stopped"
                return
            traceback.print_exc()
            print(
                f"{self.kind}{self.index}: the play thread failed; ending this process so that "
                "Ray restarts the actor",
                flush=True,
            )
            os._exit(1)

    def stats(self) -> dict[str, Any]:
        s: dict[str, Any] = {"turns": 0.0, "turns_per_s": 0.0, "rounds": 0.0}
        if self.link is not None:
            s.update(self.link.stats())
            s["policy_version"] = float(self.link.slot.version)
            s["refused_weights"] = self.link.slot.refused
        if self._ready:
            s.update(self._stats())
        s.update(
            kind=self.kind,
            index=self.index,
            incarnation=self.incarnation,
            state=self.state,
            node=ray.get_runtime_context().get_node_id(),
            pid=os.getpid(),
            error=self._error,
        )
        return s

    def stop(self) -> dict[str, Any]:
        """End play (the current battle too), deliver what is buffered, and report."""
        self._stop.set()
        self._halt()
        self._thread.join(timeout=STOP_TIMEOUT_S)
        if self.link is not None:
            self.link.stop()
        return self.stats()


class NativeBotActor(BotActor):
    """A batch of native arenas playing the current policy against the scripted opponents."""

    kind = "native"

    def __init__(
        self, config: dict[str, Any], learner_name: str, index: int, namespace: str | None = None
    ) -> None:
        self.runner: Any = None
        self.pool: Any = None
        self._mixes = 0
        super().__init__(config, learner_name, index, namespace)

    @property
    def seed(self) -> int:
        return self.cfg.seed + 1000 * (self.index + 1)

    def _play(self, link: LearnerLink) -> None:
        from tankrl.actor.native_env import NativeEnv
        from tankrl.actor.native_runner import NativeRunner
        from tankrl.actor.pool import OpponentPool

        cfg, a = self.cfg, self.cfg.actors
        if a.pool_size > 0:
            self.pool = OpponentPool(a.pool_size, a.pool_every_versions, a.pool_rule, self.seed)
        env = NativeEnv(a.native_arenas, cfg.contract, a.opponents, cfg.arena, seed=self.seed)
        self.runner = NativeRunner(
            env,
            link.slot,
            link.send,
            self.bot_prefix,
            self.seed,
            a.deterministic,
            on_result=None if self.pool is None else self.pool.record,
        )
        self._ready, self.state = True, "playing"
        since_mix = 0
        remixing = a.curriculum == "adaptive" or self.pool is not None
        while not self._stop.is_set():
            self.runner.run(16)
            since_mix += 16
            if remixing and since_mix >= a.curriculum_every_turns:
                since_mix = 0
                self._remix()
            # backpressure: do not outrun a learner that has not taken what we sent; while
            # the learner is unreachable keep playing (the link drops the oldest rounds)
            limit = max(1, cfg.actors.max_buffered_rounds // 2)
            while link.healthy and link.pending >= limit:
                if self._stop.wait(0.05):
                    return

    def _remix(self) -> None:
        """A new native batch: with the adaptive curriculum more arenas against the opponents
        we still lose to; with a self-play pool, the current version offered to the pool and
        `pool_share` of the arenas against members the pool's rule picks."""
        from tankrl.actor.native_env import NativeEnv
        from tankrl.actor.native_runner import curriculum_mix
        from tankrl.actor.policy_seat import frozen_seat

        cfg, a = self.cfg, self.cfg.actors
        seats = {}
        members: list[str] = []
        if self.pool is not None and self.link is not None:
            slot = self.link.slot
            self.pool.offer(slot.version, slot.policy.tensors)
            members = self.pool.sample(round(a.pool_share * a.native_arenas))
            for name in set(members):
                seats[name] = frozen_seat(
                    slot.contract,
                    self.pool.members[name].tensors,
                    width=cfg.arena.arena_width,
                    height=cfg.arena.arena_height,
                )
        k = a.native_arenas - len(members)
        if a.curriculum == "adaptive":
            names = curriculum_mix(a.opponents, self.runner.recent, k)
        else:
            names = [a.opponents[i % len(a.opponents)] for i in range(k)]
        self._mixes += 1
        env = NativeEnv(
            a.native_arenas,
            cfg.contract,
            (*names, *members),
            cfg.arena,
            seed=self.seed + 7 * self._mixes,
            seats=seats,
        )
        self.runner.set_env(env)

    def _stats(self) -> dict[str, Any]:
        s: dict[str, Any] = dict(self.runner.stats())
        s.update(wins=dict(self.runner.wins), played=dict(self.runner.played))
        if self.pool is not None:
            s["pool"] = self.pool.summary()
        return s


class HostedBotActor(BotActor):
    """The PPO bot on the official Bot API (its threads live in this process) fighting games of
    `rounds_per_game` rounds against the scripted opponents in turn, on an embedded server."""

    kind = "hosted"

    def __init__(
        self,
        config: dict[str, Any],
        learner_name: str,
        index: int,
        namespace: str | None = None,
        rounds_per_game: int = 10,
    ) -> None:
        self.rounds_per_game = rounds_per_game
        self.games = 0
        self.wins: dict[str, int] = {}
        self.played: dict[str, int] = {}
        self.server_thread: Any = None
        self.turns: Any = None
        self.bot: Any = None
        super().__init__(config, learner_name, index, namespace)

    @property
    def seed(self) -> int:
        return self.cfg.seed + 7919 * (self.index + 1)

    def _play(self, link: LearnerLink) -> None:
        from tankrl.actor.ppo_bot import PPOBot, PPOHooks, PPOTurns, bot_info
        from tankrl.arena.server.battle import BattleSpec, run_battle
        from tankrl.arena.server.options import ServerOptions
        from tankrl.arena.server.thread import ServerThread

        cfg = self.cfg
        self.server_thread = ServerThread(ServerOptions(port=0, seed=self.seed))
        server = self.server_thread.start()
        name = f"TankRL-{self.index}"
        self.turns = turns = PPOTurns(
            link.slot, self.bot_prefix, link.send, self.seed, cfg.actors.deterministic
        )
        self.bot = PPOBot(
            turns,
            PPOHooks(turns),
            bot_info=bot_info(name),
            server_url=server.url,
            exit_on_game_end=False,
        )
        threading.Thread(target=self.bot.start, name="tankrl-bot", daemon=True).start()
        self._ready, self.state = True, "playing"
        for opponent in itertools.cycle(cfg.actors.opponents):
            if self._stop.is_set():
                return
            turns.opponent = opponent
            rounds_before, wins_before = turns.rounds, turns.wins
            run_battle(
                BattleSpec(
                    bots=(opponent,),
                    present=(name,),
                    server_url=server.url,
                    rounds=self.rounds_per_game,
                    turn_timeout_us=cfg.arena.turn_timeout_us,
                    ready_timeout_us=cfg.arena.ready_timeout_us,
                )
            )
            self.games += 1
            self.played[opponent] = self.played.get(opponent, 0) + turns.rounds - rounds_before
            self.wins[opponent] = self.wins.get(opponent, 0) + turns.wins - wins_before

    def _halt(self) -> None:
        """Close the embedded server: the battle in progress ends, and with it the opponent's
        bot process (the battle runner ends the processes it booted)."""
        if self.server_thread is not None:
            self.server_thread.stop()

    def _stats(self) -> dict[str, Any]:
        seconds = time.perf_counter() - self._started
        turn_us = self.server_thread.server.stats.turn_us
        return {
            "turns": float(self.turns.turns),
            "turns_per_s": self.turns.turns / max(seconds, 1e-9),
            "rounds": float(self.turns.rounds),
            "games": self.games,
            "swaps": float(self.turns.swaps),
            "skipped_turns": float(self.bot.skipped_turns),
            "wins": dict(self.wins),
            "played": dict(self.played),
            "nonfinite_actions": float(self.turns.brain.nonfinite_actions),
            "server_us_per_turn": float(np.mean(turn_us)) if turn_us else 0.0,
        }
