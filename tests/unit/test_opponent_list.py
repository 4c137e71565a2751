"""The one list of the ten sample bots (shared's SAMPLE_BOTS) agrees with everything built from
it: each is a scripted opponent, a bot directory that `tankrl battle` and `tankrl evaluate` boot
to play that opponent, and part of the default training mix; every opponent a command can name
(NAMED_OPPONENTS: also Surfer and Expert) can be booted by name."""

import json

from tankrl.actor.policy_seat import EXPERT
from tankrl.arena.opponents import OPPONENTS
from tankrl.arena.server.booter import BUILTIN_BOTS
from tankrl.shared.config import DEFAULT_OPPONENTS, NAMED_OPPONENTS
from tankrl.shared.game_constants import SAMPLE_BOTS


def test_the_sample_bots_are_ten_and_the_default_mix() -> None:
    assert len(set(SAMPLE_BOTS)) == len(SAMPLE_BOTS) == 10
    assert DEFAULT_OPPONENTS == SAMPLE_BOTS


def test_every_sample_bot_is_a_scripted_opponent() -> None:
    assert set(SAMPLE_BOTS) <= set(OPPONENTS)
    for name, cls in OPPONENTS.items():
        assert cls.name == name


def test_every_named_opponent_is_a_scripted_opponent_or_the_experts_seat() -> None:
    assert set(NAMED_OPPONENTS) == {*OPPONENTS, EXPERT}
    assert len(set(NAMED_OPPONENTS)) == len(NAMED_OPPONENTS)


def test_every_named_opponent_has_a_bot_directory_that_plays_it() -> None:
    for name in NAMED_OPPONENTS:
        folder = BUILTIN_BOTS / name
        assert json.loads((folder / f"{name}.json").read_text())["name"] == name
        assert f'run_scripted("{name}")' in (folder / f"{name}.py").read_text(), name


def test_every_scripted_bot_directory_names_a_scripted_opponent() -> None:
    scripted = {
        d.name
        for d in BUILTIN_BOTS.iterdir()
        if "run_scripted(" in (d / f"{d.name}.py").read_text()
    }
    # GotoTest drives the goto controller alone (actor/gototest.py): a demonstration, no opponent
    assert scripted - {"GotoTest"} == set(NAMED_OPPONENTS)
