"""The replay page (`tankrl replay`) in headless Chromium: opened at a given turn through its URL
fragment, it draws every tank where the recording puts it — checked in the page's exposed state
(canvas pixels, y flipped) and in a screenshot's pixel colours — and it plays when not paused.

The battle is recorded in-process (engine + ReplayRecorder, scripted intents); expected positions
come from the engine while recording, not from the page's own frames. Needs Chromium (Debian
package `chromium`; .ci/run installs it); skipped only when no Chromium binary can be found.
"""

import contextlib
import html
import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from tankrl.arena.replay import ReplayRecorder
from tankrl.arena.rules.engine import Engine
from tankrl.arena.rules.game_setup import GameSetup
from tankrl.deploy.replay_cmd import write_page
from tankrl.shared.intent import Intent

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
WIDTH, HEIGHT = 800, 600
SETUP = GameSetup(number_of_rounds=2, gun_cooling_rate=0.5, max_number_of_participants=None)
PIXEL_TOLERANCE = 2.0


def find_chromium() -> str | None:
    """$TANKRL_CHROMIUM, else the first Chromium/Chrome on PATH."""
    env = os.environ.get("TANKRL_CHROMIUM")
    if env:
        return env
    return next((p for p in map(shutil.which, CHROMIUM_NAMES) if p), None)


@pytest.fixture(scope="module")
def chromium() -> str:
    binary = find_chromium()
    if binary is None:
        pytest.skip(
            "no Chromium found (tried $TANKRL_CHROMIUM and " + ", ".join(CHROMIUM_NAMES) + "); "
            "install it with `apt-get install chromium` (.ci/run does)"
        )
    return binary


def run_chromium(binary: str, profile: Path, url: str, *args: str) -> str:
    """Run headless Chromium once with a fresh profile; returns its stdout. Its process group is
    killed afterwards, so no renderer outlives the test."""
    profile.mkdir(parents=True)
    cmd = [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, url]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=90)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == 0, err[-2000:]
    return out


def page_state(dom: str) -> dict[str, Any]:
    m = re.search(r'<pre id="tankrl-state">(.*?)</pre>', dom, re.S)
    assert m is not None and m.group(1), "the page wrote no state"
    state: dict[str, Any] = json.loads(html.unescape(m.group(1)))
    return state


def scripted(engine: Engine) -> list[Intent]:
    """Both seats drive in arcs, keep the gun on the enemy, sweep the radar and fire on sight."""
    b, t = engine.bots, float(engine.turn_number[0])
    out = []
    for seat in (0, 1):
        other = 1 - seat
        aim = np.degrees(np.arctan2(b.y[:, other] - b.y[:, seat], b.x[:, other] - b.x[:, seat]))
        it = Intent.zeros(1)
        it.target_speed[:] = 6.0 * np.sign(np.sin(t / 29.0 + 1.7 * seat) + 0.3)
        it.turn_rate[:] = 8.0 * np.sin(t / 13.0 + seat)
        it.gun_turn_rate[:] = (aim - b.gun_direction[:, seat] + 180.0) % 360.0 - 180.0
        it.radar_turn_rate[:] = 30.0 if seat == 0 else -25.0
        it.firepower[:] = np.where(engine.events.scans[:, seat, other], 2.5, 0.0)
        out.append(it)
    return out


@pytest.fixture(scope="module")
def battle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """A recorded 2-round battle, its page, and the engine's state after every turn."""
    d = tmp_path_factory.mktemp("replay_page")
    engine = Engine(SETUP, 1, 2, seeds=[5])
    recorder = ReplayRecorder(d / "battle.replay", engine, names=["Alpha", "Bravo"])
    states = []
    while not engine.game_over[0]:
        for seat, it in enumerate(scripted(engine)):
            engine.set_intent(seat, it)
        recorder.step()
        b, bl = engine.bots, engine.bullets
        states.append(
            {
                "round": int(engine.round_number[0]),
                "turn": int(engine.turn_number[0]),
                "xy": [(float(b.x[0, i]), float(b.y[0, i])) for i in range(2)],
                "energy": [float(b.energy[0, i]) for i in range(2)],
                "alive": [bool(b.in_map[0, i]) for i in range(2)],
                "bullets": [
                    (float(bl.x[k, 0]), float(bl.y[k, 0]))
                    for k in range(engine.bullet_width)
                    if bl.active[k, 0]
                ],
            }
        )
    recorder.close()
    turns, _ = write_page(d / "battle.replay", d / "battle.html")
    assert turns == len(states)
    return d / "battle.html", states


