"""websockets connections with a short path for the hot messages of hosted play.

A bot's intent and its next tick are the critical path of every hosted turn. Through websockets'
general machinery each incoming message is parsed by a generator, queued in the message
assembler and handed over by waking the connection's reader task; each outgoing one is framed
through the Sans-I/O protocol's writer, which on 2 cores costs about as much as the turn itself.
So, once the HTTP upgrade is done, these connections read the frame stream
themselves (RFC 6455 §5.2; a client's frames are masked, a server's are not):

- `DirectConnection` (the server's): a complete, unfragmented Text frame goes straight to
  `on_text` as text, inside `data_received`, when that callback is set (the server sets it
  after a bot's handshake), no message waits in the queue and no fragmented message is open, so
  nothing is overtaken;
- `CountingClientConnection` (a controller's that only counts observer ticks): a complete Text
  frame that begins with `count_prefix` is counted in `counted` and dropped, undecoded, as it
  arrives (so it may be counted before messages ahead of it are read);
- every other complete frame (control frames, Binary, fragments, any other Text) is passed,
  whole, to websockets, which handles it exactly as it would have: it sees the same frames in
  the same order, always starting at a frame boundary;
- a frame websockets must refuse (masked the wrong way, reserved bits, over the size limit) and
  everything after it go to websockets unread, which fails the connection with its usual close
  code; so does the stream after a Close frame.

`text_frames` frames server messages (unmasked Text) and `write_frames` writes them at once.
If this websockets lacks an internal the reader relies on, the connection simply stays on
websockets' own path.
"""

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.connection import Connection
from websockets.asyncio.server import ServerConnection
from websockets.frames import Opcode
from websockets.protocol import State

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - websockets built without its C extension
    from websockets.utils import apply_mask

TextHandler = Callable[[str], None]

_TEXT, _CLOSE = int(Opcode.TEXT), int(Opcode.CLOSE)
_FIN_TEXT = 0x80 | _TEXT


def text_frames(payloads: Sequence[bytes]) -> bytes:
    """UTF-8 payloads as a server's Text frames (final, unmasked), back to back."""
    parts: list[bytes] = []
    for data in payloads:
        n = len(data)
        if n < 126:
            parts.append(bytes((0x81, n)))
        elif n < 1 << 16:
            parts.append(b"\x81\x7e" + n.to_bytes(2, "big"))
        else:
            parts.append(b"\x81\x7f" + n.to_bytes(8, "big"))
        parts.append(data)
    return b"".join(parts)


class _FrameReader(Connection):
    """Reads the frame stream after the upgrade and offers each complete frame to `_take`;
    what it does not take goes to websockets whole (see the module's docstring)."""

    _MASKED: ClassVar[bool]  # whether the peer's frames must be masked (it is a client)
    _reading = False  # whether this class reads the frame stream
    _decided = False  # whether that was decided (at the first frame boundary after the upgrade)

    def _take(self, b0: int, buf: bytearray, start: int, stop: int) -> bool:
        """Consume the frame whose first byte is `b0` and payload `buf[start:stop]` (masked
        by `buf[start - 4:start]` when `_MASKED`); False = hand it to websockets."""
        raise NotImplementedError

    def data_received(self, data: bytes) -> None:
        if not self._reading:
            if not self._decided and self.protocol.state is State.OPEN and _at_boundary(self):
                self._decided = self._reading = True
                self._buffer = bytearray()
            if not self._reading:
                super().data_received(data)
                return
        buf = self._buffer
        buf += data
        pos, end = 0, len(buf)
        masked, limit = self._MASKED, self.protocol.max_message_size
        handed_over = False
        while end - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            length, head = b1 & 0x7F, pos + 2
            if length == 126:
                if end - head < 2:
                    break
                length, head = int.from_bytes(buf[head : head + 2], "big"), head + 2
            elif length == 127:
                if end - head < 8:
                    break
                length, head = int.from_bytes(buf[head : head + 8], "big"), head + 8
            if bool(b1 & 0x80) is not masked or b0 & 0x70 or (limit is not None and length > limit):
                handed_over = True  # websockets refuses it, with its own close code
                break
            if masked:
                head += 4
            stop = head + length
            if stop > end:
                break
            if self._take(b0, buf, head, stop):
                pos = stop
                continue
            frame, pos = bytes(buf[pos:stop]), stop
            super().data_received(frame)
            if b0 & 0x0F == _CLOSE:
                handed_over = True
                break
        if handed_over:
            rest = bytes(buf[pos:])
            self._reading = False
            buf.clear()
            if rest:
                super().data_received(rest)
        else:
            del buf[:pos]


