"""The server's options (ServerOptions, what `tankrl arena serve` and the tests set) and its
counters (ServerStats, read by benchmarks, the training job's progress and logs)."""

from collections import deque
from dataclasses import dataclass, field

from tankrl.arena.rules.game_setup import GAME_TYPES


@dataclass(frozen=True)
class ServerOptions:
    host: str = "127.0.0.1"
    """Interface to bind; 127.0.0.1 unless asked to open others."""
    port: int = 7654
    """TCP port (0 = pick a free one)."""
    game_types: tuple[str, ...] = GAME_TYPES
    bot_secrets: tuple[str, ...] = ()
    controller_secrets: tuple[str, ...] = ()
    tps: int = -1
    """Turns per second: -1 unlimited (our default, for training), 0 paused."""
    initial_positions: bool = False
    """Honour the bots' initialPosition (--enable-initial-position)."""
    seed: int | None = None
    """Seed of the first game (game k uses seed + k); None = a random seed per game."""
    max_message_bytes: int = 1 << 20
    max_buffered_bytes: int = 1 << 20
    max_connections: int = 256
    max_awaiting_per_address: int = 16
    """Connections from one address that may wait for their handshake at once; a newer one
    closes the oldest, so a flood of idle sockets cannot lock a real bot out."""
    handshake_timeout_s: float = 10.0
    """How long a connection may take to send its handshake before it is closed."""
    send_timeout_s: float = 2.0
    close_timeout_s: float = 2.0
    ping_interval_s: float | None = 20.0
    observer_batch_s: float = 0.016
    """At TPS -1, observers' and controllers' ticks are held and written together, at most this
    long after the first of them (0 = each turn's at once): see ObserverBatch.may_hold."""
    play_at_answer: bool = True
    """At TPS -1, play a turn as its last answer arrives (False: the game loop plays every
    turn; `python -m bench.server_ab` compares the two): see TurnHandoff."""


@dataclass
class ServerStats:
    """Counters for the benchmark and for logs. `turn_us` is the server's critical path of a
    turn (engine step, the bots' messages built, serialised and written), the most recent turns
    kept; observers' messages are built and sent after that, in `observer_us_total`."""

    turns: int = 0
    turn_us_total: float = 0.0
    turn_us: deque[float] = field(default_factory=lambda: deque(maxlen=100_000))
    observer_us_total: float = 0.0
    skipped_turns: int = 0
    games_started: int = 0
    games_ended: int = 0
    games_aborted: int = 0
    connections: int = 0
    protocol_errors: int = 0
    ignored_requests: int = 0
    slow_clients: int = 0
    evicted: int = 0
    """Connections closed before their handshake to make room (ServerOptions'
    max_awaiting_per_address, max_connections)."""

    @property
    def mean_turn_us(self) -> float:
        return self.turn_us_total / self.turns if self.turns else 0.0
