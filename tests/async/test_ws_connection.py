"""arena/server/connection.py on loopback: the server's own frame reader must deliver exactly what
websockets would, in the same order, however the bytes are split, and hand websockets every
frame it has to handle or refuse (pings, fragments, binary, close, unmasked, oversized); the
controller's counting reader counts exactly the messages with its prefix and leaves every other
one to websockets."""

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from tankrl.arena.server.connection import CountingClientConnection, DirectConnection, text_frames

MAX_SIZE = 100_000


@dataclass
class Seen:
    """What the server side received, both paths in arrival order."""

    conn: DirectConnection | None = None
    messages: list[tuple[str, str | bytes]] = field(default_factory=list)
    bad_text: list[UnicodeDecodeError] = field(default_factory=list)
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    closed: asyncio.Event = field(default_factory=asyncio.Event)


@pytest.fixture
async def link() -> AsyncIterator[tuple[ClientConnection, Seen]]:
    seen = Seen()

    async def handler(ws: ServerConnection) -> None:
        assert isinstance(ws, DirectConnection)
        seen.conn = ws
        ws.on_text = lambda text: seen.messages.append(("direct", text))
        ws.on_bad_text = seen.bad_text.append
        seen.opened.set()
        try:
            async for msg in ws:
                seen.messages.append(("queued", msg))
        except ConnectionClosed:
            pass
        finally:
            seen.closed.set()

    async with serve(  # no compression, as ArenaServer (a compressed frame is handed over)
        handler,
        "127.0.0.1",
        0,
        create_connection=DirectConnection,
        max_size=MAX_SIZE,
        compression=None,
    ) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}", max_size=None) as client:
            async with asyncio.timeout(5):
                await seen.opened.wait()
            yield client, seen


def masked(opcode: Opcode, data: bytes, fin: bool = True) -> bytes:
    """A client frame as websockets itself serialises it (masked)."""
    return Frame(opcode, data, fin).serialize(mask=True)


async def wait_for(seen: Seen, n: int) -> None:
    async with asyncio.timeout(5):
        while len(seen.messages) < n:
            await asyncio.sleep(0.005)


async def test_text_split_anywhere_arrives_whole_in_order(
    link: tuple[ClientConnection, Seen],
) -> None:
    client, seen = link
    rng = random.Random(3)
    texts = [("é" * rng.choice([0, 1, 62, 63, 64, 200, 40_000])) + str(i) for i in range(40)]
    stream = b"".join(masked(Opcode.TEXT, t.encode()) for t in texts)
    stream += masked(Opcode.PING, b"p1")
    conn = seen.conn
    assert conn is not None
    # the server's reader gets the stream in pieces of 1..20 bytes, headers split included
    pos = 0
    while pos < len(stream):
        step = rng.randint(1, 20)
        conn.data_received(stream[pos : pos + step])
        pos += step
    assert seen.messages == [("direct", t) for t in texts]
    # a real ping over the socket is answered (the reader passes control frames to websockets)
    async with asyncio.timeout(5):
        await (await client.ping(b"p2"))
    await client.send("after the ping")
    await wait_for(seen, len(texts) + 1)
    assert seen.messages[-1] == ("direct", "after the ping")


async def test_fragmented_and_binary_messages_keep_their_place(
    link: tuple[ClientConnection, Seen],
) -> None:
    client, seen = link
    assert client.transport is not None
    client.transport.write(
        masked(Opcode.TEXT, b"one")
        + masked(Opcode.TEXT, b"tw", fin=False)
        + masked(Opcode.CONT, b"o")
        + masked(Opcode.TEXT, b"three")
        + masked(Opcode.BINARY, b"\x04")
        + masked(Opcode.TEXT, b"five")
    )
    await wait_for(seen, 5)
    assert [m for _, m in seen.messages] == ["one", "two", "three", b"\x04", "five"]
    assert seen.messages[0] == ("direct", "one")
    assert seen.messages[1] == ("queued", "two")


async def test_invalid_utf8_goes_to_the_bad_text_callback(
    link: tuple[ClientConnection, Seen],
) -> None:
    client, seen = link
    assert client.transport is not None
    client.transport.write(masked(Opcode.TEXT, b"ok") + masked(Opcode.TEXT, b"\xff\xfe"))
    async with asyncio.timeout(5):
        while not seen.bad_text:
            await asyncio.sleep(0.005)
    assert seen.messages == [("direct", "ok")]
    assert "invalid start byte" in seen.bad_text[0].reason


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (Frame(Opcode.TEXT, b"unmasked").serialize(mask=False), 1002),
        (masked(Opcode.TEXT, b"x" * (MAX_SIZE + 1)), 1009),
        (bytes([0xC1, 0x80]) + b"\0\0\0\0", 1002),  # a reserved bit set, no extension agreed
        (masked(Opcode.CLOSE, (1000).to_bytes(2, "big") + b"bye"), 1000),
    ],
    ids=["unmasked", "too-big", "reserved-bit", "close"],
)
async def test_frames_websockets_must_handle_close_the_connection_its_way(
    link: tuple[ClientConnection, Seen], frame: bytes, code: int
) -> None:
    client, seen = link
    assert client.transport is not None
    client.transport.write(masked(Opcode.TEXT, b"before") + frame + masked(Opcode.TEXT, b"after"))
    async with asyncio.timeout(5):
        await seen.closed.wait()
        await client.wait_closed()
    assert client.close_code == code
    assert seen.messages == [("direct", "before")]


