"""Battles of official Python Bot API bots on our server: the battle runner plays a 3-round 1v1
between two scripted opponents (our test bots until actor/bots/ has them) and returns results;
`tankrl battle` prints the table and records a replay that re-simulates to the same state
hashes; an official bot presenting a wrong secret is refused and exits."""

import os
import subprocess
import sys
import time
from pathlib import Path

from tankrl.arena.replay import read_replay, resimulate
from tankrl.arena.server.battle import BattleSpec, run_battle
from tankrl.arena.server.options import ServerOptions
from tankrl.arena.server.thread import ServerThread


def test_a_1v1_of_scripted_opponents_completes_three_rounds(monkeypatch, opponent) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TANKRL_BOT_SEED", "5")
    spec = BattleSpec(bots=(opponent("SpinBot"), opponent("TrackFire")), rounds=3, seed=5,
                      turn_timeout_us=200_000)  # fmt: skip
    result = run_battle(spec)
    assert result.rounds == 3 and len(result.round_results) == 3
    assert [r["rank"] for r in result.results] == sorted(r["rank"] for r in result.results)
    assert sorted(r["id"] for r in result.results) == [1, 2]
    assert sum(r["firstPlaces"] for r in result.results) >= 3
    assert sum(r["totalScore"] for r in result.results) > 0
    assert result.seed == 5 and result.turns > 3


def test_tankrl_battle_prints_results_and_records_a_replay(tmp_path: Path, bots_dir: Path) -> None:
    replay = tmp_path / "battle.replay"
    spinner = str(bots_dir / "Spinner")
    cmd = [sys.executable, "-m", "tankrl", "battle", spinner, spinner, "--rounds", "1",
           "--seed", "9", "--record", str(replay), "--turn-timeout-us", "200000"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rank" in done.stdout and "Spinner" in done.stdout and "1 rounds" in done.stdout
    recorded = read_replay(replay)
    assert recorded.header["seed"] == 9 and recorded.results is not None
    resim = resimulate(recorded)
    assert resim.turns > 0 and resim.mismatches == []


def test_tankrl_battle_fails_cleanly_on_a_missing_bot() -> None:
    cmd = [sys.executable, "-m", "tankrl", "battle", "NoSuchBot", "Spinner"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "NoSuchBot" in done.stdout


def test_an_official_bot_with_a_wrong_secret_is_refused(boot, bots_dir: Path) -> None:  # type: ignore[no-untyped-def]
    with ServerThread(ServerOptions(port=0, bot_secrets=("right",))) as st:
        bot = boot(str(bots_dir / "Spinner"), st.url, "wrong")
        deadline = time.monotonic() + 30
        while bot.process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert bot.process.poll() is not None, "the refused bot should exit"
        assert st.call(lambda: len(st.server.lobby.bots)) == 0
        assert st.call(lambda: st.server.stats.protocol_errors) == 1


def test_tankrl_arena_serve_hosts_a_tankrl_battle(bots_dir: Path) -> None:
    serve = subprocess.Popen(
        [sys.executable, "-m", "tankrl", "arena", "serve", "-p", "0", "--seed", "3"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert serve.stdout is not None
        banner = serve.stdout.readline()
        url = banner.split(" on ")[1].split()[0]
        assert url.startswith("ws://127.0.0.1:"), banner
        spinner = str(bots_dir / "Spinner")
        cmd = [sys.executable, "-m", "tankrl", "battle", spinner, spinner, "--rounds", "1",
               "--server-url", url, "--turn-timeout-us", "200000"]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "1 rounds" in done.stdout
    finally:
        serve.terminate()
        assert serve.wait(timeout=20) == 0


def test_relative_weights_are_found_from_where_tankrl_battle_was_started() -> None:
    """TANKRL_WEIGHTS=weights/release/tankrl-v2.zip works from the repository's root although
    the bot runs in actor/bots/TankRL; a path that does not exist is one clear line, no
    traceback."""
    repo = Path(__file__).resolve().parents[2]
    cmd = [sys.executable, "-m", "tankrl", "battle", "actor/bots/TankRL", "Target",
           "--rounds", "1"]  # fmt: skip
    env = {**os.environ, "TANKRL_WEIGHTS": "weights/release/tankrl-v2.zip"}
    done = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "TankRL" in done.stdout and "1 rounds" in done.stdout
    env["TANKRL_WEIGHTS"] = "weights/no-such-policy.zip"
    bad = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=180)
    assert bad.returncode == 1
    assert "Traceback" not in bad.stdout + bad.stderr
    (line,) = [ln for ln in bad.stdout.splitlines() if "TANKRL_WEIGHTS" in ln]
    assert str(repo / "weights" / "no-such-policy.zip") in line
