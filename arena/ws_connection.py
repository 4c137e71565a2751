"""A websockets ServerConnection with a short path for the hot messages of hosted play.

A bot's intent and its next tick are the critical path of every hosted turn. Through websockets'
general machinery each incoming message is parsed by a generator, queued in the message
assembler and handed over by waking the connection's reader task; each outgoing one is framed
through the Sans-I/O protocol's writer. On this project's 2-core machines that costs as much as
the turn itself. So, once the HTTP upgrade is done, this connection reads the frame stream
itself (RFC 6455 §5.2: a client's frames are masked):

- a complete, unfragmented Text frame goes straight to `on_text` as text, inside
  `data_received`, when that callback is set (the server sets it after a bot's handshake), no
  message waits in the queue and no fragmented message is open, so nothing is overtaken;
- every other complete frame (control frames, Binary, fragments, any Text while `on_text` is
  None) is passed, whole, to websockets, which handles it exactly as it would have: it sees
  the same frames in the same order, always starting at a frame boundary;
- a frame websockets must refuse (unmasked, reserved bits, over the size limit) and everything
  after it go to websockets unread, which fails the connection with its usual close code; so does
  the stream after a Close frame.

`text_frames` frames server messages (unmasked Text) and `write_frames` writes them at once.
If this websockets lacks an internal the reader relies on, the connection simply stays on
websockets' own path.
"""

from collections.abc import Callable, Sequence
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.frames import Opcode
from websockets.protocol import State

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - websockets built without its C extension
    from websockets.utils import apply_mask

TextHandler = Callable[[str], None]

_TEXT, _CLOSE = int(Opcode.TEXT), int(Opcode.CLOSE)


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


class DirectConnection(ServerConnection):
    on_text: TextHandler | None = None
    """Set to take this connection's Text messages as they arrive; None = websockets' queue."""
    on_bad_text: Callable[[UnicodeDecodeError], None] | None = None
    """Called instead of `on_text` for a Text frame that is not UTF-8; it should close the
    connection with 1007, as websockets' own reader would."""

    _reading = False  # whether this class reads the frame stream
    _decided = False  # whether that was decided (on the first bytes after the upgrade)

    def data_received(self, data: bytes) -> None:
        if not self._reading:
            if not self._decided and self.protocol.state is State.OPEN:
                self._decided = True
                self._reading = self._at_frame_boundary()
                self._buffer = bytearray()
            if not self._reading:
                super().data_received(data)
                return
        buf = self._buffer
        buf += data
        pos, end = 0, len(buf)
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
            limit = self.protocol.max_message_size
            if not b1 & 0x80 or b0 & 0x70 or (limit is not None and length > limit):
                handed_over = True  # websockets refuses it, with its own close code
                break
            stop = head + 4 + length
            if stop > end:
                break
            opcode, handler = b0 & 0x0F, self.on_text
            if (
                opcode == _TEXT
                and b0 & 0x80
                and handler is not None
                and self.protocol.current_size is None
                and not len(self.recv_messages.frames)
            ):
                payload = apply_mask(buf[head + 4 : stop], buf[head : head + 4])
                pos = stop
                try:
                    text = str(payload, "utf-8")
                except UnicodeDecodeError as e:
                    if self.on_bad_text is not None:
                        self.on_bad_text(e)
                    continue
                handler(text)
            else:
                frame, pos = bytes(buf[pos:stop]), stop
                super().data_received(frame)
                if opcode == _CLOSE:
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

    def _at_frame_boundary(self) -> bool:
        """True if websockets' parser waits for the first byte of a frame with nothing buffered
        (its parse generators are suspended in the reader's `at_eof`, not inside a frame), and
        websockets has every internal this reader needs; otherwise websockets keeps the stream."""
        protocol = self.protocol
        if not (
            hasattr(protocol, "current_size")
            and hasattr(protocol, "max_message_size")
            and hasattr(getattr(self, "recv_messages", None), "frames")
            and getattr(getattr(protocol, "reader", None), "buffer", b"x") == b""
        ):
            return False
        gen: Any = getattr(protocol, "parser", None)
        while (inner := getattr(gen, "gi_yieldfrom", None)) is not None:
            gen = inner
        return getattr(getattr(gen, "gi_code", None), "co_name", None) == "at_eof"

    def write_frames(self, frames: bytes) -> bool:
        """Write frames made by `text_frames` if the connection is open; False (nothing
        written) if it is not. Raises what the transport's write raises."""
        if self.protocol.state is not State.OPEN:
            return False
        self.transport.write(frames)
        return True