def test_text_frames_parse_back_with_websockets() -> None:
    payloads = [b"", b"a" * 125, b"b" * 126, b"c" * 65_535, b"d" * 65_536, "é".encode()]
    reader = StreamReader()
    reader.feed_data(text_frames(payloads))
    for data in payloads:
        parser = Frame.parse(reader.read_exact, mask=False)
        try:
            next(parser)
        except StopIteration as done:
            frame = done.value
        assert (frame.opcode, frame.fin, bytes(frame.data)) == (Opcode.TEXT, True, data)


# ---- the controller's side: CountingClientConnection ------------------------------------------
TICK = b'{"type":"Tick","n":'


@pytest.fixture
async def counting() -> AsyncIterator[tuple[CountingClientConnection, ServerConnection]]:
    """A client that counts server messages beginning with TICK, and the server's end."""
    server_end: asyncio.Future[ServerConnection] = asyncio.get_running_loop().create_future()
    release = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        server_end.set_result(ws)
        await release.wait()

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        async with connect(
            f"ws://127.0.0.1:{port}",
            compression=None,
            max_size=MAX_SIZE,
            create_connection=CountingClientConnection,
        ) as client:
            assert isinstance(client, CountingClientConnection)
            client.count_prefix = TICK
            async with asyncio.timeout(5):
                yield client, await server_end
            release.set()


def unmasked(opcode: Opcode, data: bytes, fin: bool = True) -> bytes:
    return Frame(opcode, data, fin).serialize(mask=False)


async def test_counted_messages_are_counted_however_split_and_the_rest_arrive_in_order(
    counting: tuple[CountingClientConnection, ServerConnection],
) -> None:
    client, _ = counting
    rng = random.Random(5)
    ticks = [(None, unmasked(Opcode.TEXT, TICK + b"%d}" % i + b" " * 200 * i)) for i in range(30)]
    texts = [f"other {i} " + "é" * rng.choice([0, 1, 125, 35_000]) for i in range(12)]
    delivered: list[tuple[str | bytes | None, bytes]] = [
        (t, unmasked(Opcode.TEXT, t.encode())) for t in texts
    ]
    delivered += [(TICK[:5].decode(), unmasked(Opcode.TEXT, TICK[:5]))]  # too short to count
    delivered += [(TICK, unmasked(Opcode.BINARY, TICK))]  # Binary is never counted
    frames = ticks + delivered
    rng.shuffle(frames)
    stream = b"".join(f for _, f in frames)
    counts: list[int] = []
    client.on_count = counts.append
    pos = 0
    while pos < len(stream):
        step = rng.randint(1, 20)
        client.data_received(stream[pos : pos + step])
        pos += step
    assert client.counted == 30 and counts == list(range(1, 31))
    expected = [m for m, _ in frames if m is not None]
    assert [await client.recv() for _ in expected] == expected


async def test_a_counting_client_still_answers_pings_and_refuses_masked_frames(
    counting: tuple[CountingClientConnection, ServerConnection],
) -> None:
    client, server_end = counting
    await server_end.send(TICK.decode() + "1}")
    async with asyncio.timeout(5):
        await (await server_end.ping(b"p"))  # answered by websockets on the client's side
        while client.counted < 1:
            await asyncio.sleep(0.005)
    assert server_end.transport is not None
    server_end.transport.write(masked(Opcode.TEXT, TICK + b"2}"))  # a server must not mask
    async with asyncio.timeout(5):
        await client.wait_closed()
    assert client.counted == 1
    assert client.protocol.close_sent is not None and client.protocol.close_sent.code == 1002


async def test_the_battle_runner_counts_counted_messages_as_signs_of_life(
    counting: tuple[CountingClientConnection, ServerConnection],
) -> None:
    """`tankrl battle` gives up on a server that sent nothing for its idle timeout; ticks it
    only counts are something."""
    from tankrl.arena.server.battle import BattleError, _recv_frame

    client, server_end = counting

    async def ticks_then_end() -> None:
        for i in range(12):
            await server_end.send(TICK.decode() + f"{i}}}")
            await asyncio.sleep(0.05)
        await server_end.send("the end")

    sending = asyncio.create_task(ticks_then_end())
    assert await _recv_frame(client, 0.2) == "the end"  # 0.6 s of ticks, none 0.2 s apart
    await sending
    with pytest.raises(BattleError, match="sent nothing for 0 s"):
        await _recv_frame(client, 0.2)
