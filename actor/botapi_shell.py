"""The hosted bot: a Tank Royale bot on the official Python Bot API that runs any decider.

A decider is anything with `reset_round(mask)` and `decide(view) -> Intent` over B = 1 (the
scripted opponents, GotoTest, the PPO brain's wrapper). Every turn the bot thread takes the
API's current TickEvent once, turns it into a BotView equal field by field to what
arena.rules.views.fill_view gives the native env (`view_from_tick`), asks the decider, copies the
Intent into the API's intent (`copy_intent`) and calls go(). Events are read from the tick itself,
never through the API's event queue, whose dispatch happens inside go() after the next tick.

Threads: run() and on_view / on_decision run on the API's bot thread; round-end, game-end and
skipped-turn hooks on its WebSocket thread (or the bot thread); one lock serialises them all. The
process ends with os._exit right after GameEnded (hooks done, output flushed) or a disconnect,
because the API's own shutdown can hang. Over 300 lines: the conversion, the intent copy, the Bot
subclass and the bot-directory entry point belong together and are tested together.
"""

import json
import os
import secrets
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, Protocol

import numpy as np
import numpy.typing as npt
from robocode_tank_royale.bot_api.bot import Bot
from robocode_tank_royale.bot_api.bot_info import BotInfo
from robocode_tank_royale.bot_api.bot_results import BotResults

# the events package's __init__ is `# type: ignore`d, so import from the modules
from robocode_tank_royale.bot_api.events.bot_death_event import BotDeathEvent
from robocode_tank_royale.bot_api.events.bullet_fired_event import BulletFiredEvent
from robocode_tank_royale.bot_api.events.bullet_hit_bot_event import BulletHitBotEvent
from robocode_tank_royale.bot_api.events.bullet_hit_bullet_event import BulletHitBulletEvent
from robocode_tank_royale.bot_api.events.bullet_hit_wall_event import BulletHitWallEvent
from robocode_tank_royale.bot_api.events.game_ended_event import GameEndedEvent
from robocode_tank_royale.bot_api.events.hit_bot_event import HitBotEvent
from robocode_tank_royale.bot_api.events.hit_by_bullet_event import HitByBulletEvent
from robocode_tank_royale.bot_api.events.hit_wall_event import HitWallEvent
from robocode_tank_royale.bot_api.events.round_ended_event import RoundEndedEvent
from robocode_tank_royale.bot_api.events.scanned_bot_event import ScannedBotEvent
from robocode_tank_royale.bot_api.events.skipped_turn_event import SkippedTurnEvent
from robocode_tank_royale.bot_api.events.tick_event import TickEvent
from robocode_tank_royale.bot_api.events.won_round_event import WonRoundEvent

from tankrl.actor.gototest import GotoTest
from tankrl.actor.policy_seat import EXPERT, expert_seat
from tankrl.arena.opponents import OPPONENTS
from tankrl.shared.botview import OWN_STATE, BotView
from tankrl.shared.intent import Intent

Bool = npt.NDArray[np.bool_]

SEED_ENV = "TANKRL_BOT_SEED"
"""Environment variable holding a scripted bot's seed (default: random, printed)."""


class Decider(Protocol):
    """What the shell runs: one bot (B = 1) deciding from BotViews."""

    def reset_round(self, mask: Bool) -> None: ...

    def decide(self, view: BotView) -> Intent: ...


SCRIPTED: dict[str, Callable[[int, npt.ArrayLike], Decider]] = {
    **OPPONENTS,
    EXPERT: expert_seat(),
    "GotoTest": GotoTest,
}
"""Deciders a bot directory can run by name: the scripted opponents, the demonstrator's policy
seat and GotoTest."""


def view_from_tick(
    tick: TickEvent, arena_width: float, arena_height: float, skipped: bool = False
) -> BotView:
    """The BotView (B = 1) of one Bot API TickEvent; `skipped` = a SkippedTurnEvent came since
    the last view. Fields of events that did not happen are 0 / False."""
    v = BotView.zeros(1)
    s = tick.bot_state
    assert s is not None, "a TickEvent without bot_state"
    v.round_number[0], v.turn_number[0] = tick.round_number, tick.turn_number
    v.arena_width[0], v.arena_height[0] = arena_width, arena_height
    for name in OWN_STATE:
        getattr(v, name)[0] = getattr(s, name)
    v.enemy_count[0] = s.enemy_count
    scans = [e for e in tick.events if isinstance(e, ScannedBotEvent)]
    if scans:
        nearest = min(
            scans, key=lambda e: (float(np.hypot(e.x - s.x, e.y - s.y)), e.scanned_bot_id)
        )
        v.scanned[0], v.scan_bot_id[0] = True, nearest.scanned_bot_id
        for name in ("x", "y", "direction", "speed", "energy"):
            getattr(v, f"scan_{name}")[0] = getattr(nearest, name)
    bumps = [e for e in tick.events if isinstance(e, HitBotEvent)]
    if bumps:
        first = min(bumps, key=lambda e: e.victim_id)
        v.hit_bot[0], v.hit_bot_rammed[0] = True, any(e.rammed for e in bumps)
        v.hit_bot_x[0], v.hit_bot_y[0], v.hit_bot_energy[0] = first.x, first.y, first.energy
    for e in tick.events:
        _add_event(v, e)
    v.skipped_turn[0] = skipped
    return v


