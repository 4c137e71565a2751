"""`tankrl train`'s progress block: it names every actor that did not answer and why, an actor's
own failure and the learner's failed passes and saves, and still prints the rest."""

from tankrl.deploy.progress import report

LEARNER = {
    "policy_version": 7,
    "rounds_trained": 40,
    "win_rate": {"SpinBot": 0.5},
    "rounds_by_opponent": {"SpinBot": 10},
    "rounds_dropped": {"lag": 0, "stale_round": 2},
    "queue_depth": 1,
    "train_errors": 0,
    "save_errors": 0,
}


def test_every_silent_actor_is_named_with_its_reason() -> None:
    actors = [
        {"kind": "native", "index": 0, "turns_per_s": 1000.0, "rounds": 5, "state": "playing"},
        {"label": "native1", "no_answer": "restarting"},
        {"label": "hosted0", "no_answer": "busy: no answer within 10 s"},
        {"kind": "hosted", "index": 1, "state": "stopped", "error": "BattleError('x')"},
    ]
    text = report(60.0, LEARNER, actors)
    assert "policy_version 7" in text and "native 1,000" in text
    assert "native1: no answer (restarting)" in text
    assert "hosted0: no answer (busy: no answer within 10 s)" in text
    assert "hosted1: BattleError('x')" in text
    assert "native0" not in text  # a healthy actor needs no line


def test_the_learners_failures_and_silence_are_shown() -> None:
    text = report(60.0, {**LEARNER, "train_errors": 2, "save_errors": 1}, [])
    assert "train errors 2" in text and "save errors 1" in text
    quiet = report(60.0, {"no_answer": "restarting"}, [])
    assert "learner: no answer (restarting)" in quiet


def test_a_healthy_run_has_no_problem_line() -> None:
    text = report(60.0, LEARNER, [{"kind": "native", "index": 0, "state": "playing"}])
    assert "actors:" not in text and "errors" not in text


def test_the_training_speed_and_the_pool_are_shown() -> None:
    learner = {**LEARNER, "turns_trained": 150_000}
    native = {"kind": "native", "index": 0, "state": "playing",
              "pool": {"v40": [0.55, 20], "v60": [0.25, 8]}}  # fmt: skip
    text = report(100.0, learner, [native], trained_before=50_000)
    assert "trained 1,000" in text  # (150,000 - 50,000) turns in 100 s
    assert "pool (native0, our win rate): v40 55% (20), v60 25% (8)" in text


def test_versions_that_left_the_pool_are_counted_not_listed() -> None:
    wins = {"Surfer": 0.3, "v20": 0.6, "v40": 0.55, "v60": 0.25}
    learner = {**LEARNER, "win_rate": wins, "rounds_by_opponent": {n: 9 for n in wins}}
    native = {"kind": "native", "index": 0, "state": "playing",
              "pool": {"v40": [0.55, 20], "v60": [0.25, 8]}}  # fmt: skip
    line = report(60.0, learner, [native]).splitlines()[1]
    assert "Surfer 30% (9)" in line and "v40 55% (9)" in line and "v60 25% (9)" in line
    assert "v20" not in line and "1 former pool members" in line
    assert "v20 60% (9)" in report(60.0, learner, []).splitlines()[1]  # no pool: all shown
