"""Statistics of `tankrl evaluate` (pure): per-round records of our bot against one opponent
(from a hosted battle's observer data, or from the native engine) pooled into the reported rows:
rounds won with a Wilson 95% interval, official 1st places, mean round score, bullet-damage share.

A round is *won* when our bot is alive at its end and the opponent died (a survivor win); a double
KO, an all-disabled draw or a native round cut at the turn limit is not a win. *1st* is the
official count: rank 1 by round score (shared on equal scores), as ResultsForObserver.firstPlaces.
"""

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tankrl.deploy.eval_motion import MotionSummary, RoundMotion, round_motion

if TYPE_CHECKING:
    from tankrl.arena.server.battle import BattleResult

Json = dict[str, Any]

Z_95 = 1.959963984540054
"""Two-sided 95% standard normal quantile."""

WIN_DEFINITION = (
    "won = our bot alive at the round's end and the opponent dead (a double KO or a round "
    "that ended otherwise is not a win); 1st = rank 1 by round score (official firstPlaces)"
)


@dataclass(frozen=True)
class RoundRecord:
    """One round of our bot against one opponent."""

    opponent: str
    won: bool
    first: bool
    score: float
    enemy_score: float
    damage_dealt: float
    """Bullet damage we dealt (as scored: capped at the victim's remaining energy)."""
    damage_taken: float
    turns: int
    truncated: bool = False
    motion: RoundMotion | None = None


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion; (0, 1) when n = 0."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes={successes} outside 0..{n}")
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / n + z2 / (4 * n * n))
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


@dataclass(frozen=True)
class Summary:
    """Pooled rounds: one row of the table (an opponent, or all of them)."""

    label: str
    rounds: int
    won: int
    first: int
    mean_score: float
    mean_enemy_score: float
    damage_dealt: float
    damage_taken: float
    truncated: int
    mean_turns: float
    motion: MotionSummary | None

    @property
    def won_rate(self) -> float:
        return self.won / self.rounds if self.rounds else 0.0

    @property
    def won_ci95(self) -> tuple[float, float]:
        return wilson_interval(self.won, self.rounds)

    @property
    def first_rate(self) -> float:
        return self.first / self.rounds if self.rounds else 0.0

    @property
    def damage_share(self) -> float | None:
        """Our bullet damage / (ours + the opponent's); None when nobody hit anything."""
        total = self.damage_dealt + self.damage_taken
        return self.damage_dealt / total if total > 0 else None

    @classmethod
    def of(cls, label: str, records: Iterable[RoundRecord]) -> "Summary":
        rs = list(records)
        n = len(rs)
        motions = [r.motion for r in rs if r.motion is not None]
        return cls(
            label=label,
            rounds=n,
            won=sum(r.won for r in rs),
            first=sum(r.first for r in rs),
            mean_score=sum(r.score for r in rs) / n if n else 0.0,
            mean_enemy_score=sum(r.enemy_score for r in rs) / n if n else 0.0,
            damage_dealt=sum(r.damage_dealt for r in rs),
            damage_taken=sum(r.damage_taken for r in rs),
            truncated=sum(r.truncated for r in rs),
            mean_turns=sum(r.turns for r in rs) / n if n else 0.0,
            motion=MotionSummary.of(motions) if motions else None,
        )


def summarize(
    records: Sequence[RoundRecord], opponents: Sequence[str]
) -> tuple[list[Summary], Summary]:
    """One Summary per opponent (in the order given) and one over all rounds."""
    rows = [Summary.of(name, (r for r in records if r.opponent == name)) for name in opponents]
    return rows, Summary.of("all", records)


def _our_row(rows: Sequence[Json], our_name: str) -> tuple[Json, Json]:
    ours = [r for r in rows if r.get("name") == our_name]
    others = [r for r in rows if r.get("name") != our_name]
    if len(ours) != 1 or len(others) != 1:
        names = [r.get("name") for r in rows]
        raise ValueError(f"expected one {our_name!r} and one opponent in the results, got {names}")
    return ours[0], others[0]


def hosted_records(result: "BattleResult", our_name: str, opponent: str) -> list[RoundRecord]:
    """Per-round records from a hosted 1v1 battle observed with `observe_rounds` (and
    `trace_motion` for motion): scores, 1st places and bullet damage are differences of the
    accumulated per-round results; who died comes from the observer's BotDeathEvents."""
    if len(result.details) != len(result.round_results):
        raise ValueError("the battle was not observed per round (BattleSpec.observe_rounds)")
    out: list[RoundRecord] = []
    before: tuple[Json, Json] = ({}, {})
    for rows, detail in zip(result.round_results, result.details, strict=True):
        ours, theirs = _our_row(rows, our_name)
        trace = detail.traces.get(int(ours["id"]))
        motion = None
        if trace is not None:
            motion = round_motion(trace.speed, trace.turn_rate, trace.x, trace.y)
        out.append(
            RoundRecord(
                opponent=opponent,
                won=int(theirs["id"]) in detail.deaths and int(ours["id"]) not in detail.deaths,
                first=_delta(ours, before[0], "firstPlaces") > 0,
                score=_delta(ours, before[0], "totalScore"),
                enemy_score=_delta(theirs, before[1], "totalScore"),
                damage_dealt=_delta(ours, before[0], "bulletDamage"),
                damage_taken=_delta(theirs, before[1], "bulletDamage"),
                turns=detail.turns,
                motion=motion,
            )
        )
        before = (ours, theirs)
    return out


def _delta(row: Json, before: Json, key: str) -> float:
    """This round's part of an accumulated result."""
    return float(row.get(key, 0)) - float(before.get(key, 0))
