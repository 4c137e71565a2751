"""The server's games, one at a time: a controller's commands start, pause, step and stop them;
the loop sends the start, waits for the bots to be ready, and plays turns until the game ends,
pacing them at the TPS and timing out late answers (a late bot's turn is skipped: game.py).

At TPS -1 the answer that completes a turn plays the next one at once (TurnHandoff), and the
loop takes over for everything else; observers' ticks are held and written in batches
(ObserverBatch). A bug in a game aborts that game (GameAbortedEvent); the server goes on.
"""

import logging
import secrets
import time
from typing import Any

from tankrl.arena.rules.game_setup import GameSetup
from tankrl.arena.rules.placement import CELL
from tankrl.arena.server import intent_merge
from tankrl.arena.server import messages as out
from tankrl.arena.server import protocol as proto
from tankrl.arena.server.game import Game, Phase, RecorderFactory, TurnOutput
from tankrl.arena.server.handoff import Handed, TurnHandoff
from tankrl.arena.server.lobby import Lobby
from tankrl.arena.server.options import ServerOptions, ServerStats
from tankrl.arena.server.outbox import Client, Late, Outbox
from tankrl.arena.server.waiting import Wakeup

log = logging.getLogger("tankrl.arena.server")
Json = dict[str, Any]


class GameLoop:
    """`run()` is the server's game task. Read: `game` (the current or last Game),
    `last_setup`, `last_game_seed`; settable: `seed` (the next game's), `recorder_factory`."""

    def __init__(
        self,
        options: ServerOptions,
        stats: ServerStats,
        outbox: Outbox,
        clients: dict[str, Client],
        lobby: Lobby,
        recorder_factory: RecorderFactory | None = None,
    ) -> None:
        self.options, self.stats, self.outbox = options, stats, outbox
        self.clients, self.lobby = clients, lobby
        self.recorder_factory = recorder_factory
        self.tps = options.tps
        self.game: Game | None = None
        self.last_setup: GameSetup | None = None
        self.last_game_seed: int | None = None
        self.wakeup = Wakeup()
        self.handoff = TurnHandoff(options.play_at_answer)
        self._seed = options.seed
        self._games_seeded = 0
        self._game_clients: list[Client | None] = []
        self._debugging: set[str] = set()
        self._pending: Game | None = None
        self._stop_game = False

    @property
    def seed(self) -> int | None:
        return self._seed

    @seed.setter
    def seed(self, value: int | None) -> None:
        """Fix the next game's seed (game k after this uses seed + k); None = random."""
        self._seed, self._games_seeded = value, 0

    def _next_seed(self) -> int:
        if self._seed is None:
            seed = secrets.randbits(63)
        else:
            seed = (self._seed + self._games_seeded) % 2**63
        self._games_seeded += 1
        self.last_game_seed = seed
        return seed

    # ---- what clients do ------------------------------------------------------------------------
    async def command(self, kind: str, msg: Json) -> None:
        """A controller's command (proto.CONTROLLER_COMMANDS); InvalidRequest if it cannot be
        done now."""
        game = self.game
        if kind == "StartGame":
            self._start_game(proto.parse_start_game(msg, self.options.game_types))
        elif kind == "ChangeTps":
            self.tps = proto.parse_tps(msg)
            await self.outbox.broadcast(out.tps_changed(self.tps))
        elif kind == "BotPolicyUpdate":
            self._policy(proto.parse_bot_policy(msg))
        elif game is None:
            raise proto.InvalidRequest("no game is running")
        elif kind == "StopGame":
            self._stop_game = True
        elif kind == "PauseGame":
            await self.outbox.broadcast(game.pause())
        elif kind == "ResumeGame":
            await self.outbox.broadcast(game.resume())
        elif kind == "NextTurn":
            game.next_turn()
        elif kind == "EnableDebugMode":
            game.debug_mode = True
        elif kind == "DisableDebugMode":
            game.debug_mode = False
        self.wakeup.wake()

    def _start_game(self, req: proto.StartGame) -> None:
        if self._pending is not None or (
            self.game is not None and self.game.phase is not Phase.ENDED
        ):
            raise proto.InvalidRequest("a game is already running")
        bots = self.lobby.select(req.addresses)
        n, setup = len(bots), req.setup
        if not bots:
            raise proto.InvalidRequest("no connected bot matches the addresses")
        if n < setup.min_number_of_participants:
            raise proto.InvalidRequest(
                f"{n} bots, minNumberOfParticipants is {setup.min_number_of_participants}"
            )
        cells = (setup.arena_width // CELL) * (setup.arena_height // CELL)
        if cells < n:
            raise proto.InvalidRequest(f"{n} bots do not fit the arena's {cells} start cells")
        if setup.max_number_of_participants is not None and n > setup.max_number_of_participants:
            raise proto.InvalidRequest(
                f"{n} bots, maxNumberOfParticipants is {setup.max_number_of_participants}"
            )
        self._pending = Game(
            setup,
            bots,
            self._next_seed(),
            initial_positions=self.options.initial_positions,
            debug_mode=req.debug_mode,
            debugging=self._debugging,
        )

    def _policy(self, policy: proto.BotPolicy) -> None:
        game = self.game
        index = None if game is None else game.bot_index(policy.bot_id)
        if game is None or index is None:
            raise proto.InvalidRequest(f"no bot with id {policy.bot_id} in a running game")
        session = game.bots[index].session_id
        if policy.debugging_enabled is not None:
            if policy.debugging_enabled:
                self._debugging.add(session)
                game.debugging.add(index)
            else:
                self._debugging.discard(session)
                game.debugging.discard(index)

    def _game_index(self, client: Client) -> int | None:
        if self.game is None:
            return None
        try:
            return self._game_clients.index(client)
        except ValueError:
            return None

    def on_intent(self, client: Client, intent: intent_merge.BotIntent) -> None:
        game, index = self.game, self._game_index(client)
        if game is None or index is None:
            return
        game.receive_intent(index, intent)
        if game.all_answered:
            if self.handoff.accepts(game, self.tps, self._stop_game):
                self._play_at_answer(game)
            else:
                self.wakeup.wake()

    def on_ready(self, client: Client) -> None:
        game, index = self.game, self._game_index(client)
        if game is not None and index is not None:
            game.mark_ready(index)
            if game.all_ready:
                self.wakeup.wake()

    def left(self, client: Client) -> None:
        """A bot's connection ended: it plays no further turn of the current game."""
        game = self.game
        if game is not None and client in self._game_clients:
            index = self._game_clients.index(client)
            self._game_clients[index] = None
            game.disconnect(index)
            self.wakeup.wake()

    # ---- the loop -------------------------------------------------------------------------------
    async def run(self) -> None:
        while True:
            await self.wakeup.wait(lambda: self._pending is not None, None)
            game, self._pending = self._pending, None
            assert game is not None
            self.game, self._stop_game = game, False
            self._game_clients = [self.clients.get(b.session_id) for b in game.bots]
            for i, c in enumerate(self._game_clients):
                if c is None:
                    game.disconnect(i)
            try:
                await self._play(game)
            except Exception:  # a bug must end this game, not the server
                log.exception("game failed")
                await self._abort(game, "internal error")
            finally:
                game.abort()

    async def _play(self, game: Game) -> None:
        now, outbox = self.wakeup.now, self.outbox
        self.last_setup = game.setup
        self.stats.games_started += 1
        for i, msg in game.start_messages():
            client = self._game_clients[i]
            if client is not None:
                await outbox.send(client, msg)
        ready_deadline = now() + game.setup.ready_timeout_us / 1e6
        await self.wakeup.wait(lambda: game.all_ready or self._stop_game, ready_deadline)
        started = None if self._stop_game else game.begin(self.recorder_factory)
        if started is None:
            await self._abort(game, "too few bots ready" if not self._stop_game else "stopped")
            return
        await outbox.broadcast(started)
        if game.debug_mode:
            await outbox.broadcast(out.game_paused("debug_step"))
        timeout_s = game.setup.turn_timeout_us / 1e6
        while True:
            go = await self.wakeup.wait(
                lambda: (
                    (game.may_step and self.tps != 0)
                    or self._stop_game
                    or not game.participants_left
                ),
                None,
            )
            if self._stop_game or not game.participants_left or not go:
                await self._abort(game, "stopped" if self._stop_game else "every participant left")
                return
            turn_start = now()
            result, late = self._play_turn(game)
            sent = now()
            await outbox.send_late(late)
            while not result.round_ended:
                handed = await self._await_answers(game, sent + timeout_s)
                if handed is None:
                    break
                result, late, sent = handed  # turns played at the answers' arrival
                await outbox.send_late(late)
            if result.game_ended:
                self.stats.games_ended += 1
                return
            if self.tps > 0:
                await self.wakeup.wait(lambda: self._stop_game, turn_start + 1.0 / self.tps)

    def _play_turn(self, game: Game) -> tuple[TurnOutput, Late]:
        """Play a turn and write its messages, the bots' first; what could not be written yet
        is returned (for `Outbox.send_late`)."""
        outbox, batch = self.outbox, self.outbox.batch
        t0 = time.perf_counter()
        result = game.play_turn()
        clients = self._game_clients
        late = outbox.write(
            (client, [out.encode(m) for m in msgs])
            for i, msgs in result.to_bots.items()
            if (client := clients[i]) is not None
        )
        t1, now = time.perf_counter(), self.wakeup.now()
        batch.add(map(out.encode, game.observer_messages(result, bool(outbox.watchers))), now)
        if batch.held and not batch.may_hold(self.tps, game, result, now):
            held = batch.take()
            late += outbox.write([(c, held) for c in outbox.watchers])
        self._count_turn(t1 - t0, time.perf_counter() - t1, result)
        return result, late

    def _play_at_answer(self, game: Game) -> None:
        """Play the next turn in the read callback of the answer that completed this one."""
        batch = self.outbox.batch
        holding = bool(batch.held)
        try:
            result, late = self._play_turn(game)
        except Exception as e:  # ends this game (in the game loop), not this bot's connection
            self.handoff.failed(e)
        else:
            if not self.handoff.played(game, result, late, self.wakeup.now()):
                if batch.held and not holding:
                    self.wakeup.wake()  # the loop's wait now ends when these are due
                return
        self.wakeup.wake()

    async def _await_answers(self, game: Game, deadline: float) -> Handed | None:
        """Wait for the answers to the turn just played, until its deadline. Meanwhile at TPS
        -1 answers play further turns (TurnHandoff) and the deadline moves with each; this
        returns what was played only when the loop must carry on from it. Held observer
        messages are written when due meanwhile."""
        handoff, batch = self.handoff, self.outbox.batch
        handoff.game, handoff.deadline = game, deadline
        try:
            while True:
                due = self._due()

                def ready(due: float = due) -> bool:
                    return (
                        handoff.handed is not None
                        or game.all_answered
                        or self._stop_game
                        or not game.participants_left
                        or self._due() < due  # the first held messages came meanwhile
                    )

                await self.wakeup.wait(ready, due)
                handed = handoff.take()
                if isinstance(handed, Exception):
                    raise handed
                if handed is not None:
                    return handed
                if game.all_answered or self._stop_game or not game.participants_left:
                    return None
                now = self.wakeup.now()
                if now >= batch.flush_at():
                    handoff.game = None  # no turn is played while these are written
                    await self.outbox.broadcast(None)  # a slow turn keeps no observer waiting
                    handoff.game = game
                elif now >= handoff.deadline:
                    return None
        finally:
            handoff.game = None

    def _due(self) -> float:
        """When `_await_answers` must act: the turn's deadline, or writing the held messages."""
        return min(self.handoff.deadline, self.outbox.batch.flush_at())

    def _count_turn(self, bots_s: float, observers_s: float, result: TurnOutput) -> None:
        s = self.stats
        s.turns += 1
        s.turn_us_total += bots_s * 1e6
        s.turn_us.append(bots_s * 1e6)
        s.observer_us_total += observers_s * 1e6
        s.skipped_turns += result.skipped

    async def _abort(self, game: Game, why: str) -> None:
        log.info("game aborted: %s", why)
        game.abort()
        self.stats.games_aborted += 1
        await self.outbox.broadcast(out.game_aborted())