def _add_event(v: BotView, e: object) -> None:
    """Fold one bullet, wall, death or win event into the view (damages and powers add up).

    The API's event classes all derive from BotEvent directly, so isinstance is exact here.
    """
    if isinstance(e, BulletFiredEvent):
        v.bullet_fired[0], v.fired_power[0] = True, e.bullet.power
    elif isinstance(e, HitByBulletEvent):
        v.hit_by_bullet[0] = True
        v.hit_by_bullet_damage[0] += e.damage
        v.hit_by_bullet_power[0] += e.bullet.power
        v.hit_by_bullet_direction[0] = e.bullet.direction
    elif isinstance(e, BulletHitBotEvent):
        v.bullet_hit[0] = True
        v.bullet_hit_damage[0] += e.damage
        v.bullet_hit_power[0] += e.bullet.power
    elif isinstance(e, BulletHitBulletEvent):
        v.bullet_hit_bullet[0] = True
    elif isinstance(e, BulletHitWallEvent):
        v.bullet_hit_wall[0] = True
    elif isinstance(e, HitWallEvent):
        v.hit_wall[0] = True
    elif isinstance(e, BotDeathEvent):
        v.enemy_died[0] = True
    elif isinstance(e, WonRoundEvent):
        v.won_round[0] = True


def copy_intent(bot: Bot, intent: Intent, index: int = 0) -> None:
    """Copy row `index` of an Intent into the official API's intent for the next go().

    Rates and target speed go through the API's setters (which clamp to +-10 / 20 / 45 / 8: the
    server clamps at least as tightly, so nothing changes). The adjust flags are set before fire
    assist, because setting adjust_radar_for_gun_turn also sets fire assist. Firepower: the
    API's set_fire(p) is refused while the gun is hot or energy < p, keeping the old value; the
    server fires only with a cold gun, and the API itself resets firepower to 0 on its
    BulletFiredEvent, so calling set_fire(p), and set_fire(0.0) when refused, makes the
    firepower the server applies equal to the Intent's whenever the gun can fire.
    """
    bot.target_speed = float(intent.target_speed[index])
    bot.turn_rate = float(intent.turn_rate[index])
    bot.gun_turn_rate = float(intent.gun_turn_rate[index])
    bot.radar_turn_rate = float(intent.radar_turn_rate[index])
    bot.adjust_gun_for_body_turn = bool(intent.adjust_gun_for_body_turn[index])
    bot.adjust_radar_for_body_turn = bool(intent.adjust_radar_for_body_turn[index])
    bot.adjust_radar_for_gun_turn = bool(intent.adjust_radar_for_gun_turn[index])
    bot.set_fire_assist(bool(intent.fire_assist[index]))
    if not bot.set_fire(float(intent.firepower[index])):
        bot.set_fire(0.0)
    if intent.rescan[index]:
        bot.set_rescan()


class ShellHooks:
    """Callbacks for a host such as the PPO bot; every method is a no-op here. Calls are
    serialised; round and game hooks may run on the API's WebSocket thread."""

    def on_round_start(self, round_number: int) -> None:
        """A round starts (before its first on_view)."""

    def on_view(self, view: BotView, live: bool) -> None:
        """Every tick, before deciding. `live` is False for a tick that came after the API
        stopped the bot (its death tick, or the last tick when the round ended): no intent."""

    def on_decision(self, view: BotView, intent: Intent) -> None:
        """After the intent answering `view` was copied into the API (live ticks only)."""

    def on_round_end(self, round_number: int, results: BotResults) -> None:
        """After the round's last on_view; `results` are accumulated over the game so far."""

    def on_game_end(self, results: BotResults, number_of_rounds: int) -> None:
        """The game is over; the process exits when this returns (see DeciderBot)."""

    def on_skipped_turn(self, turn_number: int) -> None:
        """The server reused our previous intent for the turn after `turn_number`."""


