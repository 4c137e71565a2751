"""Rules §8, §10, §12: inactivity zaps, deaths with survival and last-survivor scoring, the
round-over test, round scores with kill bonuses, ranks, WonRoundEvent and game totals.
"""

import numpy as np

from arena.state import F64, I32, Bool, Bots, Bullets, Scores, Totals, TurnEvents
from shared.game_constants import (
    BONUS_PER_BULLET_KILL,
    BONUS_PER_LAST_SURVIVOR,
    BONUS_PER_RAM_KILL,
    DISABLED_EPSILON,
    INACTIVITY_DAMAGE,
    RAM_DAMAGE,
    SCORE_PER_BULLET_DAMAGE,
    SCORE_PER_RAM_DAMAGE,
    SCORE_PER_SURVIVAL,
)


def disabled(bots: Bots) -> Bool:
    """Alive with energy within 1e-6 of 0 (§3)."""
    return np.asarray(bots.in_map & (bots.energy >= 0.0) & (np.abs(bots.energy) < DISABLED_EPSILON))


def inactivity(bots: Bots, counter: I32, any_hit: Bool, running: Bool, limit: int) -> None:
    """§8: a bullet hit resets the counter; past the limit every bot loses 0.1; counter += 1."""
    counter[:] = np.where(running & any_hit, 0, counter)
    zap = running & (counter > limit)
    bots.energy -= np.where(zap[:, None] & bots.in_map, INACTIVITY_DAMAGE, 0.0)
    counter[:] = np.where(running, counter + 1, counter)


def deaths(bots: Bots, scores: Scores, running: Bool, events: TurnEvents) -> None:
    """§12 survival: each death-turn gives every survivor +1; the last survivor's bonus.

    Bots that died leave the map (`in_map` False); their last state stays in the arrays.
    """
    n = bots.x.shape[1]
    alive_before = bots.in_map & running[:, None]
    died = alive_before & (bots.energy < 0.0)
    events.died[:] = died
    alive_after = alive_before & ~died
    some_died: Bool = np.asarray(died.any(axis=1))
    scores.survival += np.where(some_died[:, None] & alive_after, 1.0, 0.0)
    n_after = alive_after.sum(axis=1)
    n_before = alive_before.sum(axis=1)
    last_one = some_died & (n_before > 1) & (n_after == 1)
    scores.last_survivor_bonus += np.where(
        last_one[:, None] & alive_after, BONUS_PER_LAST_SURVIVOR * (n - 1), 0.0
    )
    all_gone = some_died & (n_before > 1) & (n_after == 0)
    scores.last_survivor_bonus += np.where(
        all_gone[:, None] & alive_before, BONUS_PER_LAST_SURVIVOR * n, 0.0
    )
    bots.in_map &= ~died


def round_over(bots: Bots, bullets: Bullets, running: Bool) -> Bool:
    """§10: at most one bot alive, or no bullets in flight and every alive bot disabled."""
    n_alive = bots.in_map.sum(axis=1)
    all_disabled = (~bots.in_map | disabled(bots)).all(axis=1) & (n_alive > 0)
    no_bullets = ~bullets.active.any(axis=0)
    return np.asarray(running & ((n_alive <= 1) | (all_disabled & no_bullets)))


def round_scores(scores: Scores) -> dict[str, F64]:
    """Round score parts [B, N] from the damage table (kill bonuses per §12)."""
    dealt = scores.bullet_damage_to + RAM_DAMAGE * scores.ram_hits_to  # [B, dealer, victim]
    n = dealt.shape[1]
    dealers = np.arange(n)[None, :, None]
    by_bullet = scores.killed_by_bullet_of[:, None, :] == dealers
    by_ram = scores.killed_by_ram_of[:, None, :] == dealers
    parts = {
        "survival": SCORE_PER_SURVIVAL * scores.survival,
        "last_survivor_bonus": scores.last_survivor_bonus.copy(),
        "bullet_damage": SCORE_PER_BULLET_DAMAGE * scores.bullet_damage,
        "bullet_kill_bonus": BONUS_PER_BULLET_KILL * (dealt * by_bullet).sum(axis=2),
        "ram_damage": SCORE_PER_RAM_DAMAGE * RAM_DAMAGE * scores.ram_hits,
        "ram_kill_bonus": BONUS_PER_RAM_KILL * (dealt * by_ram).sum(axis=2),
    }
    parts["total"] = sum(parts.values(), np.zeros_like(scores.survival))
    return parts


def ranks(totals: F64) -> I32:
    """Competition ranks by descending total: equal totals share a rank (1, 2, 2, 4)."""
    higher = (totals[:, None, :] > totals[:, :, None]).sum(axis=2)
    return np.asarray(higher + 1, dtype=np.int32)


def end_round(scores: Scores, totals: Totals, ended: Bool, events: TurnEvents) -> None:
    """Rank the round, send WonRoundEvent to rank 1, add the round to the game totals."""
    parts = round_scores(scores)
    rank = ranks(parts["total"])
    events.won_round[:] = ended[:, None] & (rank == 1)
    for name, value in parts.items():
        getattr(totals, name)[:] += np.where(ended[:, None], value, 0.0)
    totals.first_places += ended[:, None] & (rank == 1)
    totals.second_places += ended[:, None] & (rank == 2)
    totals.third_places += ended[:, None] & (rank == 3)


def reset_round(scores: Scores, mask: Bool) -> None:
    """Clear the per-round scoring state of the arenas in `mask`."""
    for name in ("bullet_damage", "ram_hits", "survival", "last_survivor_bonus"):
        getattr(scores, name)[mask] = 0.0
    scores.bullet_damage_to[mask] = 0.0
    scores.ram_hits_to[mask] = 0.0
    scores.killed_by_bullet_of[mask] = -1
    scores.killed_by_ram_of[mask] = -1


def java_round(x: F64) -> F64:
    """Math.round: floor(x + 0.5)."""
    return np.floor(np.asarray(x) + 0.5)


def results(totals: Totals, arena: int) -> list[dict[str, int]]:
    """ResultsForBot-style integer results per bot of one arena (ranked by total score)."""
    total = totals.total[arena]
    rank = ranks(total[None, :])[0]
    out = []
    for i in range(total.shape[0]):
        out.append(
            {
                "rank": int(rank[i]),
                "survival": int(java_round(totals.survival[arena, i])),
                "lastSurvivorBonus": int(java_round(totals.last_survivor_bonus[arena, i])),
                "bulletDamage": int(java_round(totals.bullet_damage[arena, i])),
                "bulletKillBonus": int(np.floor(totals.bullet_kill_bonus[arena, i])),
                "ramDamage": int(java_round(totals.ram_damage[arena, i])),
                "ramKillBonus": int(java_round(totals.ram_kill_bonus[arena, i])),
                "totalScore": int(java_round(total[i])),
                "firstPlaces": int(totals.first_places[arena, i]),
                "secondPlaces": int(totals.second_places[arena, i]),
                "thirdPlaces": int(totals.third_places[arena, i]),
            }
        )
    return out
