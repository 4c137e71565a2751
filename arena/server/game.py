"""The server's game state machine, without I/O: one game from GameStarted through the turn
loop's bookkeeping (ready set, intent merge, who answered since the last tick, skipped turns,
pause/step) to GameEnded. The shell (arena/server/server.py) moves frames and keeps the time.

Bot ids: 1..N in the order the controller listed the addresses (duplicates and unmatched ones
dropped), fixed for the whole game. Seat s of the engine plays the s-th bot that was ready; when
every bot was ready (the normal case) seat s is bot id s + 1, otherwise ids in outgoing messages
are remapped so bots keep the ids GameStartedEventForBot announced.
Over 300 lines: a game's phases share its seat and id bookkeeping, so they stay in one class.
"""

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.server import messages as out
from tankrl.arena.server.intent_merge import BotIntent, IntentSlot
from tankrl.arena.server.lobby import LobbyBot
from tankrl.arena.server.ticks import ArenaTurn

Json = dict[str, Any]


class Recorder(Protocol):
    """arena/replay.py's ReplayRecorder: `step()` replaces `engine.step()`."""

    def step(self) -> None: ...

    def close(self, results: list[Json]) -> None: ...


RecorderFactory = Callable[[Engine, list[str], Json], Recorder]


class Phase(enum.Enum):
    WAIT_READY = "wait_ready"
    RUNNING = "running"
    ENDED = "ended"


@dataclass
class TurnOutput:
    """One turn's messages to the bots: per bot (index into Game.bots), in send order."""

    to_bots: dict[int, list[Json]]
    round_ended: bool
    game_ended: bool
    skipped: int


