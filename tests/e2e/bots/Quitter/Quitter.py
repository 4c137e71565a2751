"""Test bot: a raw Tank Royale bot (no Bot API) that circles and fires at every turn, then drops
its connection abruptly (a TCP reset, no Close frame) at the moment the environment variable
QUITTER_AT names: `mid-round:R:T` (on turn T of round R), `between-rounds:R` (after round R's
end), `after-game-end` (as the game's end arrives) or `never`."""

import json
import os
import socket
import struct

from websockets.sync.client import ClientConnection, connect


def drop(ws: ClientConnection) -> None:
    """Vanish without a Close frame (with QUITTER_RESET=1 by a TCP reset); with QUITTER_REFUSED=1
    first send a message the server must refuse, so it closes us while the game goes on."""
    if os.environ.get("QUITTER_REFUSED") == "1":
        ws.send(json.dumps({"type": "NoSuchMessage"}))
    if os.environ.get("QUITTER_RESET") == "1":
        ws.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    ws.socket.close()
    os._exit(0)


def main() -> None:
    at = os.environ.get("QUITTER_AT", "never")
    ws = connect(os.environ["SERVER_URL"], compression=None, open_timeout=30)
    hello = json.loads(ws.recv())
    handshake = {
        "type": "BotHandshake",
        "sessionId": hello["sessionId"],
        "version": "1.0",
        "name": os.environ.get("BOT_NAME", "Quitter"),
        "authors": ["tankrl tests"],
    }
    ws.send(json.dumps(handshake))
    intent = json.dumps({"type": "BotIntent", "turnRate": 10, "targetSpeed": 4, "firepower": 3})
    while True:
        msg = json.loads(ws.recv())
        kind = msg["type"]
        if kind == "GameStartedEventForBot":
            ws.send(json.dumps({"type": "BotReady"}))
        elif kind == "TickEventForBot":
            ws.send(intent)  # then vanish while the server is about to write the next tick
            if at == f"mid-round:{msg['roundNumber']}:{msg['turnNumber']}":
                drop(ws)
        elif kind == "RoundEndedEventForBot" and at == f"between-rounds:{msg['roundNumber']}":
            drop(ws)
        elif kind == "GameEndedEventForBot":
            if at == "after-game-end":
                drop(ws)
            ws.close()
            return


if __name__ == "__main__":
    main()
