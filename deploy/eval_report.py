"""The output of `tankrl evaluate` (pure): an EvalReport (what was played, how, and the pooled
rows from deploy/eval_stats.py) as a text table for people or one JSON document for scripts."""

import json
import textwrap
from dataclasses import dataclass, field
from typing import Any

from tankrl.deploy.eval_motion import MotionSummary
from tankrl.deploy.eval_stats import WIN_DEFINITION, Summary

Json = dict[str, Any]

SOURCES = {
    "hosted": "hosted (official Bot API bots on our server)",
    "native": "native estimate (in-process engine, scripted opponents; not the hosted path)",
}


@dataclass(frozen=True)
class EvalReport:
    source: str
    """hosted or native."""
    policy: str
    """The evaluated package, policy dir or run dir."""
    contract: str
    contract_sha256: str
    policy_version: int
    sampled: tuple[str, ...]
    """Action dims played sampled; the others play their means."""
    action_dims: int
    """How many action dims the contract has."""
    seed: int
    rounds_per_opponent: int
    battle_rounds: int
    """Rounds per battle (an opponent that learns forgets between battles)."""
    rows: list[Summary]
    overall: Summary
    motion: bool
    wall_time_s: float
    skipped_turns: int | None = None
    """Hosted: turns a bot did not answer in time (all bots)."""
    settings: Json = field(default_factory=dict)
    """Source-specific settings (turn timeout, arenas, turn limit, ...)."""


def _pct(x: float) -> str:
    return f"{100.0 * x:5.1f}"


def _actions(report: EvalReport) -> str:
    if not report.sampled:
        return "deterministic (action means)"
    if len(report.sampled) == report.action_dims:
        return "sampled (stochastic policy)"
    return f"means, except {', '.join(report.sampled)} sampled"


COLUMNS = (
    ("opponent", 12),
    ("rounds", 6),
    ("won %  [95% CI]", 19),
    ("1st %", 5),
    ("mean score", 10),
    ("dmg share", 9),
)
NOTE_WIDTH = 100
MOTION_COLUMNS = (("rev/100t", 8), ("|Δturn|/t", 9), ("dist/round", 10))


def _cells(s: Summary, motion: bool) -> list[str]:
    lo, hi = s.won_ci95
    share = s.damage_share
    cells = [
        s.label,
        str(s.rounds),
        f"{_pct(s.won_rate)}  [{_pct(lo)}, {_pct(hi)}]",
        _pct(s.first_rate),
        f"{s.mean_score:.1f}",
        "-" if share is None else f"{share:.2f}",
    ]
    if motion:
        m = s.motion or MotionSummary(0, 0.0, 0.0, 0.0)
        cells += [
            f"{m.reversals_per_100_turns:.2f}",
            f"{m.mean_abs_turn_rate_change:.2f}",
            f"{m.distance_per_round:.0f}",
        ]
    return cells


def _line(cells: list[str], widths: list[int]) -> str:
    first = f"{cells[0]:<{widths[0]}}"
    rest = [f"{c:>{w}}" for c, w in zip(cells[1:], widths[1:], strict=True)]
    return " | ".join([first, *rest])


def format_table(report: EvalReport) -> str:
    """The report as a table with a header naming the source, policy and action mode."""
    cols = COLUMNS + (MOTION_COLUMNS if report.motion else ())
    names = [c[0] for c in cols]
    rows = [_cells(s, report.motion) for s in [*report.rows, report.overall]]
    widths = [max(len(r[i]) for r in [names, *rows]) for i in range(len(cols))]
    head = _line(names, widths)
    rule = "-+-".join("-" * w for w in widths)
    lines = [
        f"tankrl evaluate: {SOURCES[report.source]}",
        f"policy {report.policy}: contract {report.contract}, "
        f"policy_version {report.policy_version}",
        f"actions {_actions(report)}, seed {report.seed}, "
        f"{report.rounds_per_opponent} rounds per opponent in battles of at "
        f"most {min(report.battle_rounds, report.rounds_per_opponent)}",
        "",
        head,
        rule,
        *(_line(r, widths) for r in rows[:-1]),
        rule,
        _line(rows[-1], widths),
        "",
    ]
    notes = [
        WIN_DEFINITION + "; 95% CI: Wilson score interval.",
        "dmg share = our bullet damage / (ours + the opponent's), over all rounds.",
    ]
    if report.motion:
        notes.append(
            "motion (our bot): rev/100t = speed sign reversals per 100 turns (stops ignored), "
            "|Δturn|/t = mean |change of turn rate| per turn (deg), dist/round = units driven."
        )
    lines += [textwrap.fill(n, NOTE_WIDTH, subsequent_indent="  ") for n in notes]
    if report.overall.truncated:
        lines.append(f"{report.overall.truncated} rounds hit the turn limit (counted as not won).")
    tail = f"wall time {report.wall_time_s:.1f} s"
    if report.skipped_turns is not None:
        tail = f"skipped turns {report.skipped_turns} (all bots); " + tail
    lines.append(tail)
    return "\n".join(lines)


def _summary_json(s: Summary, motion: bool) -> Json:
    lo, hi = s.won_ci95
    out: Json = {
        "opponent": s.label,
        "rounds": s.rounds,
        "won": s.won,
        "won_rate": s.won_rate,
        "won_ci95": [lo, hi],
        "first_places": s.first,
        "first_rate": s.first_rate,
        "mean_score": s.mean_score,
        "mean_enemy_score": s.mean_enemy_score,
        "damage_dealt": s.damage_dealt,
        "damage_taken": s.damage_taken,
        "damage_share": s.damage_share,
        "mean_turns": s.mean_turns,
        "truncated": s.truncated,
    }
    if motion:
        m = s.motion or MotionSummary(0, 0.0, 0.0, 0.0)
        out["motion"] = {
            "reversals_per_100_turns": m.reversals_per_100_turns,
            "mean_abs_turn_rate_change_deg": m.mean_abs_turn_rate_change,
            "distance_per_round": m.distance_per_round,
        }
    return out


def to_json(report: EvalReport) -> Json:
    """The report as one JSON-ready document."""
    return {
        "source": report.source,
        "estimate": report.source == "native",
        "policy": {
            "path": report.policy,
            "contract": report.contract,
            "contract_sha256": report.contract_sha256,
            "policy_version": report.policy_version,
        },
        "deterministic": not report.sampled,
        "sampled": list(report.sampled),
        "seed": report.seed,
        "rounds_per_opponent": report.rounds_per_opponent,
        "battle_rounds": report.battle_rounds,
        "definitions": {"won": WIN_DEFINITION, "won_ci95": "Wilson score interval"},
        "opponents": [_summary_json(s, report.motion) for s in report.rows],
        "overall": _summary_json(report.overall, report.motion),
        "skipped_turns": report.skipped_turns,
        "settings": report.settings,
        "wall_time_s": report.wall_time_s,
    }


def format_json(report: EvalReport) -> str:
    return json.dumps(to_json(report), indent=2)