class Game:
    """One game on a fresh B = 1 engine: `bots[i]` has id i + 1."""

    def __init__(
        self,
        setup: GameSetup,
        bots: list[LobbyBot],
        seed: int,
        *,
        initial_positions: bool = False,
        debug_mode: bool = False,
        debugging: Iterable[str] = (),
    ) -> None:
        self.setup, self.bots, self.seed = setup, bots, seed
        self.allow_initial_positions = initial_positions
        self.phase = Phase.WAIT_READY
        n = len(bots)
        self.ready = [False] * n
        self.connected = [True] * n
        self.slots = [IntentSlot() for _ in range(n)]
        self.debugging = {i for i, b in enumerate(bots) if b.session_id in set(debugging)}
        self.engine: Engine | None = None
        self.seats: list[int] = []
        """Engine seat → index into bots."""
        self._seat_of: dict[int, int] = {}
        self._ids: dict[int, int] | None = None
        self._turn: ArenaTurn | None = None
        """The last turn as read for the bots' ticks, reused for the observers' tick."""
        self._alive: list[bool] = []
        """Per seat, whether its tank is in the arena (read from the engine after each step)."""
        self._between_rounds = True
        """Whether the next step starts a round (no answers are awaited then)."""
        self._awaited: list[int] = []
        """`awaited()` while running, kept up to date by `_read_alive` and `disconnect` (it is
        asked after every intent)."""
        self._step: Callable[[], None] = lambda: None
        self.recorder: Recorder | None = None
        self.paused = debug_mode
        self.debug_mode = debug_mode
        self.steps_allowed = 0
        self.turns = 0
        self.skipped_turns = 0

    # ---- ready phase ----------------------------------------------------------------------------
    def start_messages(self) -> list[tuple[int, Json]]:
        names = [(i + 1, b.info["name"]) for i, b in enumerate(self.bots)]
        return [
            (i, out.game_started_for_bot(i + 1, self.setup, names)) for i in range(len(self.bots))
        ]

    def mark_ready(self, index: int) -> None:
        if self.phase is Phase.WAIT_READY:
            self.ready[index] = True

    @property
    def all_ready(self) -> bool:
        return all(r or not c for r, c in zip(self.ready, self.connected, strict=True))

    def begin(self, recorder_factory: RecorderFactory | None = None) -> Json | None:
        """Start with the bots that are ready and connected: GameStartedEventForObserver, or
        None when fewer than minNumberOfParticipants are (the game is then aborted)."""
        seats = [
            i for i, (r, c) in enumerate(zip(self.ready, self.connected, strict=True)) if r and c
        ]
        if len(seats) < self.setup.min_number_of_participants or not seats:
            self.phase = Phase.ENDED
            return None
        self.seats = seats
        self._seat_of = {i: s for s, i in enumerate(seats)}
        if seats != list(range(len(seats))):
            self._ids = {s + 1: i + 1 for s, i in enumerate(seats)}
        n = len(seats)
        engine = Engine(self.setup, 1, n, seeds=self.seed)
        if self.allow_initial_positions:
            pos = np.full((3, 1, n), np.nan)
            for s, i in enumerate(seats):
                for k, v in enumerate(self.bots[i].initial_position or ()):
                    if v is not None:
                        pos[k, 0, s] = v
            engine.initial_positions = (pos[0], pos[1], pos[2])
        self.engine = engine
        self._step = engine.step
        if recorder_factory is not None:
            meta = {"seed": self.seed, "setup": self.setup.to_dict(), "ids": [i + 1 for i in seats]}
            self.recorder = recorder_factory(
                engine, [self.bots[i].info["name"] for i in seats], meta
            )
            self._step = self.recorder.step
        self.phase = Phase.RUNNING
        self._read_alive()
        for slot in self.slots:
            slot.clear_turn()
        participants = [
            out.participant(i + 1, self.bots[i].session_id, self.bots[i].info) for i in seats
        ]
        return out.game_started_for_observer(self.setup, participants)

    # ---- inputs ---------------------------------------------------------------------------------
    def receive_intent(self, index: int, intent: BotIntent) -> None:
        """Merge a BotIntent (§7.3) and store the result in the engine at once, so the next turn
        only has to step. Intents before a round's turn 1 are discarded by the round start."""
        seat = self._seat_of.get(index)
        if self.phase is not Phase.RUNNING or seat is None or self.engine is None:
            return
        slot = self.slots[index]
        slot.receive(intent)
        assert slot.pending is not None
        self.engine.set_seat_intent(0, seat, slot.pending)

    def disconnect(self, index: int) -> None:
        """The tank stays and keeps its stored intent; its bot is no longer waited for."""
        self.connected[index] = False
        self._awaited = [i for i in self._awaited if i != index]

    @property
    def participants_left(self) -> bool:
        return any(self.connected[i] for i in self.seats)

    def _read_alive(self) -> None:
        e = self.engine
        assert e is not None
        self._alive = alive = e.bots.in_map[0].tolist()
        self._between_rounds = bool(e.needs_round[0])
        self._awaited = (
            []
            if self._between_rounds
            else [i for s, i in enumerate(self.seats) if self.connected[i] and alive[s]]
        )

    def awaited(self) -> list[int]:
        """Bots whose answer the next turn waits for: connected and alive, mid-round."""
        return self._awaited if self.phase is Phase.RUNNING else []

    @property
    def all_answered(self) -> bool:
        slots = self.slots
        return all(slots[i].pending is not None for i in self.awaited())

    def bot_index(self, bot_id: int) -> int | None:
        return bot_id - 1 if 1 <= bot_id <= len(self.bots) else None

    # ---- pause and step -------------------------------------------------------------------------
    def pause(self, cause: str = "pause") -> Json | None:
        if self.paused or self.phase is Phase.ENDED:
            return None
        self.paused = True
        return out.game_paused(cause)

    def resume(self) -> Json | None:
        self.debug_mode = False
        if not self.paused:
            return None
        self.paused, self.steps_allowed = False, 0
        return out.game_resumed()

    def next_turn(self) -> None:
        if self.paused:
            self.steps_allowed += 1

    @property
    def may_step(self) -> bool:
        return not self.paused or self.steps_allowed > 0

    # ---- the turn -------------------------------------------------------------------------------
    def play_turn(self) -> TurnOutput:
        """Step the engine and build the bots' messages of this turn (§9 step 5): RoundStarted on
        turn 1, SkippedTurnEvent, the tick, RoundEnded, GameEnded. Observers' messages come from
        `observer_messages()`, after the bots' are sent (they are off the critical path)."""
        e = self.engine
        assert e is not None and self.phase is Phase.RUNNING
        if self.paused:
            self.steps_allowed = max(0, self.steps_allowed - 1)
        new_round, alive = self._between_rounds, self._alive
        prev_turn = int(e.turn_number[0])
        to_bots: dict[int, list[Json]] = {i: [] for i in self.seats if self.connected[i]}
        skipped = 0
        for s, i in enumerate(self.seats):
            answered = self.slots[i].take()
            if not answered and not new_round and self.connected[i] and alive[s]:
                to_bots[i].append(out.skipped_turn(prev_turn))
                skipped += 1
        self._step()
        self._read_alive()
        self.turns += 1
        self.skipped_turns += skipped
        ev = e.events
        self._turn = turn = ArenaTurn(e, 0)
        round_no, turn_no = turn.round_number, turn.turn_number
        round_ended, game_ended = bool(ev.round_ended[0]), bool(ev.game_ended[0])
        for s, i in enumerate(self.seats):
            msgs = to_bots.get(i)
            if msgs is None:
                continue
            if turn_no == 1:
                msgs.insert(0, out.round_started(round_no))
            if turn.ticked[s]:
                msgs.append(self._bot_tick(turn, s, i))
        if round_ended:
            per_seat = e.results(0)
            for s, i in enumerate(self.seats):
                if i in to_bots:
                    to_bots[i].append(out.round_ended_for_bot(round_no, turn_no, per_seat[s]))
                    if game_ended:
                        to_bots[i].append(out.game_ended_for_bot(round_no, per_seat[s]))
        if game_ended:
            self.phase = Phase.ENDED
            if self.recorder is not None:
                self.recorder.close(e.results(0))
        return TurnOutput(to_bots, round_ended, game_ended, skipped)

    def observer_messages(self, turn: TurnOutput, observers: bool = True) -> list[Json]:
        """The observers' and controllers' messages of the turn just played (call it before the
        next turn; with `observers` False it only clears the turn's console text)."""
        e, arena_turn, self._turn = self.engine, self._turn, None
        assert e is not None
        texts = [self.slots[i].take_text() for i in self.seats]
        if not observers:
            self.paused = self.paused or (self.debug_mode and not turn.game_ended)
            return []
        if arena_turn is None:
            arena_turn = ArenaTurn(e, 0)
        round_no, turn_no = arena_turn.round_number, arena_turn.turn_number
        to_obs: list[Json] = []
        if turn_no == 1:
            to_obs.append(out.round_started(round_no))
        to_obs.append(self._observer_tick(arena_turn, texts))
        if turn.round_ended:
            _, rows = self.results()
            to_obs.append(out.round_ended_for_observer(round_no, turn_no, rows))
            if turn.game_ended:
                to_obs.append(out.game_ended_for_observer(round_no, rows))
        if self.debug_mode and not turn.game_ended:
            self.paused = True
            to_obs.append(out.game_paused("debug_step"))
        return to_obs

    def _bot_tick(self, turn: ArenaTurn, seat: int, index: int) -> Json:
        tick = turn.bot_tick(seat)
        colors = self.slots[index].colors
        if colors:
            tick["botState"].update(colors)
        if index in self.debugging:
            tick["botState"]["isDebuggingEnabled"] = True
        return tick if self._ids is None else out.remap_ids(tick, self._ids)

    def _observer_tick(self, turn: ArenaTurn, texts: list[tuple[str | None, str | None]]) -> Json:
        names = [
            (b.session_id, b.info["name"], b.info["version"])
            for b in (self.bots[i] for i in self.seats)
        ]
        tick = turn.observer_tick(names)
        for state in tick["botStates"]:
            s = state["id"] - 1
            i = self.seats[s]
            slot = self.slots[i]
            state.update(slot.colors)
            std_out, std_err = texts[s]
            if std_out:
                state["stdOut"] = std_out
            if std_err:
                state["stdErr"] = std_err
            if i in self.debugging:
                state["isDebuggingEnabled"] = True
                if slot.debug_graphics:
                    state["debugGraphics"] = slot.debug_graphics
        return tick if self._ids is None else out.remap_ids(tick, self._ids)

    def results(self) -> tuple[list[Json], list[Json]]:
        """(ResultsForBot per seat, ResultsForObserver rows sorted by rank) accumulated so far."""
        e = self.engine
        assert e is not None
        per_seat = e.results(0)
        ids = [i + 1 for i in self.seats]
        names = [(self.bots[i].info["name"], self.bots[i].info["version"]) for i in self.seats]
        return per_seat, out.results_for_observer(per_seat, ids, names)

    def abort(self) -> None:
        if self.recorder is not None and self.engine is not None and self.phase is Phase.RUNNING:
            self.recorder.close(self.engine.results(0))
        self.phase = Phase.ENDED
