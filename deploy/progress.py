"""The training progress report: learner and bot-actor stats turned into a few lines of text
(rounds, turns/s by kind, policy_version, win rate per opponent, losses, drops). Pure."""

from typing import Any

from tankrl.actor.pool import MEMBER_NAME


def _rate(x: float) -> str:
    return f"{x:,.0f}"


def _cell(name: str, rate: float, rounds: float) -> str:
    """One opponent: its recent win rate and over how many rounds."""
    return f"{name} {100 * rate:.0f}% ({rounds:.0f})"


def win_table(wins: dict[str, float], rounds: dict[str, int], pool: set[str] | None = None) -> str:
    """Recent win rate per opponent; self-play members (`v<version>`) only while in `pool`
    (when given), so a long run's line does not list every version that ever passed through."""
    if not wins:
        return "win rate: (no finished rounds yet)"
    gone = {n for n in wins if pool is not None and MEMBER_NAME.fullmatch(n) and n not in pool}
    cells = [
        _cell(name, rate, rounds.get(name, 0)) for name, rate in wins.items() if name not in gone
    ]
    if gone:
        cells.append(f"{len(gone)} former pool members")
    return "win rate (recent rounds): " + ", ".join(cells)


def report(
    elapsed_s: float,
    learner: dict[str, Any],
    actors: list[dict[str, Any]],
    trained_before: int = 0,
) -> str:
    """A progress block for one moment of the run. An actor (or the learner) that did not
    answer is a dict with `label` and `no_answer` (the reason); an actor's own failure is its
    `error`. `trained_before`: turns the learner had trained when this run began (a resumed
    run's), so the training speed is this run's."""
    by_kind: dict[str, float] = {}
    rounds = 0.0
    skipped = 0.0
    for a in actors:
        by_kind[a.get("kind", "?")] = by_kind.get(a.get("kind", "?"), 0.0) + a.get("turns_per_s", 0)
        rounds += a.get("rounds", 0)
        skipped += a.get("skipped_turns", 0)
    speeds = ", ".join(f"{k} {_rate(v)}" for k, v in sorted(by_kind.items())) or "-"
    trained = max(0, learner.get("turns_trained", trained_before) - trained_before)
    last = learner.get("last_pass") or {}
    dropped = {k: v for k, v in (learner.get("rounds_dropped") or {}).items() if v}
    pools = [a["pool"] for a in actors if "pool" in a]  # name -> [our win rate, rounds]
    lines = [
        f"[{elapsed_s / 60:5.1f} min] policy_version {learner.get('policy_version', 0)}  "
        f"rounds played {int(rounds)}  trained {learner.get('rounds_trained', 0)}  "
        f"turns/s {speeds}, trained {_rate(trained / max(elapsed_s, 1e-9))}",
        "  "
        + win_table(
            learner.get("win_rate") or {},
            learner.get("rounds_by_opponent") or {},
            set().union(*pools) if pools else None,
        ),
    ]
    if last:
        lines.append(
            "  loss: policy {:.4f}  value {:.4f}  entropy {:.3f}  approx_kl {:.4f}  "
            "explained_var {:.2f}  return {:.2f}".format(
                last.get("policy_loss", float("nan")),
                last.get("value_loss", float("nan")),
                last.get("entropy", float("nan")),
                last.get("approx_kl", float("nan")),
                last.get("explained_variance", float("nan")),
                learner.get("episodic_return", float("nan")),
            )
            + (f"  bc {last['bc_loss']:.4f}" if last.get("bc_loss") else "")
        )
    extra = f"  drops {dropped}" if dropped else "  drops none"
    extra += f"  queue {learner.get('queue_depth', 0)}"
    if skipped:
        extra += f"  skipped turns {int(skipped)}"
    failed = {k: learner.get(k, 0) for k in ("train_errors", "save_errors") if learner.get(k)}
    if failed:
        extra += "  learner " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in failed.items())
    lines.append(extra)
    problems = [f"learner: no answer ({learner['no_answer']})"] if "no_answer" in learner else []
    for a in actors:
        name = a.get("label") or f"{a.get('kind', '?')}{a.get('index', '?')}"
        if "no_answer" in a:
            problems.append(f"{name}: no answer ({a['no_answer']})")
        elif a.get("error"):
            problems.append(f"{name}: {a['error']}")
        elif a.get("state") == "starting":
            problems.append(f"{name}: starting")
    if problems:
        lines.append("  actors: " + "; ".join(problems))
    for a in actors:
        if a.get("pool"):
            cells = [_cell(name, rate, n) for name, (rate, n) in a["pool"].items()]
            lines.append(f"  pool ({a['kind']}{a['index']}, our win rate): " + ", ".join(cells))
    return "\n".join(lines)


def target_reached(
    learner: dict[str, Any], opponents: tuple[str, ...], target: float, window: int
) -> bool:
    """Every opponent has a full window of recent rounds at or above the target win rate."""
    if target <= 0:
        return False
    wins = learner.get("win_rate") or {}
    counts = learner.get("rounds_by_opponent") or {}
    return all(counts.get(o, 0) >= window and wins.get(o, 0.0) >= target for o in opponents)
