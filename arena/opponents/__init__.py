"""Scripted opponents: our behaviour-equivalents of the ten 1v1 sample bots of docs/rules.md §14.1,
written from their one-line descriptions, and Surfer, a strong opponent of our own (wave surfing,
a GuessFactor gun); each batched over n arenas and deciding from a BotView only.

`OPPONENTS` maps a bot name to its class; build one with `OPPONENTS[name](n, seeds)`.
"""

from tankrl.arena.opponents.base import ScriptedBot
from tankrl.arena.opponents.chasers import Crazy, RamFire
from tankrl.arena.opponents.myfirstbot import MyFirstBot
from tankrl.arena.opponents.sitters import Fire, Target, TrackFire
from tankrl.arena.opponents.spinners import SpinBot, VelociBot
from tankrl.arena.opponents.surfer import Surfer
from tankrl.arena.opponents.walls import Corners, Walls

OPPONENTS: dict[str, type[ScriptedBot]] = {
    cls.name: cls
    for cls in (
        Target,
        SpinBot,
        Walls,
        Corners,
        Crazy,
        Fire,
        RamFire,
        TrackFire,
        VelociBot,
        MyFirstBot,
        Surfer,
    )
}
"""The registry: bot name -> scripted opponent class (every name of shared's SAMPLE_BOTS, and
Surfer)."""

__all__ = ["OPPONENTS", "ScriptedBot"]
