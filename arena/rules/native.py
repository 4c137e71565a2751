"""The native arena driver: B 1v1 arenas stepped in-process, seat 0 played by the caller (the
learner), seat 1 by a scripted opponent or a policy seat per arena, or by the caller too.

Keeps hosted timing: the view of tick N is what the deciders see, and the intents they return are
applied in turn N + 1. Rounds restart automatically; a round longer than `max_turns_per_round` is
truncated. Scripted opponents that learn keep what they learned for a battle of `battle_rounds`
rounds (rounds 1, 1 + battle_rounds, ... start one: their `reset_battle`, then `reset_round`), as
a hosted bot keeps it for its process's life. Per-arena seeds are hash64(seed, arena) >> 1 (63
bits, like the server's game seeds), so arena k replays as a B = 1 engine, or hosted with
`--seed`, seeded with `seeds[k]`. The learner-facing env with observations lives in
actor/native_env.py.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from tankrl.arena.opponents import OPPONENTS
from tankrl.arena.rules import rng
from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.rules.scoring import java_round
from tankrl.arena.rules.views import fill_view
from tankrl.shared.botview import BotView
from tankrl.shared.intent import Intent

Bool = npt.NDArray[np.bool_]
F64 = npt.NDArray[np.float64]


class Decider(Protocol):
    """What plays an opponent seat: a scripted opponent or a policy seat, over its arenas."""

    def reset_battle(self, mask: Bool) -> None: ...

    def reset_round(self, mask: Bool) -> None: ...

    def decide(self, view: BotView) -> Intent: ...


DeciderFactory = Callable[[int, npt.NDArray[np.uint64]], Decider]
"""(n arenas, their seeds) -> the decider of those arenas' opponent seat."""

NATIVE_ROUNDS = 2**31 - 1
"""The native env plays one endless game; rounds restart until the caller stops."""


def native_setup(
    width: int = 800, height: int = 600, cooling: float = 0.1, inactivity: int = 450
) -> GameSetup:
    return GameSetup(
        game_type="1v1",
        arena_width=width,
        arena_height=height,
        number_of_rounds=NATIVE_ROUNDS,
        gun_cooling_rate=cooling,
        max_inactivity_turns=inactivity,
    ).validate()


@dataclass
class RoundOutcome:
    """Per-arena facts about the round that ended (or was truncated) at this tick; [B] arrays,
    meaningful where `ended | truncated`."""

    won: Bool  # seat 0 alive and the enemy dead
    score: F64  # seat 0's round score (integer results difference, as a hosted bot sees it)
    enemy_score: F64
    damage_dealt: F64  # bullet damage seat 0 dealt this round
    damage_taken: F64
    turns: npt.NDArray[np.int32]