def clear_turn(states: list[dict[str, Any]], round_number: int) -> int:
    """A turn of the round where both tanks are alive, far apart, away from the walls, not hit
    and with no bullet near them, and where flipping y would move each by > 40 units."""
    for i in range(1, len(states)):
        s, prev = states[i], states[i - 1]
        (x0, y0), (x1, y1) = s["xy"]
        if (
            s["round"] == round_number
            and s["turn"] > 20
            and all(s["alive"])
            and s["energy"] == prev["energy"]
            and np.hypot(x1 - x0, y1 - y0) > 150
            and all(60 < x < WIDTH - 60 and 60 < y < HEIGHT - 60 for x, y in s["xy"])
            and all(abs(HEIGHT - 2 * y) > 40 for _, y in s["xy"])
            and all(np.hypot(bx - x, by - y) > 45 for bx, by in s["bullets"] for x, y in s["xy"])
        ):
            return i
    raise AssertionError(f"round {round_number} has no clear turn to check")


def open_at(path: Path, state: dict[str, Any]) -> str:
    return f"{path.as_uri()}#turn={state['turn']}&round={state['round']}&paused=1"


@pytest.mark.parametrize("round_number", [1, 2])
def test_page_draws_each_tank_where_the_recording_puts_it(
    chromium: str, battle: tuple[Path, list[dict[str, Any]]], tmp_path: Path, round_number: int
) -> None:
    page, states = battle
    i = clear_turn(states, round_number)
    dom = run_chromium(
        chromium, tmp_path / "profile", open_at(page, states[i]),
        "--virtual-time-budget=2000", "--dump-dom",
    )  # fmt: skip
    state = page_state(dom)
    assert (state["turnIndex"], state["round"], state["turn"]) == (
        i,
        states[i]["round"],
        states[i]["turn"],
    )
    assert state["playing"] is False and state["frames"] == len(states)
    scale = state["scale"]
    assert state["canvas"]["width"] == round(WIDTH * scale)
    drawn = {t["id"]: t for t in state["drawn"]}
    assert sorted(drawn) == [1, 2]
    for seat, (x, y) in enumerate(states[i]["xy"]):
        tank = drawn[seat + 1]
        assert abs(tank["x"] - x * scale) <= PIXEL_TOLERANCE, (seat, tank, x)
        assert abs(tank["y"] - (HEIGHT - y) * scale) <= PIXEL_TOLERANCE, (seat, tank, y)
        assert tank["energy"] == pytest.approx(states[i]["energy"][seat], abs=0.01)
    assert len(state["bullets"]) == len(states[i]["bullets"])


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def test_screenshot_has_each_tank_body_at_its_recorded_position(
    chromium: str, battle: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    page, states = battle
    i = clear_turn(states, 1)
    url = open_at(page, states[i])
    state = page_state(
        run_chromium(chromium, tmp_path / "p1", url, "--virtual-time-budget=2000", "--dump-dom")
    )
    canvas, scale = state["canvas"], state["scale"]
    shot = tmp_path / "shot.png"
    size = f"--window-size={canvas['width'] + 500},{canvas['height'] + 300}"
    run_chromium(
        chromium, tmp_path / "p2", url, "--virtual-time-budget=2000", size, f"--screenshot={shot}"
    )
    img = np.asarray(Image.open(shot).convert("RGB")).astype(np.int32)
    for seat, (x, y) in enumerate(states[i]["xy"]):
        tank = next(t for t in state["drawn"] if t["id"] == seat + 1)
        px = canvas["left"] + x * scale
        py = canvas["top"] + (HEIGHT - y) * scale
        # body: the pixels of the tank's colour near it are centred on the recorded position
        r = int(30 * scale) + 2
        x0, y0 = int(px) - r, int(py) - r
        patch = img[y0 : int(py) + r + 1, x0 : int(px) + r + 1]
        body = np.abs(patch - np.array(_rgb(tank["color"]))).max(axis=2) <= 3
        assert body.sum() > 300 * scale * scale, (seat, int(body.sum()))
        ys, xs = np.nonzero(body)
        cx, cy = x0 + xs.mean() + 0.5, y0 + ys.mean() + 0.5  # pixel i covers [i, i + 1)
        assert abs(cx - px) <= PIXEL_TOLERANCE, (seat, cx, px)
        assert abs(cy - py) <= PIXEL_TOLERANCE, (seat, cy, py)
        # turret: its colour at the centre
        cr, cc = round(py), round(px)
        centre = img[cr - 1 : cr + 2, cc - 1 : cc + 2]
        turret = np.abs(centre - np.array(_rgb(tank["turret"]))).max(axis=2) <= 3
        assert turret.any(), (seat, centre.tolist())


def test_page_plays_when_not_paused(
    chromium: str, battle: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    page, _ = battle
    dom = run_chromium(
        chromium, tmp_path / "profile", f"{page.as_uri()}#frame=5&speed=4",
        "--virtual-time-budget=1500", "--dump-dom",
    )  # fmt: skip
    state = page_state(dom)
    assert state["playing"] is True and state["speed"] == 4
    assert state["turnIndex"] >= 5
