"""Seeding of the scripted opponents and GotoTest: the same seeds give identical intents in two
runs; the randomised ones (Corners, Crazy, GotoTest, Surfer) differ for other seeds on the same
spawns; and a batch of n copies decides exactly like n single copies (n = 1, as the Bot API shell
hosts one) fed the same views, so a seed fixes a bot whether it plays native or hosted.
"""

from typing import Any

import numpy as np
import pytest
from test_opponents import SEEDS, B, Battle, run_battle

from tankrl.actor.gototest import GotoTest
from tankrl.arena.opponents import OPPONENTS
from tankrl.shared.botview import VIEW_DTYPES, BotView
from tankrl.shared.intent import INTENT_FIELDS

DECIDERS: dict[str, Any] = {**OPPONENTS, "GotoTest": GotoTest}
RANDOMISED = ("Corners", "Crazy", "GotoTest", "Surfer")
TURNS = 200


def _intents_equal(a: Battle, b: Battle) -> bool:
    return all(np.array_equal(a.intents[f], b.intents[f]) for f in INTENT_FIELDS)


@pytest.mark.parametrize("name", list(DECIDERS))
def test_same_seeds_give_identical_intents(name: str) -> None:
    first, second = run_battle(DECIDERS[name], TURNS), run_battle(DECIDERS[name], TURNS)
    assert _intents_equal(first, second)
    assert all(np.array_equal(first.me[f], second.me[f]) for f in VIEW_DTYPES)


@pytest.mark.parametrize("name", RANDOMISED)
def test_other_seeds_give_other_intents_on_the_same_spawns(name: str) -> None:
    base = run_battle(DECIDERS[name], TURNS)
    other = run_battle(DECIDERS[name], TURNS, seeds=SEEDS + 1, engine_seeds=SEEDS)
    assert not _intents_equal(base, other)
    differs = [
        not all(
            np.array_equal(base.intents[f][:, a], other.intents[f][:, a]) for f in INTENT_FIELDS
        )
        for a in range(B)
    ]
    assert sum(differs) >= B // 2


@pytest.mark.parametrize("name", list(DECIDERS))
def test_a_batch_decides_like_single_copies_with_the_same_seeds(name: str) -> None:
    battle = run_battle(DECIDERS[name], 150)
    for a in range(B):
        single = DECIDERS[name](1, SEEDS[a : a + 1])
        for t in range(battle.me["x"].shape[0]):
            view = BotView(**{f: battle.me[f][t, a : a + 1].copy() for f in VIEW_DTYPES})
            single.reset_round(view.turn_number == 1)
            intent = single.decide(view)
            for f in INTENT_FIELDS:
                assert getattr(intent, f)[0] == battle.intents[f][t, a], (a, t, f)