class DeciderBot(Bot):
    """A Bot that runs a decider every turn and reports to ShellHooks."""

    def __init__(
        self,
        decider: Decider,
        hooks: ShellHooks | None = None,
        bot_info: BotInfo | None = None,
        server_url: str | None = None,
        server_secret: str | None = None,
        exit_on_game_end: bool = True,
    ) -> None:
        super().__init__(bot_info, server_url, server_secret)
        self.decider = decider
        self.hooks = hooks if hooks is not None else ShellHooks()
        self.exit_on_game_end = exit_on_game_end
        self.skipped_turns = 0
        """SkippedTurnEvents received since the bot started."""
        self.skipped_turns_round = 0
        self._skip_pending = False
        self._last_key: tuple[int, int] | None = None
        self._lock = threading.RLock()

    def _tick(self) -> TickEvent | None:
        """The API's current tick, read once (it is replaced whole when the next one arrives)."""
        return self._internals.current_tick_or_null

    def run(self) -> None:
        """One round on the bot thread: view -> decision -> intent -> go(), every turn."""
        tick = self._tick()
        with self._lock:
            self.skipped_turns_round = 0
            self._last_key = None
            self.decider.reset_round(np.ones(1, dtype=np.bool_))
            self.hooks.on_round_start(tick.round_number if tick is not None else 0)
        while True:
            tick = self._tick()
            if tick is not None:
                self._turn(tick, self.running)
            if not self.running:  # stopped: serve a tick that came meanwhile (our death tick)
                tick = self._tick()
                if tick is not None:
                    self._turn(tick, False)
                return
            self.go()

    def _turn(self, tick: TickEvent, live: bool) -> None:
        """Serve one tick once: view, hooks, decision, and the intent copy when live."""
        with self._lock:
            key = (tick.round_number, tick.turn_number)
            if key == self._last_key:
                return
            self._last_key = key
            view = view_from_tick(
                tick, float(self.arena_width), float(self.arena_height), self._skip_pending
            )
            self._skip_pending = False
            self.hooks.on_view(view, live)
            intent = self.decide_turn(view, live)
            if live and intent is not None:
                copy_intent(self, intent)
                self.hooks.on_decision(view, intent)

    def decide_turn(self, view: BotView, live: bool) -> Intent | None:
        """The intent for `view` (None: send nothing new). Scripted deciders also see the ticks
        that are not live, as the native env shows them every tick; override to change that."""
        return self.decider.decide(view)

    def on_skipped_turn(self, skipped_turn_event: SkippedTurnEvent) -> None:
        with self._lock:
            self.skipped_turns += 1
            self.skipped_turns_round += 1
            self._skip_pending = True
            self.hooks.on_skipped_turn(skipped_turn_event.turn_number)

    def on_round_ended(self, round_ended_event: RoundEndedEvent) -> None:
        tick = self._tick()
        with self._lock:
            if tick is not None:
                self._turn(tick, False)
            self.hooks.on_round_end(round_ended_event.round_number, round_ended_event.results)

    def on_game_ended(self, game_ended_event: GameEndedEvent) -> None:
        with self._lock:
            self.hooks.on_game_end(game_ended_event.results, game_ended_event.number_of_rounds)
        if self.exit_on_game_end:
            exit_now(0)


def exit_now(code: int) -> NoReturn:
    """Flush our output and end the process at once (the Bot API's threads may not stop)."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def run_bot(bot: Bot) -> NoReturn:
    """Connect and play until GameEnded (the bot exits) or a disconnect; then exit."""
    try:
        bot.start()
    except Exception as error:
        print(f"bot stopped: {error!r}", file=sys.stderr)
        exit_now(1)
    exit_now(0)


def load_bot_info(path: Path) -> BotInfo:
    """BotInfo from a bot directory's JSON; list fields may be lists or comma-separated strings."""
    data: dict[str, Any] = json.loads(path.read_text())

    def listed(key: str) -> list[str]:
        value = data.get(key) or []
        items = value.split(",") if isinstance(value, str) else value
        return [str(item).strip() for item in items if str(item).strip()]

    return BotInfo(
        name=data["name"],
        version=data["version"],
        authors=listed("authors"),
        description=data.get("description"),
        homepage=data.get("homepage") or None,
        country_codes=listed("countryCodes"),
        game_types=set(listed("gameTypes")),
        platform=data.get("platform"),
        programming_lang=data.get("programmingLang"),
    )


def scripted_seed() -> int:
    """The seed from TANKRL_BOT_SEED, else a random one (printed, so a game can be repeated)."""
    text = os.environ.get(SEED_ENV, "").strip()
    if text:
        return int(text, 0)
    seed = secrets.randbits(63)
    print(f"{SEED_ENV} not set; using seed {seed}")
    return seed


def run_scripted(name: str) -> NoReturn:
    """Entry point of a bot directory: run the registry's decider `name` (n = 1) as a bot.

    SERVER_URL and SERVER_SECRET are read like the official API does; the bot info comes from
    `<name>.json` in the working directory, else from actor/bots/<name>/.
    """
    decider = SCRIPTED[name](1, np.array([scripted_seed()], dtype=np.uint64))
    info_path = Path.cwd() / f"{name}.json"
    if not info_path.is_file():
        info_path = Path(__file__).parent / "bots" / name / f"{name}.json"
    bot = DeciderBot(
        decider,
        bot_info=load_bot_info(info_path),
        server_url=os.environ.get("SERVER_URL"),
        server_secret=os.environ.get("SERVER_SECRET"),
    )
    run_bot(bot)
