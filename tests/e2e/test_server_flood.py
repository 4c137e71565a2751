"""A flood of idle connections cannot lock a real bot out: 300 WebSocket connections that never
send a handshake (and 50 TCP connections that never even upgrade) are open when two official Bot
API bots join, and their battle completes; the idle ones are closed to make room (1008)."""

import asyncio
import socket
import threading
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect

from tankrl.arena.server.battle import BattleSpec, run_battle
from tankrl.arena.server.options import ServerOptions
from tankrl.arena.server.thread import ServerThread

IDLE = 300
SILENT_TCP = 50


class Flood:
    """The idle connections, held open on an event loop of their own until `close()`."""

    def __init__(self, url: str, port: int) -> None:
        self.url, self.port = url, port
        self.opened = threading.Event()
        self.codes: list[int | None] = []
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._hold()), daemon=True)
        self._thread.start()

    async def _hold(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        tcp = [socket.create_connection(("127.0.0.1", self.port)) for _ in range(SILENT_TCP)]
        idle: list[ClientConnection] = []
        for _ in range(IDLE):
            ws = await connect(self.url, compression=None, open_timeout=30)
            await ws.recv()  # the ServerHandshake; then never a handshake of ours
            idle.append(ws)
        self.opened.set()
        await self._stop.wait()
        self.codes = [ws.close_code for ws in idle]
        for ws in idle:
            await ws.close()
        for s in tcp:
            s.close()

    def close(self) -> None:
        assert self._loop is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=60)


def test_idle_connections_do_not_keep_a_real_battle_out(bots_dir: Path) -> None:
    spinner = str(bots_dir / "Spinner")
    options = ServerOptions(port=0, seed=4, handshake_timeout_s=120.0)  # idle for the whole test
    with ServerThread(options) as st:
        flood = Flood(st.url, st.server.port)
        assert flood.opened.wait(timeout=120), "the flood did not open"
        result = run_battle(BattleSpec(bots=(spinner, spinner), server_url=st.url, rounds=1))
        flood.close()
        evicted = st.call(lambda: st.server.stats.evicted)
    assert result.rounds == 1 and sorted(r["id"] for r in result.results) == [1, 2]
    assert evicted >= IDLE - options.max_awaiting_per_address
    closed_for_room = [code for code in flood.codes if code == 1008]
    assert len(closed_for_room) >= IDLE - options.max_awaiting_per_address