class NativeArenas:
    """B arenas of our learner seat(s) against scripted opponents (or self-play)."""

    def __init__(
        self,
        n_arenas: int,
        opponents: Sequence[str] | None = ("SpinBot",),
        setup: GameSetup | None = None,
        seed: int = 0,
        max_turns_per_round: int = 0,
        battle_rounds: int = 10,
        seats: Mapping[str, DeciderFactory] | None = None,
    ) -> None:
        """`opponents[i % len]` plays arena i's seat 1 (None: self-play, both seats ours); a name
        is a scripted opponent (arena.opponents) or one of `seats` (policy seats the caller
        builds, actor/policy_seat.py)."""
        if battle_rounds < 1:
            raise ValueError("battle_rounds must be at least 1")
        self.n = n_arenas
        self.battle_rounds = battle_rounds
        self.setup = setup or native_setup()
        # 63-bit, like the server's game seeds, so arena k can be replayed hosted with `--seed`
        self.seeds = rng.hash64(np.uint64(seed), np.arange(n_arenas, dtype=np.uint64)) >> np.uint64(
            1
        )
        self.engine = Engine(self.setup, n_arenas, 2, seeds=self.seeds)
        self.max_turns = max_turns_per_round
        self.self_play = opponents is None
        self.learner_seats: tuple[int, ...] = (0, 1) if self.self_play else (0,)
        self.opponent_names = np.array(
            ["self"] * n_arenas
            if opponents is None
            else [opponents[i % len(opponents)] for i in range(n_arenas)]
        )
        self._groups: list[tuple[npt.NDArray[np.intp] | slice, Decider]] = []
        known: dict[str, DeciderFactory] = {**OPPONENTS, **(seats or {})}
        if opponents is not None:
            for name in dict.fromkeys(opponents):
                if name not in known:
                    raise ValueError(f"unknown opponent {name!r}; known: {', '.join(known)}")
                idx = np.nonzero(self.opponent_names == name)[0]
                sel: npt.NDArray[np.intp] | slice = slice(None) if idx.size == n_arenas else idx
                self._groups.append((sel, known[name](idx.size, self.seeds[idx])))
        self.views = [BotView.zeros(n_arenas), BotView.zeros(n_arenas)]
        self.round_started = np.zeros(n_arenas, dtype=np.bool_)
        self.ended = np.zeros(n_arenas, dtype=np.bool_)
        self.truncated = np.zeros(n_arenas, dtype=np.bool_)
        self._score_base = np.zeros((n_arenas, 2))
        z = np.zeros(n_arenas)
        self._no_outcome = RoundOutcome(
            np.zeros(n_arenas, dtype=np.bool_), z, z, z, z, np.zeros(n_arenas, dtype=np.int32)
        )
        self.outcomes: list[RoundOutcome] = [self._no_outcome for _ in self.learner_seats]
        """Per learner seat: the outcome of rounds that ended or were truncated at this tick."""

    def reset(self) -> None:
        """Start a fresh round everywhere; the views then show tick 1."""
        self.engine.reset_arenas(np.ones(self.n, dtype=np.bool_))
        self.engine.set_intent(0, Intent.zeros(self.n))
        self.engine.set_intent(1, Intent.zeros(self.n))
        self._advance()

    def step(self, learner_intents: Sequence[Intent]) -> None:
        """Apply the learner seat(s)' intents (answering the current views) and the opponents'
        decisions for the same tick, then process one turn in every arena."""
        if len(learner_intents) != len(self.learner_seats):
            raise ValueError(f"need {len(self.learner_seats)} learner intents")
        for seat, intent in zip(self.learner_seats, learner_intents, strict=True):
            self.engine.set_intent(seat, intent)
        if not self.self_play:
            self.engine.set_intent(1, self._opponent_intents())
        self._advance()

    def _opponent_intents(self) -> Intent:
        view = self.views[1]
        out = Intent.zeros(self.n)
        for sel, bot in self._groups:
            sub = view if isinstance(sel, slice) else view.select(sel)
            out.assign(sel, bot.decide(sub))
        return out

    def _advance(self) -> None:
        e = self.engine
        e.step()
        self.round_started[:] = e.turn_number == 1
        self.ended[:] = e.events.round_ended
        self.truncated[:] = False
        if self.max_turns > 0:
            self.truncated[:] = ~self.ended & (e.turn_number >= self.max_turns)
            e.reset_arenas(self.truncated)
        if self.round_started.any() and not self.self_play:
            battle = self.round_started & ((e.round_number - 1) % self.battle_rounds == 0)
            for sel, bot in self._groups:
                started = self.round_started if isinstance(sel, slice) else self.round_started[sel]
                if started.any():
                    new_battle = battle if isinstance(sel, slice) else battle[sel]
                    if new_battle.any():
                        bot.reset_battle(new_battle)
                    bot.reset_round(started)
        for seat in (0, 1):
            fill_view(e, seat, self.views[seat])
        done = self.ended | self.truncated
        if done.any():
            totals = java_round(e.totals.total)
            self.outcomes = [self._outcome(seat, totals, done) for seat in self.learner_seats]
            self._score_base[done] = totals[done]
        else:
            self.outcomes = [self._no_outcome for _ in self.learner_seats]

    def _outcome(self, seat: int, totals: F64, done: Bool) -> RoundOutcome:
        """Facts of the rounds that ended or were truncated at this tick (seat's point of view).

        Scores are differences of the rounded accumulated results, as a hosted bot sees them.
        """
        e = self.engine
        other = 1 - seat
        score = np.where(done, totals[:, seat] - self._score_base[:, seat], 0.0)
        enemy = np.where(done, totals[:, other] - self._score_base[:, other], 0.0)
        return RoundOutcome(
            won=self.ended & e.bots.in_map[:, seat] & ~e.bots.in_map[:, other],
            score=score,
            enemy_score=enemy,
            damage_dealt=e.scores.bullet_damage_to[:, seat, other].copy(),
            damage_taken=e.scores.bullet_damage_to[:, other, seat].copy(),
            turns=e.turn_number.copy(),
        )
