"""`tankrl arena serve`: run our Tank Royale server with the official server's options
(-p/--port, -g/--games, -b/--bot-secrets, -c/--controller-secrets, -t/--tps,
-i/--enable-initial-position) plus --host (default 127.0.0.1) and --seed. Ctrl-C stops it."""

import argparse
import asyncio
import contextlib
import logging
import signal
from typing import Any

from tankrl.arena.rules.game_setup import GAME_TYPES
from tankrl.arena.server import event_loop
from tankrl.arena.server.options import ServerOptions
from tankrl.arena.server.server import ArenaServer


def _csv(text: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in text.split(",") if s.strip())


def _port(text: str) -> int:
    port = int(text)
    if not (port == 0 or 1000 <= port <= 65535):
        raise argparse.ArgumentTypeError("port must be 1000-65535 (or 0 for any free port)")
    return port


def _tps(text: str) -> int:
    tps = int(text)
    if not -1 <= tps <= 999:
        raise argparse.ArgumentTypeError("tps must be -1 (unlimited), 0 (paused) or 1-999")
    return tps


def register(sub: "argparse._SubParsersAction[Any]") -> None:
    arena = sub.add_parser("arena", help="our Tank Royale server")
    arena.set_defaults(handler=lambda args: _usage(arena))
    actions = arena.add_subparsers(dest="arena_command", metavar="ACTION")
    p = actions.add_parser(
        "serve", help="serve the Tank Royale protocol to bots, controllers and observers"
    )
    p.add_argument("-p", "--port", type=_port, default=7654, help="TCP port (default 7654)")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="interface to bind (default 127.0.0.1; 0.0.0.0 opens every interface)",
    )
    p.add_argument(
        "-g",
        "--games",
        type=_csv,
        default=GAME_TYPES,
        help=f"advertised game types, comma-separated (default {','.join(GAME_TYPES)})",
    )
    p.add_argument("-b", "--bot-secrets", type=_csv, default=(), help="comma-separated bot secrets")
    p.add_argument(
        "-c",
        "--controller-secrets",
        type=_csv,
        default=(),
        help="comma-separated controller (and observer) secrets",
    )
    p.add_argument(
        "-t", "--tps", type=_tps, default=-1, help="turns per second (default -1 = unlimited)"
    )
    p.add_argument(
        "-i",
        "--enable-initial-position",
        action="store_true",
        help="honour the bots' requested initial positions",
    )
    p.add_argument(
        "--seed", type=int, default=None, help="seed of the first game (game k: seed + k)"
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log every connection")
    p.set_defaults(handler=serve)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def options_from_args(args: argparse.Namespace) -> ServerOptions:
    return ServerOptions(
        host=args.host,
        port=args.port,
        game_types=tuple(args.games) or GAME_TYPES,
        bot_secrets=tuple(args.bot_secrets),
        controller_secrets=tuple(args.controller_secrets),
        tps=args.tps,
        initial_positions=args.enable_initial_position,
        seed=args.seed,
    )


def serve(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        event_loop.run(_serve(options_from_args(args)))
    except KeyboardInterrupt:
        pass
    except OSError as e:
        print(f"error: {e}")
        return 1
    return 0


async def _serve(options: ServerOptions) -> None:
    server = ArenaServer(options)
    await server.start()
    print(f"tankrl arena server {server.version} on {server.url} (Ctrl-C stops it)", flush=True)
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(server.close()))
    await server.serve_forever()
