"""`tankrl replay FILE [--out PAGE] [--open]`: turn a recorded battle into one self-contained HTML
page that plays it (canvas, play/pause/step, speed, turn slider).

Reads the replay, re-simulates it with arena/replay_frames.py (every state hash checked), encodes
the frames compactly (`page_data`, pure) into the deploy/replay_page.html template and writes it.
"""

import argparse
import html
import json
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tankrl.arena.replay import Replay
    from tankrl.arena.replay_frames import Frame

TEMPLATE = "replay_page.html"
DATA_MARK = "__TANKRL_DATA__"
TITLE_MARK = "__TANKRL_TITLE__"


def register(sub: "argparse._SubParsersAction[Any]") -> None:
    p = sub.add_parser(
        "replay",
        help="write an HTML page that plays a recorded battle",
        description="Re-simulate a replay (recorded with `tankrl battle --record FILE`), check "
        "every turn's state hash, and write one self-contained HTML page that plays it. "
        "Open a given turn with the URL fragment #turn=T&round=R&paused=1.",
    )
    p.add_argument("file", type=Path, metavar="FILE", help="replay file")
    p.add_argument(
        "--out", type=Path, default=None, help="page to write (default: FILE with .html)"
    )
    p.add_argument("--open", action="store_true", help="open the page in the default browser")
    p.set_defaults(handler=replay)


def _r(v: float) -> float:
    return round(v, 2)


def _frame_data(f: "Frame") -> dict[str, Any]:
    """One frame as the page reads it: b = per seat [x, y, direction, gun, radar, sweep, energy,
    alive, scanned, score, wins]; u = bullets [id, owner seat, x, y, direction, power];
    x = blasts [kind, x, y]; e = 1 on the turn a round ended."""
    out: dict[str, Any] = {
        "r": f.round_number,
        "t": f.turn_number,
        "b": [
            [
                _r(b.x),
                _r(b.y),
                _r(b.direction),
                _r(b.gun_direction),
                _r(b.radar_direction),
                _r(b.radar_sweep),
                _r(b.energy),
                int(b.alive),
                int(b.scanned),
                _r(b.score),
                b.wins,
            ]
            for b in f.bots
        ],
    }
    if f.bullets:
        out["u"] = [
            [u.bullet_id, u.owner, _r(u.x), _r(u.y), _r(u.direction), _r(u.power)]
            for u in f.bullets
        ]
    if f.blasts:
        out["x"] = [[x.kind, _r(x.x), _r(x.y)] for x in f.blasts]
    if f.round_ended:
        out["e"] = 1
    return out


def page_data(replay: "Replay", frames: "list[Frame]") -> dict[str, Any]:
    """Everything the page needs, JSON-ready."""
    setup = replay.setup
    return {
        "arena": [setup.arena_width, setup.arena_height],
        "names": [str(n) for n in replay.header["names"]],
        "rounds": setup.number_of_rounds,
        "tps": setup.default_turns_per_second,
        "seed": str(replay.header.get("seed")),
        "results": replay.results,
        "frames": [_frame_data(f) for f in frames],
    }


def render_page(template: str, data: dict[str, Any], title: str) -> str:
    """The template with the data (as JSON safe inside a <script>) and the title filled in."""
    if DATA_MARK not in template or TITLE_MARK not in template:
        raise ValueError(f"the replay page template lacks {DATA_MARK} or {TITLE_MARK}")
    blob = json.dumps(data, separators=(",", ":"), allow_nan=False)
    blob = blob.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return template.replace(TITLE_MARK, html.escape(title)).replace(DATA_MARK, blob)


def write_page(replay_path: Path, out: Path) -> tuple[int, int]:
    """Re-simulate `replay_path` and write its page to `out`; returns (turns, bytes written)."""
    from tankrl.arena.replay import read_replay
    from tankrl.arena.replay_frames import replay_frames

    replay = read_replay(replay_path)
    frames = replay_frames(replay)
    if not frames:
        raise ValueError(f"{replay_path} holds no turns")
    template = resources.files("tankrl.deploy").joinpath(TEMPLATE).read_text(encoding="utf-8")
    title = f"tankrl replay: {' vs '.join(map(str, replay.header['names']))} ({replay_path.name})"
    text = render_page(template, page_data(replay, frames), title)
    out.write_text(text, encoding="utf-8")
    return len(frames), len(text.encode("utf-8"))


def replay(args: argparse.Namespace) -> int:
    from tankrl.arena.replay import ReplayError

    out: Path = args.out if args.out is not None else args.file.with_suffix(".html")
    try:
        turns, size = write_page(args.file, out)
    except (ReplayError, OSError, ValueError, KeyError) as e:
        print(f"error: {e}")
        return 1
    print(f"wrote {out} ({turns} turns, {size / 1024:.0f} KiB)")
    if args.open:
        import webbrowser

        if not webbrowser.open(out.resolve().as_uri()):
            print("could not open a browser; open the file above yourself")
    return 0
