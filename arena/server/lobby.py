"""The lobby: bots that completed their handshake, and the choice of a game's participants from
the addresses a controller's StartGame lists (matched as the official server matches them).
Pure: arena/server/server.py adds and removes bots as they connect and leave.
"""

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tankrl.arena.server import messages as out

Json = dict[str, Any]


def canonical_host(host: str) -> str:
    """Address matching as the official server does it: 'localhost' and the IPv6 loopback are
    127.0.0.1, IPv4-mapped IPv6 addresses are their IPv4 address, names are lower-cased."""
    h = host.strip().strip("[]").lower()
    if h in ("localhost", "::1"):
        return "127.0.0.1"
    try:
        ip = ipaddress.ip_address(h)
    except ValueError:
        return h
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


@dataclass
class LobbyBot:
    """A bot that completed its handshake."""

    session_id: str
    info: Json
    host: str
    port: int
    initial_position: tuple[float | None, float | None, float | None] | None = None

    def bot_info(self) -> Json:
        return out.bot_info(self.session_id, self.info, self.host, self.port)


@dataclass
class Lobby:
    bots: dict[str, LobbyBot] = field(default_factory=dict)

    def add(self, bot: LobbyBot) -> None:
        self.bots[bot.session_id] = bot

    def remove(self, session_id: str) -> bool:
        return self.bots.pop(session_id, None) is not None

    def list_update(self) -> Json:
        return out.bot_list_update(b.bot_info() for b in self.bots.values())

    def select(self, addresses: Iterable[tuple[str, int]]) -> list[LobbyBot]:
        """The connected bots at these addresses, in the listed order, each once."""
        by_address = {(canonical_host(b.host), b.port): b for b in self.bots.values()}
        chosen: list[LobbyBot] = []
        for host, port in addresses:
            bot = by_address.get((canonical_host(host), port))
            if bot is not None and bot not in chosen:
                chosen.append(bot)
        return chosen
