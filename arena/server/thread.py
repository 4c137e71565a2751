"""Run an ArenaServer on its own event loop in a background thread, for synchronous callers
(tests, the benchmark, the training job):

    with ServerThread(ServerOptions(port=0)) as server:
        print(server.url)

`call()` runs a function on the server's loop and returns its result (the server is not
thread-safe; read or change it only through `call`).
"""

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from tankrl.arena.rules.engine import compile_rules
from tankrl.arena.server import event_loop
from tankrl.arena.server.game import RecorderFactory
from tankrl.arena.server.options import ServerOptions
from tankrl.arena.server.server import ArenaServer

T = TypeVar("T")


class ServerThread:
    def __init__(
        self,
        options: ServerOptions | None = None,
        recorder_factory: RecorderFactory | None = None,
        start_timeout_s: float = 10.0,
    ) -> None:
        self.server = ArenaServer(options, recorder_factory)
        self._start_timeout_s = start_timeout_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started: Future[None] = Future()
        self._thread = threading.Thread(target=self._main, name="arena-server", daemon=True)

    def _main(self) -> None:
        event_loop.run(self._serve())

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        try:
            await self.server.start()
        except BaseException as e:
            self._started.set_exception(e)
            raise
        self._started.set_result(None)
        await self.server.serve_forever()

    def start(self) -> ArenaServer:
        compile_rules()  # may take a while the first time; the start timeout is for binding
        self._thread.start()
        self._started.result(timeout=self._start_timeout_s)
        return self.server

    def call(self, fn: Callable[[], T], timeout_s: float = 10.0) -> T:
        """Run `fn()` on the server's loop and return its result."""
        assert self._loop is not None, "start() first"

        async def run() -> T:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result(timeout_s)

    def stop(self, timeout_s: float = 10.0) -> None:
        if self._loop is not None and self._thread.is_alive():
            fut = asyncio.run_coroutine_threadsafe(self.server.close(), self._loop)
            fut.result(timeout_s)
        self._thread.join(timeout_s)

    @property
    def url(self) -> str:
        return self.server.url

    def __enter__(self) -> "ServerThread":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
