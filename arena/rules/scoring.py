"""docs/rules.md §8, §10, §12: inactivity zaps, deaths with survival and last-survivor scoring, the
round-over test, round scores with kill bonuses, ranks, WonRoundEvent and game totals.

The per-turn rules (disabled, inactivity, deaths, round over) are compiled (numba) and work on one
arena; the once-a-round scoring (round scores, ranks, totals) stays in numpy over all arenas.
"""

import numpy as np
from numba import njit

from tankrl.arena.rules.state import (
    BULLET_ACTIVE,
    ENERGY,
    EVENT_DIED,
    F64,
    I32,
    IN_MAP,
    SCORE_LAST_SURVIVOR_BONUS,
    SCORE_SURVIVAL,
    Bool,
    Scores,
    Totals,
    TurnEvents,
)
from tankrl.shared.game_constants import (
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


@njit(cache=True)
def disabled(bf: F64, bb: Bool, a: int, i: int) -> bool:
    """Alive with energy within 1e-6 of 0 (§3)."""
    e = bf[ENERGY, a, i]
    return bool(bb[IN_MAP, a, i]) and e >= 0.0 and abs(e) < DISABLED_EPSILON


@njit(cache=True)
def inactivity(
    bf: F64, bb: Bool, counter: I32, a: int, any_hit: bool, running: bool, limit: int
) -> None:
    """§8: a bullet hit resets the counter; past the limit every bot loses 0.1; counter += 1."""
    if not running:
        return
    if any_hit:
        counter[a] = 0
    if counter[a] > limit:
        for i in range(bf.shape[2]):
            if bb[IN_MAP, a, i]:
                bf[ENERGY, a, i] -= INACTIVITY_DAMAGE
    counter[a] += 1


@njit(cache=True)
def deaths(bf: F64, bb: Bool, scf: F64, a: int, running: bool, evb: Bool) -> None:
    """§12 survival: each death-turn gives every survivor +1; the last survivor's bonus.

    Bots that died leave the map (`in_map` False); their last state stays in the arrays.
    """
    n = bf.shape[2]
    n_before = n_after = 0
    for i in range(n):
        alive = running and bb[IN_MAP, a, i]
        died = alive and bf[ENERGY, a, i] < 0.0
        evb[EVENT_DIED, a, i] = died
        n_before += alive
        n_after += alive and not died
    if n_after == n_before:
        return
    for i in range(n):
        alive_before = bb[IN_MAP, a, i]
        alive_after = alive_before and not evb[EVENT_DIED, a, i]
        if alive_after:
            scf[SCORE_SURVIVAL, a, i] += 1.0
            if n_before > 1 and n_after == 1:
                scf[SCORE_LAST_SURVIVOR_BONUS, a, i] += BONUS_PER_LAST_SURVIVOR * (n - 1)
        if alive_before and n_before > 1 and n_after == 0:
            scf[SCORE_LAST_SURVIVOR_BONUS, a, i] += BONUS_PER_LAST_SURVIVOR * n
        if evb[EVENT_DIED, a, i]:
            bb[IN_MAP, a, i] = False


@njit(cache=True)
def round_over(bf: F64, bb: Bool, bla: Bool, a: int, running: bool, w: int) -> bool:
    """§10: at most one bot alive, or no bullets in flight and every alive bot disabled."""
    if not running:
        return False
    n_alive = 0
    all_disabled = True
    for i in range(bf.shape[2]):
        if bb[IN_MAP, a, i]:
            n_alive += 1
            all_disabled = all_disabled and disabled(bf, bb, a, i)
    if n_alive <= 1:
        return True
    if not all_disabled:
        return False
    for k in range(w):  # noqa: SIM110 - a plain loop compiles to the simplest code
        if bla[BULLET_ACTIVE, k, a]:
            return False
    return True


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
    totals.first_places[:] += ended[:, None] & (rank == 1)
    totals.second_places[:] += ended[:, None] & (rank == 2)
    totals.third_places[:] += ended[:, None] & (rank == 3)


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