def _at_boundary(conn: Connection) -> bool:
    """True if websockets' parser waits for the first byte of a frame with nothing buffered
    (its parse generators are suspended in the reader's `at_eof`, not inside a frame), and
    websockets has every internal the reader needs; otherwise websockets keeps the stream for
    now (a client may get the server's first frame with the upgrade response)."""
    protocol = conn.protocol
    if not (
        hasattr(protocol, "current_size")
        and hasattr(protocol, "max_message_size")
        and hasattr(getattr(conn, "recv_messages", None), "frames")
        and getattr(getattr(protocol, "reader", None), "buffer", b"x") == b""
    ):
        return False
    gen: Any = getattr(protocol, "parser", None)
    while (inner := getattr(gen, "gi_yieldfrom", None)) is not None:
        gen = inner
    return getattr(getattr(gen, "gi_code", None), "co_name", None) == "at_eof"


class DirectConnection(_FrameReader, ServerConnection):
    _MASKED = True

    on_text: TextHandler | None = None
    """Set to take this connection's Text messages as they arrive; None = websockets' queue."""
    on_bad_text: Callable[[UnicodeDecodeError], None] | None = None
    """Called instead of `on_text` for a Text frame that is not UTF-8; it should close the
    connection with 1007, as websockets' own reader would."""

    def _take(self, b0: int, buf: bytearray, start: int, stop: int) -> bool:
        handler = self.on_text
        if b0 != _FIN_TEXT or handler is None or not self._in_order():
            return False
        payload = apply_mask(buf[start:stop], buf[start - 4 : start])
        try:
            text = str(payload, "utf-8")
        except UnicodeDecodeError as e:
            if self.on_bad_text is not None:
                self.on_bad_text(e)
            return True
        handler(text)
        return True

    def _in_order(self) -> bool:
        """Whether a message may pass websockets now: no fragmented message is open and none
        waits in its queue."""
        return self.protocol.current_size is None and not len(self.recv_messages.frames)

    def write_frames(self, frames: bytes) -> bool:
        """Write frames made by `text_frames` if the connection is open; False (nothing
        written) if it is not. Raises what the transport's write raises."""
        if self.protocol.state is not State.OPEN:
            return False
        self.transport.write(frames)
        return True


class CountingClientConnection(_FrameReader, ClientConnection):
    """A controller's connection (`connect(..., create_connection=CountingClientConnection)`)
    that counts, and does not deliver, the Text messages beginning with `count_prefix` (UTF-8):
    for a controller that follows a game by its other messages and only counts the ticks."""

    _MASKED = False

    count_prefix: bytes | None = None
    counted = 0
    on_count: Callable[[int], None] | None = None
    """Called with `counted` after each message it counts."""

    def _take(self, b0: int, buf: bytearray, start: int, stop: int) -> bool:
        prefix = self.count_prefix
        if b0 != _FIN_TEXT or prefix is None or not buf.startswith(prefix, start, stop):
            return False
        if self.protocol.current_size is not None:
            return False  # a Text frame inside a fragmented message: websockets refuses it
        self.counted += 1
        if self.on_count is not None:
            self.on_count(self.counted)
        return True
